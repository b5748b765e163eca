/** The trash screen's pure logic: sorting, the folder an item came from, the items an Undo restores. */
import type { TrashItem } from '../../api/trash';

export type TrashSortKey = 'name' | 'folder' | 'deletedAt' | 'size';
export interface TrashSort {
  by: TrashSortKey;
  asc: boolean;
}

/** The newest first, as the server lists them. */
export const DEFAULT_TRASH_SORT: TrashSort = { by: 'deletedAt', asc: false };

/**
 * The folder the item was in. With every scope's trash (`all`) the scope's place is put in front,
 * so that items of different users are told apart ("/users/bob/docs").
 */
export function originalFolder(item: Pick<TrashItem, 'path' | 'scope'>, all: boolean): string {
  const cut = item.path.lastIndexOf('/');
  const folder = cut <= 0 ? '/' : item.path.slice(0, cut);
  if (!all || item.scope === '/' || item.scope === '') return folder;
  return folder === '/' ? item.scope : `${item.scope}${folder}`;
}

const collators = new Map<string, Intl.Collator>();
function collator(locale: string): Intl.Collator {
  let c = collators.get(locale);
  if (!c) {
    c = new Intl.Collator(locale, { numeric: true, sensitivity: 'base' });
    collators.set(locale, c);
  }
  return c;
}

/**
 * A sorted copy. Names and folders compare as people read them (numbers by value); a folder whose
 * size is still being measured (-1) sorts as the smallest. Ties keep the newest first.
 */
export function sortTrash(items: readonly TrashItem[], sort: TrashSort, locale: string, all = false): TrashItem[] {
  const c = collator(locale);
  // Keys computed once per item, not once per comparison (a big trash holds many thousands).
  const rows = items.map((item, index) => ({
    item,
    index,
    time: Date.parse(item.deletedAt),
    text: sort.by === 'folder' ? originalFolder(item, all) : item.name,
  }));
  type Row = (typeof rows)[number];
  const key: (a: Row, b: Row) => number =
    sort.by === 'deletedAt' ? (a, b) => a.time - b.time : sort.by === 'size' ? (a, b) => a.item.size - b.item.size : (a, b) => c.compare(a.text, b.text);
  const dir = sort.asc ? 1 : -1;
  rows.sort((x, y) => dir * key(x, y) || y.time - x.time || x.index - y.index);
  return rows.map((r) => r.item);
}

/** A click on a column: the same column turns its order round, another starts in its natural order. */
export function nextSort(current: TrashSort, by: TrashSortKey): TrashSort {
  if (current.by === by) return { by, asc: !current.asc };
  // Dates and sizes are most useful biggest/newest first; names and folders A to Z.
  return { by, asc: by === 'name' || by === 'folder' };
}

/**
 * The items an Undo puts back: for each deleted path, the newest item from that path deleted by
 * this user (the list is newest first, docs/api.md §22.1). Paths not found are left out.
 */
export function itemsToUndo(items: readonly TrashItem[], paths: readonly string[], username: string): TrashItem[] {
  const out: TrashItem[] = [];
  const taken = new Set<string>();
  for (const p of paths) {
    const hit = items
      .filter((i) => i.path === p && i.deletedBy === username && !taken.has(i.id))
      .sort((a, b) => Date.parse(b.deletedAt) - Date.parse(a.deletedAt))[0];
    if (hit) {
      taken.add(hit.id);
      out.push(hit);
    }
  }
  return out;
}
