import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { setLanguage } from '../../i18n';
import { openPrompt, usePrompts, type PromptProps } from '../../stores/prompts';
import { PromptCard } from './PromptCard';
import { PromptHost } from './PromptHost';

function Ask({ name, resolve, dismiss }: PromptProps<string> & { name: string }) {
  return (
    <PromptCard
      title={`Prompt ${name}`}
      onEnter={() => resolve(`enter ${name}`)}
      actions={
        <>
          <button type="button" onClick={dismiss}>
            Cancel {name}
          </button>
          <button type="button" onClick={() => resolve(`ok ${name}`)}>
            OK {name}
          </button>
        </>
      }
    >
      <input aria-label={`Field ${name}`} />
    </PromptCard>
  );
}

const ask = (name: string) => openPrompt<string>((p) => <Ask {...p} name={name} />);

describe('prompt stack', () => {
  beforeAll(async () => {
    await setLanguage('en');
  });
  beforeEach(() => {
    usePrompts.setState({ stack: [] });
  });

  it('resolves with the answer of the button pressed', async () => {
    render(<PromptHost />);
    let answer: Promise<string | null> = Promise.resolve(null);
    act(() => {
      answer = ask('a');
    });
    await userEvent.click(screen.getByRole('button', { name: 'OK a' }));
    await expect(answer).resolves.toBe('ok a');
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('closes only the top prompt on Escape, resolving it with null', async () => {
    render(<PromptHost />);
    let first: Promise<string | null> = Promise.resolve(null);
    let second: Promise<string | null> = Promise.resolve(null);
    act(() => {
      first = ask('a');
      second = ask('b');
    });
    expect(screen.getAllByRole('dialog')).toHaveLength(2);
    await userEvent.keyboard('{Escape}');
    await expect(second).resolves.toBeNull();
    expect(screen.getByRole('dialog', { name: 'Prompt a' })).toBeTruthy();
    await userEvent.keyboard('{Escape}');
    await expect(first).resolves.toBeNull();
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('stacks cards above each other and makes the lower one inert', () => {
    render(<PromptHost />);
    act(() => {
      void ask('a');
      void ask('b');
    });
    const [lower, upper] = screen.getAllByRole('dialog').map((d) => d.parentElement as HTMLElement);
    expect(Number(upper?.style.zIndex)).toBe(Number(lower?.style.zIndex) + 2);
    expect(lower?.hasAttribute('inert')).toBe(true);
    expect(upper?.hasAttribute('inert')).toBe(false);
  });

  it('focuses the new card and runs the default action on Enter', async () => {
    render(<PromptHost />);
    let answer: Promise<string | null> = Promise.resolve(null);
    act(() => {
      answer = ask('a');
    });
    const field = screen.getByRole('textbox', { name: 'Field a' });
    await waitFor(() => expect(document.activeElement).toBe(field));
    await userEvent.keyboard('{Enter}');
    await expect(answer).resolves.toBe('enter a');
  });

  it('keeps Tab inside the card', async () => {
    render(<PromptHost />);
    act(() => {
      void ask('a');
    });
    const field = screen.getByRole('textbox', { name: 'Field a' });
    await waitFor(() => expect(document.activeElement).toBe(field));
    await userEvent.tab();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Cancel a' }));
    await userEvent.tab();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'OK a' }));
    await userEvent.tab();
    expect(document.activeElement).toBe(field);
    await userEvent.tab({ shift: true });
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'OK a' }));
  });
});
