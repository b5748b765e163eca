/**
 * Selection in a listing (docs/client.md §2 "Listing items", §4 "Selection"), as plain data: the selected
 * indexes of the sorted listing, the anchor a Shift range starts from, the item keyboard focus is
 * on, and whether multiple-selection mode is on.
 */

import { verticalNeighbour } from './sections';

export interface Selection {
  selected: ReadonlySet<number>;
  /** Where the last plain or Ctrl click landed; Shift ranges start here. */
  anchor: number | null;
  /** The item the keyboard is on (the one tabbable option); arrow keys move from here. */
  focus: number | null;
  /** docs/client.md §4 multiple-selection mode: a plain click or tap adds or removes instead of replacing. */
  multiple: boolean;
}

export const EMPTY_SELECTION: Selection = { selected: new Set(), anchor: null, focus: null, multiple: false };

export interface ClickModifiers {
  /** Ctrl or Meta (Cmd). */
  toggle: boolean;
  range: boolean;
}

function rangeOf(from: number, to: number): number[] {
  const [a, b] = from <= to ? [from, to] : [to, from];
  return Array.from({ length: b - a + 1 }, (_, i) => a + i);
}

/** The selection after clicking item `index`. */
export function clickItem(sel: Selection, index: number, mods: ClickModifiers): Selection {
  if (mods.range && sel.anchor !== null) {
    const selected = new Set(mods.toggle ? sel.selected : []);
    for (const i of rangeOf(sel.anchor, index)) selected.add(i);
    return { ...sel, selected, focus: index };
  }
  if (mods.toggle || mods.range || sel.multiple) {
    const selected = new Set(sel.selected);
    if (selected.has(index)) selected.delete(index);
    else selected.add(index);
    return { ...sel, selected, anchor: index, focus: index };
  }
  return { ...sel, selected: new Set([index]), anchor: index, focus: index };
}

export function selectAll(sel: Selection, count: number): Selection {
  return { ...sel, selected: new Set(rangeOf(0, count - 1)), anchor: null };
}

/** Turns multiple-selection mode on or off; the selected items stay selected. */
export function setMultiple(sel: Selection, multiple: boolean): Selection {
  return { ...sel, multiple };
}

/** docs/client.md §2: a long press selects the item and enters multiple-selection mode. */
export function longPressItem(sel: Selection, index: number): Selection {
  const selected = new Set(sel.selected);
  selected.add(index);
  return { selected, anchor: index, focus: index, multiple: true };
}

/**
 * A context menu on item `index` acts on the selection when the item is part of it; otherwise the
 * item becomes the selection (added to it in multiple-selection mode).
 */
export function contextItem(sel: Selection, index: number): Selection {
  if (sel.selected.has(index)) return { ...sel, focus: index };
  const selected = new Set(sel.multiple ? sel.selected : []);
  selected.add(index);
  return { ...sel, selected, anchor: index, focus: index };
}

export interface FocusModifiers {
  /** Shift: extend from the anchor to the new item. */
  extend: boolean;
  /** Ctrl/Cmd (or multiple-selection mode): move the focus only, leaving the selection alone. */
  keep: boolean;
}

/** The selection after the keyboard moves to item `index` (arrows, Home, End). */
export function focusItem(sel: Selection, index: number, mods: FocusModifiers): Selection {
  if (mods.extend) {
    const anchor = sel.anchor ?? sel.focus ?? index;
    const selected = new Set(mods.keep ? sel.selected : []);
    for (const i of rangeOf(anchor, index)) selected.add(i);
    return { ...sel, selected, anchor, focus: index };
  }
  if (mods.keep || sel.multiple) return { ...sel, focus: index };
  return { ...sel, selected: new Set([index]), anchor: index, focus: index };
}

/** Space on the focused item: adds or removes it. */
export function toggleItem(sel: Selection, index: number): Selection {
  return clickItem(sel, index, { toggle: true, range: false });
}

export type MoveKey = 'ArrowUp' | 'ArrowDown' | 'ArrowLeft' | 'ArrowRight' | 'Home' | 'End';

export function isMoveKey(key: string): key is MoveKey {
  return /^(Arrow(Up|Down|Left|Right)|Home|End)$/.test(key);
}

export interface Grid {
  count: number;
  /** Items per row: 1 in list view, more in the mosaic views. */
  columns: number;
  /** The items before this index are folders: the folders and the files are two grids. */
  folders?: number;
  /** Right-to-left layout: Left and Right swap. */
  rtl: boolean;
}

/**
 * Where a key moves the focus from `from` (null: nothing focused yet). In a one-column list only
 * Up and Down move; in a grid Left/Right step by one item and Up/Down by one row (the same column;
 * a shorter row takes its last item), from the folders' last row into the files' first and back.
 */
export function nextIndex(from: number | null, key: MoveKey, grid: Grid): number | null {
  const { count, columns, rtl } = grid;
  if (count === 0) return null;
  if (key === 'Home') return 0;
  if (key === 'End') return count - 1;
  if (from === null) return key === 'ArrowUp' || key === 'ArrowLeft' ? count - 1 : 0;
  if (key === 'ArrowDown' || key === 'ArrowUp') {
    const sections = { folders: grid.folders ?? 0, count, columns };
    return verticalNeighbour(sections, from, key === 'ArrowDown' ? 1 : -1) ?? from;
  }
  if (columns === 1) return from;
  const to = from + ((key === 'ArrowRight') !== rtl ? 1 : -1);
  return to < 0 || to >= count ? from : to;
}

/** docs/client.md §4: a new listing keeps the selection (and the focus) of items with the same path. */
export function carrySelection(
  sel: Selection,
  before: readonly { path: string }[],
  after: readonly { path: string }[],
): Selection {
  if (sel.selected.size === 0 && sel.focus === null) return sel;
  const where = new Map(after.map((item, i) => [item.path, i]));
  const moved = (i: number | null) => (i === null ? null : (where.get(before[i]?.path ?? '') ?? null));
  const selected = new Set<number>();
  for (const i of sel.selected) {
    const j = moved(i);
    if (j !== null) selected.add(j);
  }
  return { selected, anchor: moved(sel.anchor), focus: moved(sel.focus), multiple: sel.multiple };
}

/** Selects the items whose path is in `paths` (trailing slashes ignored); the focus goes to the first. */
export function selectPaths(
  sel: Selection,
  items: readonly { path: string }[],
  paths: Iterable<string>,
): Selection {
  const wanted = new Set([...paths].map(trimSlash));
  const selected = new Set<number>();
  items.forEach((item, i) => {
    if (wanted.has(trimSlash(item.path))) selected.add(i);
  });
  const first = selected.size > 0 ? Math.min(...selected) : null;
  return { ...sel, selected, anchor: first, focus: first };
}

export function trimSlash(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

export function selectedItems<T>(sel: Selection, items: readonly T[]): T[] {
  return [...sel.selected]
    .sort((a, b) => a - b)
    .map((i) => items[i])
    .filter((x): x is T => x !== undefined);
}
