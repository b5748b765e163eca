/** Listing order (docs/client.md §2 "File browser"): folders first, then files, each sorted by one field. */

export type SortField = 'name' | 'size' | 'modified';

export interface Sorting {
  by: SortField;
  asc: boolean;
}

export interface Sortable {
  name: string;
  size: number;
  modified: string;
  isDir: boolean;
  /** A folder's recursive size, when the server's file index knows it (docs/api.md §24). */
  folderSize?: number;
}

/** The size a row shows and sorts by: a folder's recursive size when known, else `size`. */
export function shownSize(item: Pick<Sortable, 'isDir' | 'size' | 'folderSize'>): number {
  return item.isDir && item.folderSize !== undefined ? item.folderSize : item.size;
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/** Natural order: "file2" before "file10", case and accents folded, ties broken by code points. */
export function naturalCompare(a: string, b: string): number {
  return collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}

function compareBy(by: SortField, a: Sortable, b: Sortable): number {
  if (by === 'size') return shownSize(a) - shownSize(b) || naturalCompare(a.name, b.name);
  if (by === 'modified') {
    return Date.parse(a.modified) - Date.parse(b.modified) || naturalCompare(a.name, b.name);
  }
  return naturalCompare(a.name, b.name);
}

/**
 * A new array: folders, then files, each in `sorting` order. A listing the server already sent in
 * the user's order costs one comparison per item: V8's sort (TimSort) finds the sorted run and
 * stops, so checking the order first would only repeat those comparisons.
 */
export function sortItems<T extends Sortable>(items: readonly T[], sorting: Sorting): T[] {
  const sign = sorting.asc ? 1 : -1;
  const cmp = (a: T, b: T) => sign * compareBy(sorting.by, a, b);
  const dirs = items.filter((i) => i.isDir).sort(cmp);
  const files = items.filter((i) => !i.isDir).sort(cmp);
  return dirs.concat(files);
}

/** Clicking a column header: the same field flips the direction, another field starts ascending. */
export function nextSorting(current: Sorting, by: SortField): Sorting {
  return current.by === by ? { by, asc: !current.asc } : { by, asc: true };
}

export function isSortField(v: unknown): v is SortField {
  return v === 'name' || v === 'size' || v === 'modified';
}

/**
 * The order a stored sorting (the user's `{by, asc}`, as a folder answer carries it) shows. For
 * `name` the stored flag is inverted (docs/api.md §7.5, File Browser's convention): `asc: false` — every
 * user's default — lists A→Z. Anything unknown reads as the default.
 */
export function sortingFrom(value: { by?: unknown; asc?: unknown } | undefined): Sorting {
  const by = isSortField(value?.by) ? value.by : 'name';
  const stored = value?.asc === true;
  return { by, asc: by === 'name' ? !stored : stored };
}

/** The stored form of the order the user picked (the inverse of `sortingFrom`). */
export function storedSorting(sorting: Sorting): Sorting {
  return { by: sorting.by, asc: sorting.by === 'name' ? !sorting.asc : sorting.asc };
}
