/**
 * Selection in a listing (spec §2 "Listing items", §4 "Selection"), as plain data: the selected
 * indexes of the sorted listing plus the anchor a Shift range starts from.
 */

export interface Selection {
  selected: ReadonlySet<number>;
  /** Where the last plain or Ctrl click landed; Shift ranges start here. */
  anchor: number | null;
}

export const EMPTY_SELECTION: Selection = { selected: new Set(), anchor: null };

export interface ClickModifiers {
  /** Ctrl or Meta (Cmd). */
  toggle: boolean;
  range: boolean;
  /** Multiple-selection mode: a plain click adds instead of replacing. */
  multiple?: boolean;
}

/** The selection after clicking item `index`. */
export function clickItem(sel: Selection, index: number, mods: ClickModifiers): Selection {
  if (mods.range && sel.anchor !== null) {
    const [from, to] = sel.anchor <= index ? [sel.anchor, index] : [index, sel.anchor];
    const selected = new Set(mods.toggle ? sel.selected : []);
    for (let i = from; i <= to; i++) selected.add(i);
    return { selected, anchor: sel.anchor };
  }
  if (mods.toggle || mods.range || mods.multiple) {
    const selected = new Set(sel.selected);
    if (selected.has(index)) selected.delete(index);
    else selected.add(index);
    return { selected, anchor: index };
  }
  return { selected: new Set([index]), anchor: index };
}

export function selectAll(count: number): Selection {
  return { selected: new Set(Array.from({ length: count }, (_, i) => i)), anchor: null };
}

/** §4: a new listing keeps the selection of items with the same path. */
export function carrySelection(
  sel: Selection,
  before: readonly { path: string }[],
  after: readonly { path: string }[],
): Selection {
  if (sel.selected.size === 0) return sel;
  const wanted = new Set([...sel.selected].map((i) => before[i]?.path));
  const selected = new Set<number>();
  after.forEach((item, i) => {
    if (wanted.has(item.path)) selected.add(i);
  });
  return { selected, anchor: null };
}

export function selectedItems<T>(sel: Selection, items: readonly T[]): T[] {
  return [...sel.selected]
    .sort((a, b) => a - b)
    .map((i) => items[i])
    .filter((x): x is T => x !== undefined);
}
