import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { setLanguage } from '../../i18n';
import { usePrompts } from '../../stores/prompts';
import { askDiscardChanges } from '../editor/DiscardPrompt';
import { askReplace } from '../files/FolderPicker';
import { askUploadConflict } from '../upload/UploadPrompts';
import { confirmDanger } from './ConfirmPrompt';
import { PromptHost } from './PromptHost';

/** The card's buttons in order: name, red or main, focused. */
function buttons() {
  return within(screen.getByRole('dialog'))
    .getAllByRole('button')
    .map(
      (b) =>
        `${b.textContent}${b.className.includes('danger') ? ' (red)' : ''}${b.className.includes('primary') ? ' (main)' : ''}${b.hasAttribute('data-autofocus') ? ' (focus)' : ''}`,
    );
}

function open<T>(ask: () => Promise<T>): Promise<T> {
  let answer!: Promise<T>;
  act(() => {
    answer = ask();
  });
  return answer;
}

describe('confirmDanger', () => {
  beforeAll(async () => {
    await setLanguage('en');
  });
  beforeEach(() => {
    usePrompts.setState({ stack: [] });
    render(<PromptHost />);
  });

  it('puts the safe answer first with the focus and the destructive one in red; Escape is safe', async () => {
    const answer = open(() =>
      confirmDanger({ title: 'Delete', text: 'Sure?', cancel: 'Cancel', confirm: 'Delete' }),
    );
    expect(buttons()).toEqual(['Cancel (focus)', 'Delete (red)']);
    await waitFor(() => expect(document.activeElement?.textContent).toBe('Cancel'));
    await userEvent.keyboard('{Escape}');
    await expect(answer).resolves.toBeNull();
  });

  it('resolves true for the destructive answer', async () => {
    const answer = open(() =>
      confirmDanger({ title: 'Delete', text: 'Sure?', cancel: 'Cancel', confirm: 'Delete' }),
    );
    await userEvent.click(screen.getByRole('button', { name: 'Delete' }));
    await expect(answer).resolves.toBe(true);
  });

  it('places the other answers between, a main one last, and focuses the one named', async () => {
    const answer = open(() =>
      confirmDanger({
        title: 'Clash',
        text: 'Names exist',
        cancel: 'Cancel',
        confirm: 'Replace',
        others: [
          { answer: 'later', label: 'Later', primary: true },
          { answer: 'skip', label: 'Skip' },
          { answer: 'both', label: 'Keep both', focus: true },
        ],
      }),
    );
    expect(buttons()).toEqual(['Cancel', 'Skip', 'Keep both (focus)', 'Replace (red)', 'Later (main)']);
    await userEvent.click(screen.getByRole('button', { name: 'Skip' }));
    await expect(answer).resolves.toBe('skip');
  });

  it('leaves out the destructive answer the user may not take', () => {
    void open(() =>
      confirmDanger({
        title: 'Clash',
        text: 'x',
        cancel: 'Cancel',
        confirm: null,
        others: [{ answer: 'a', label: 'A' }],
      }),
    );
    expect(buttons()).toEqual(['Cancel (focus)', 'A']);
  });

  it('serves the replace, upload-conflict and discard prompts with their own answers', async () => {
    let answer: Promise<unknown> = open(() => askReplace(true));
    expect(buttons()).toEqual(['Cancel', 'Keep both (focus)', 'Overwrite (red)']);
    await userEvent.click(screen.getByRole('button', { name: 'Overwrite' }));
    await expect(answer).resolves.toBe('overwrite');

    answer = open(() => askUploadConflict(['a.txt'], true));
    expect(buttons()).toEqual(['Cancel', 'Skip them', 'Keep both (focus)', 'Replace (red)']);
    expect(screen.getByRole('listitem').textContent).toBe('a.txt');
    await userEvent.click(screen.getByRole('button', { name: 'Replace' }));
    await expect(answer).resolves.toBe('replace');

    answer = open(() => askDiscardChanges('notes.txt'));
    expect(buttons()).toEqual(['Keep editing (focus)', 'Discard changes (red)', 'Save and leave (main)']);
    await userEvent.click(screen.getByRole('button', { name: 'Discard changes' }));
    await expect(answer).resolves.toBe('discard');
  });
});
