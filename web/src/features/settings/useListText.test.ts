import { act, renderHook } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { useListText } from './useListText';
import { formatWords, parseWords } from './words';

/** The hook as WordsInput uses it, with the lists handed to onChange recorded. */
function words(initial: string[]) {
  const changes: string[][] = [];
  const view = renderHook(
    ({ value }) => useListText(value, formatWords, parseWords, (list) => changes.push(list)),
    { initialProps: { value: initial } },
  );
  return { view, changes, type: (text: string) => act(() => view.result.current[1](text)) };
}

describe('a list edited as text', () => {
  it('starts from the list and hands the parsed list on as the text is typed', () => {
    const { view, changes, type } = words(['ls', 'git']);
    expect(view.result.current[0]).toBe('ls git');
    type('ls  git ');
    expect(view.result.current[0]).toBe('ls  git ');
    expect(changes).toEqual([['ls', 'git']]);
  });

  it('keeps what is typed when the list that comes back is the one it says', () => {
    const { view, type } = words(['ls']);
    type('ls  cat ');
    view.rerender({ value: ['ls', 'cat'] });
    expect(view.result.current[0]).toBe('ls  cat ');
  });

  it('takes a different list from outside (a reload, a reset) as the new text', () => {
    const { view, type } = words(['ls']);
    type('ls cat');
    view.rerender({ value: ['rm'] });
    expect(view.result.current[0]).toBe('rm');
  });
});
