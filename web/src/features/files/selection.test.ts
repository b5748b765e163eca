import { describe, expect, it } from 'vitest';
import {
  carrySelection,
  clickItem,
  contextItem,
  EMPTY_SELECTION,
  focusItem,
  longPressItem,
  nextIndex,
  selectAll,
  selectedItems,
  selectPaths,
  setMultiple,
  toggleItem,
  type Selection,
} from './selection';

const plain = { toggle: false, range: false };
const ctrl = { toggle: true, range: false };
const shift = { toggle: false, range: true };
const ids = (s: { selected: ReadonlySet<number> }) => [...s.selected].sort((a, b) => a - b);
const sel = (
  selected: number[],
  anchor: number | null = null,
  extra: Partial<Selection> = {},
): Selection => ({
  ...EMPTY_SELECTION,
  selected: new Set(selected),
  anchor,
  ...extra,
});

describe('clickItem', () => {
  it('a plain click selects only that item, also when clicked again', () => {
    const one = clickItem(sel([1, 2], 1), 4, plain);
    expect(ids(one)).toEqual([4]);
    expect(ids(clickItem(one, 4, plain))).toEqual([4]);
  });

  it('Ctrl/Cmd click adds and removes single items', () => {
    let s = clickItem(EMPTY_SELECTION, 1, plain);
    s = clickItem(s, 3, ctrl);
    expect(ids(s)).toEqual([1, 3]);
    s = clickItem(s, 1, ctrl);
    expect(ids(s)).toEqual([3]);
  });

  it('Shift click selects every item between the anchor and the click, both ways', () => {
    const s = clickItem(EMPTY_SELECTION, 2, plain);
    expect(ids(clickItem(s, 5, shift))).toEqual([2, 3, 4, 5]);
    expect(ids(clickItem(s, 0, shift))).toEqual([0, 1, 2]);
    // a second Shift click re-ranges from the same anchor
    expect(ids(clickItem(clickItem(s, 5, shift), 3, shift))).toEqual([2, 3]);
  });

  it('Shift click without an anchor selects just the item', () => {
    expect(ids(clickItem(EMPTY_SELECTION, 3, shift))).toEqual([3]);
  });

  it('Ctrl+Shift click adds the range to what is already selected', () => {
    let s = clickItem(EMPTY_SELECTION, 0, plain);
    s = clickItem(s, 5, ctrl);
    s = clickItem(s, 7, { toggle: true, range: true });
    expect(ids(s)).toEqual([0, 5, 6, 7]);
  });

  it('in multiple-selection mode a plain click adds and removes', () => {
    let s = setMultiple(EMPTY_SELECTION, true);
    s = clickItem(s, 1, plain);
    s = clickItem(s, 2, plain);
    expect(ids(s)).toEqual([1, 2]);
    s = clickItem(s, 1, plain);
    expect(ids(s)).toEqual([2]);
    expect(s.multiple).toBe(true);
  });

  it('moves the keyboard focus to the clicked item', () => {
    expect(clickItem(EMPTY_SELECTION, 3, plain).focus).toBe(3);
    expect(clickItem(sel([1], 1), 4, shift).focus).toBe(4);
  });
});

describe('multiple-selection mode, long press and context menu', () => {
  it('leaving the mode keeps what is selected', () => {
    const s = setMultiple(sel([1, 2], 1, { multiple: true }), false);
    expect(ids(s)).toEqual([1, 2]);
    expect(s.multiple).toBe(false);
  });

  it('a long press adds the item and enters the mode', () => {
    const s = longPressItem(sel([0], 0), 3);
    expect(ids(s)).toEqual([0, 3]);
    expect(s).toMatchObject({ multiple: true, focus: 3, anchor: 3 });
  });

  it('a context menu on a selected item keeps the selection', () => {
    expect(ids(contextItem(sel([1, 2, 3], 1), 2))).toEqual([1, 2, 3]);
  });

  it('a context menu on another item selects only it, or adds it in multiple mode', () => {
    expect(ids(contextItem(sel([1, 2], 1), 4))).toEqual([4]);
    expect(ids(contextItem(sel([1, 2], 1, { multiple: true }), 4))).toEqual([1, 2, 4]);
  });
});

describe('keyboard moves', () => {
  const list = { count: 5, columns: 1, rtl: false };
  const grid = { count: 7, columns: 3, rtl: false };

  it('Up and Down step through a list and stop at its ends; Left and Right do nothing', () => {
    expect(nextIndex(2, 'ArrowDown', list)).toBe(3);
    expect(nextIndex(2, 'ArrowUp', list)).toBe(1);
    expect(nextIndex(4, 'ArrowDown', list)).toBe(4);
    expect(nextIndex(0, 'ArrowUp', list)).toBe(0);
    expect(nextIndex(2, 'ArrowRight', list)).toBe(2);
    expect(nextIndex(2, 'ArrowLeft', list)).toBe(2);
  });

  it('Home and End go to the first and last item', () => {
    expect(nextIndex(2, 'Home', list)).toBe(0);
    expect(nextIndex(2, 'End', list)).toBe(4);
    expect(nextIndex(null, 'End', grid)).toBe(6);
  });

  it('with nothing focused, Down starts at the first item and Up at the last', () => {
    expect(nextIndex(null, 'ArrowDown', list)).toBe(0);
    expect(nextIndex(null, 'ArrowUp', list)).toBe(4);
    expect(nextIndex(null, 'ArrowDown', { ...list, count: 0 })).toBeNull();
  });

  it('in a grid Left/Right step by one and Up/Down by a row', () => {
    expect(nextIndex(4, 'ArrowRight', grid)).toBe(5);
    expect(nextIndex(4, 'ArrowLeft', grid)).toBe(3);
    expect(nextIndex(4, 'ArrowUp', grid)).toBe(1);
    expect(nextIndex(1, 'ArrowDown', grid)).toBe(4);
    expect(nextIndex(1, 'ArrowUp', grid)).toBe(1);
    expect(nextIndex(0, 'ArrowLeft', grid)).toBe(0);
    expect(nextIndex(6, 'ArrowRight', grid)).toBe(6);
  });

  it('folders and files are two grids: Up and Down cross between them in the same column', () => {
    const two = { count: 9, columns: 3, folders: 5, rtl: false };
    expect(nextIndex(4, 'ArrowDown', two)).toBe(6);
    expect(nextIndex(3, 'ArrowDown', two)).toBe(5);
    expect(nextIndex(6, 'ArrowUp', two)).toBe(4);
    expect(nextIndex(2, 'ArrowDown', two)).toBe(4);
    expect(nextIndex(4, 'ArrowRight', two)).toBe(5);
    expect(nextIndex(5, 'ArrowLeft', two)).toBe(4);
    expect(nextIndex(8, 'ArrowDown', two)).toBe(8);
  });

  it('Down into an incomplete last row lands on the last item; Down on the last row stays', () => {
    expect(nextIndex(5, 'ArrowDown', grid)).toBe(6);
    expect(nextIndex(6, 'ArrowDown', grid)).toBe(6);
  });

  it('right to left swaps Left and Right', () => {
    expect(nextIndex(4, 'ArrowRight', { ...grid, rtl: true })).toBe(3);
    expect(nextIndex(4, 'ArrowLeft', { ...grid, rtl: true })).toBe(5);
  });

  it('a plain move selects only the new item', () => {
    const s = focusItem(sel([0, 1], 0, { focus: 1 }), 2, { extend: false, keep: false });
    expect(ids(s)).toEqual([2]);
    expect(s.focus).toBe(2);
  });

  it('Shift extends from the anchor, also back past it', () => {
    let s = focusItem(clickItem(EMPTY_SELECTION, 2, plain), 3, { extend: true, keep: false });
    s = focusItem(s, 4, { extend: true, keep: false });
    expect(ids(s)).toEqual([2, 3, 4]);
    s = focusItem(s, 1, { extend: true, keep: false });
    expect(ids(s)).toEqual([1, 2]);
  });

  it('Ctrl, and multiple-selection mode, move the focus only; Space then toggles', () => {
    let s = focusItem(sel([0], 0, { focus: 0 }), 2, { extend: false, keep: true });
    expect(ids(s)).toEqual([0]);
    expect(s.focus).toBe(2);
    s = toggleItem(s, 2);
    expect(ids(s)).toEqual([0, 2]);
    const multi = focusItem(sel([0], 0, { focus: 0, multiple: true }), 1, { extend: false, keep: false });
    expect(ids(multi)).toEqual([0]);
    expect(multi.focus).toBe(1);
  });
});

describe('selectAll, carrySelection, selectPaths, selectedItems', () => {
  it('selects every index and keeps the mode', () => {
    const s = selectAll(setMultiple(EMPTY_SELECTION, true), 3);
    expect(ids(s)).toEqual([0, 1, 2]);
    expect(s.multiple).toBe(true);
  });

  it('keeps items with the same path across a reload, at their new positions', () => {
    const before = [{ path: '/a' }, { path: '/b' }, { path: '/c' }];
    const after = [{ path: '/new' }, { path: '/c' }, { path: '/a' }];
    const s = carrySelection(sel([0, 2], 0, { focus: 2 }), before, after);
    expect(ids(s)).toEqual([1, 2]);
    expect(s.anchor).toBe(2);
    expect(s.focus).toBe(1);
  });

  it('drops the focus when its item is gone', () => {
    const s = carrySelection(sel([], null, { focus: 1 }), [{ path: '/a' }, { path: '/b' }], [{ path: '/a' }]);
    expect(s.focus).toBeNull();
  });

  it('selects items by path, folders with or without a trailing slash, focus on the first', () => {
    const items = [{ path: '/x/dir' }, { path: '/x/a.txt' }, { path: '/x/b.txt' }];
    const s = selectPaths(EMPTY_SELECTION, items, ['/x/b.txt', '/x/dir/', '/x/missing']);
    expect(ids(s)).toEqual([0, 2]);
    expect(s.focus).toBe(0);
  });

  it('returns the selected items in listing order', () => {
    expect(selectedItems(sel([2, 0]), ['a', 'b', 'c'])).toEqual(['a', 'c']);
  });
});
