/**
 * Listing order (api.md §8 "Sorting"), with File Browser's quirks: `name` with `asc: false` is
 * A→Z, folders first; `size` groups folders after files when descending; `modified` has no folder
 * grouping; an unknown `by` keeps disk order (or acts as name/asc:true).
 */
import type { Sorting } from '@coffer/protocol';

export interface Sortable {
  name: string;
  isDir: boolean;
  size: number;
  /** Modification time in nanoseconds since the epoch as a number (ordering only). */
  mtime: number;
}

/**
 * A key whose plain string order is the natural, case-insensitive order: each digit run becomes
 * "0" + a length mark + the digits without leading zeros, so numbers compare by value.
 */
export function naturalKey(name: string): string {
  const lower = name.toLowerCase();
  let out = '';
  let i = 0;
  while (i < lower.length) {
    const c = lower.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      let j = i;
      while (j < lower.length && lower.charCodeAt(j) >= 48 && lower.charCodeAt(j) <= 57) j++;
      let k = i;
      while (k < j - 1 && lower.charCodeAt(k) === 48) k++;
      const digits = lower.slice(k, j);
      out += '0' + String.fromCharCode(0x100 + Math.min(digits.length, 0xfeff)) + digits;
      i = j;
    } else {
      out += lower[i];
      i++;
    }
  }
  return out;
}

/** What the order needs to know about entry `i`. */
export interface SortSource {
  name(i: number): string;
  isDir(i: number): boolean;
  size(i: number): number;
  /** Modification time as a number (ordering only). */
  mtime(i: number): number;
}

/** Natural, case-insensitive order with ties broken by code units: a total order of distinct names. */
export function naturalOrder(indices: readonly number[], name: (i: number) => string): number[] {
  const keys: string[] = [];
  for (const i of indices) keys[i] = naturalKey(name(i));
  return indices.slice().sort((a, b) => {
    const ka = keys[a]!;
    const kb = keys[b]!;
    if (ka !== kb) return ka < kb ? -1 : 1;
    const na = name(a);
    const nb = name(b);
    return na < nb ? -1 : na > nb ? 1 : 0;
  });
}

/**
 * Whether `sorting` orders by name alone — the order can then be computed from the names before
 * the stats are in (`naturalOrder`, then `orderByName`).
 */
export function sortsByName(sorting: Sorting): boolean {
  return sorting.by === 'name' || (sorting.by !== 'size' && sorting.by !== 'modified' && sorting.asc);
}

/**
 * The listing order for a name sorting, from indices already in `naturalOrder`: folders first,
 * each group A→Z, or Z→A for `asc: true` (File Browser's quirk). Linear.
 */
export function orderByName(named: readonly number[], isDir: (i: number) => boolean, asc: boolean): number[] {
  const dirs: number[] = [];
  const files: number[] = [];
  const n = named.length;
  for (let j = 0; j < n; j++) {
    const i = named[asc ? n - 1 - j : j]!;
    (isDir(i) ? dirs : files).push(i);
  }
  return dirs.concat(files);
}

/**
 * Orders entry indices (given in disk/name order) by the viewer's sorting; returns a new array.
 * Works on indices so a folder of 100,000 entries sorts without an object per entry.
 */
export function sortIndices(indices: number[], src: SortSource, sorting: Sorting): number[] {
  const { by, asc } = sorting;
  if (sortsByName(sorting)) return orderByName(naturalOrder(indices, src.name), src.isDir, asc);
  if (by === 'modified') return indices.slice().sort((a, b) => (asc ? src.mtime(a) - src.mtime(b) : src.mtime(b) - src.mtime(a)));
  if (by !== 'size') return indices.slice();
  const dirs: number[] = [];
  const files: number[] = [];
  for (const i of indices) (src.isDir(i) ? dirs : files).push(i);
  const up = (a: number, b: number) => src.size(a) - src.size(b);
  const down = (a: number, b: number) => src.size(b) - src.size(a);
  return asc ? dirs.sort(up).concat(files.sort(up)) : files.sort(down).concat(dirs.sort(down));
}

/** Sorts objects in place (the input is in disk/name order) and returns them. */
export function sortItems<T extends Sortable>(items: T[], sorting: Sorting): T[] {
  const src: SortSource = {
    name: (i) => items[i]!.name,
    isDir: (i) => items[i]!.isDir,
    size: (i) => items[i]!.size,
    mtime: (i) => items[i]!.mtime,
  };
  const order = sortIndices(items.map((_, i) => i), src, sorting);
  const sorted = order.map((i) => items[i]!);
  for (let i = 0; i < sorted.length; i++) items[i] = sorted[i]!;
  return items;
}
