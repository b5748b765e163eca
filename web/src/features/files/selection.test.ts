import { describe, expect, it } from 'vitest';
import { carrySelection, clickItem, EMPTY_SELECTION, selectAll, selectedItems } from './selection';

const plain = { toggle: false, range: false };
const ctrl = { toggle: true, range: false };
const shift = { toggle: false, range: true };
const ids = (s: { selected: ReadonlySet<number> }) => [...s.selected].sort((a, b) => a - b);

describe('clickItem', () => {
  it('a plain click selects only that item, also when clicked again', () => {
    const one = clickItem({ selected: new Set([1, 2]), anchor: 1 }, 4, plain);
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

  it('in multiple mode a plain click toggles', () => {
    let s = clickItem(EMPTY_SELECTION, 1, { ...plain, multiple: true });
    s = clickItem(s, 2, { ...plain, multiple: true });
    expect(ids(s)).toEqual([1, 2]);
  });
});

describe('selectAll, carrySelection, selectedItems', () => {
  it('selects every index', () => {
    expect(ids(selectAll(3))).toEqual([0, 1, 2]);
  });

  it('keeps items with the same path across a reload, at their new positions', () => {
    const before = [{ path: '/a' }, { path: '/b' }, { path: '/c' }];
    const after = [{ path: '/new' }, { path: '/c' }, { path: '/a' }];
    const s = carrySelection({ selected: new Set([0, 2]), anchor: 0 }, before, after);
    expect(ids(s)).toEqual([1, 2]);
  });

  it('returns the selected items in listing order', () => {
    expect(selectedItems({ selected: new Set([2, 0]), anchor: null }, ['a', 'b', 'c'])).toEqual(['a', 'c']);
  });
});
