import { act, renderHook } from '@testing-library/react';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import {
  indexesOfNames,
  indexesOfWanted,
  requestReselect,
  requestReselectNew,
  useReselect,
} from './reselect';
import { EMPTY_SELECTION, type Selection } from './selection';

const items = [{ name: 'docs' }, { name: 'a.txt' }, { name: 'b.txt' }];

/** The hook with a real selection state, as FileBrowser uses it. */
function browser(folder: string, initial: { name: string }[], start: Selection = EMPTY_SELECTION) {
  let changes = 0;
  const found: number[] = [];
  const view = renderHook(
    ({ list }) => {
      const [selection, setSelection] = useState(start);
      useReselect(
        folder,
        list,
        (next) => {
          changes += 1;
          setSelection(next);
        },
        (first) => found.push(first),
      );
      return selection;
    },
    { initialProps: { list: initial } },
  );
  return { view, changes: () => changes, found };
}

describe('re-selecting new items', () => {
  it('finds the listed items with those names', () => {
    expect(indexesOfNames(items, ['b.txt', 'docs', 'gone'])).toEqual([0, 2]);
    expect(indexesOfNames(items, ['new.txt'])).toEqual([]);
  });

  it('applies a request once the reloaded listing has the names, only once, only for its folder', () => {
    const { view, changes } = browser('/in/', items);
    act(() => requestReselect('/other/', ['a.txt']));
    act(() => requestReselect('/in/', ['new.txt']));
    expect(changes()).toBe(0);
    view.rerender({ list: [...items, { name: 'new.txt' }] });
    expect(view.result.current).toMatchObject({ selected: new Set([3]), anchor: 3, focus: 3 });
    view.rerender({ list: [{ name: 'new.txt' }] });
    expect(changes()).toBe(1);
  });

  it('applies at once when the listing already has them, keeping multiple-selection mode', () => {
    const { view } = browser('/in/', items, { ...EMPTY_SELECTION, multiple: true });
    act(() => requestReselect('/in/', ['a.txt', 'b.txt']));
    expect(view.result.current).toEqual({ selected: new Set([1, 2]), anchor: 1, focus: 1, multiple: true });
  });

  it('selects what is new since `before` when the server picked the names', () => {
    expect(indexesOfWanted(items, { names: [], before: new Set(['docs', 'a.txt']) })).toEqual([2]);
    const { view, found } = browser('/copies/', items);
    act(() => requestReselectNew('/copies/', ['docs', 'a.txt', 'b.txt']));
    expect(view.result.current.selected.size).toBe(0);
    view.rerender({ list: [...items, { name: 'a(1).txt' }] });
    expect(view.result.current).toMatchObject({ selected: new Set([3]), focus: 3 });
    expect(found).toEqual([3]);
  });

  it('keeps a request for a folder not shown until a browser shows it; a newer one replaces it', () => {
    act(() => requestReselect('/later/', ['a.txt']));
    act(() => requestReselect('/later/', ['b.txt']));
    const { view, found } = browser('/later/', items);
    expect(view.result.current).toMatchObject({ selected: new Set([2]), anchor: 2, focus: 2 });
    expect(found).toEqual([2]);
    const again = browser('/later/', items);
    expect(again.view.result.current.selected.size).toBe(0);
  });
});
