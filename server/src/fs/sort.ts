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

interface Keyed<T> {
  t: T;
  k: string;
}

function naturalCmp<T extends Sortable>(a: Keyed<T>, b: Keyed<T>): number {
  if (a.k !== b.k) return a.k < b.k ? -1 : 1;
  return a.t.name < b.t.name ? -1 : a.t.name > b.t.name ? 1 : 0;
}

/** Sorts in place (the input is in disk/name order) and returns it. */
export function sortItems<T extends Sortable>(items: T[], sorting: Sorting): T[] {
  const { by, asc } = sorting;
  if (by === 'modified') {
    return items.sort((a, b) => (asc ? a.mtime - b.mtime : b.mtime - a.mtime));
  }
  if (by === 'size') {
    const dirs = items.filter((i) => i.isDir);
    const files = items.filter((i) => !i.isDir);
    if (asc) {
      dirs.sort((a, b) => a.size - b.size);
      files.sort((a, b) => a.size - b.size);
      return replace(items, dirs.concat(files));
    }
    dirs.sort((a, b) => b.size - a.size);
    files.sort((a, b) => b.size - a.size);
    return replace(items, files.concat(dirs));
  }
  if (by !== 'name' && !asc) return items;
  // name (and unknown `by` with asc: true): folders first; asc:false → ascending (the quirk).
  const keyed = items.map((t) => ({ t, k: naturalKey(t.name) }));
  const order = asc ? (a: Keyed<T>, b: Keyed<T>) => naturalCmp(b, a) : naturalCmp<T>;
  const dirs = keyed.filter((i) => i.t.isDir).sort(order);
  const files = keyed.filter((i) => !i.t.isDir).sort(order);
  return replace(items, dirs.concat(files).map((i) => i.t));
}

function replace<T>(target: T[], src: T[]): T[] {
  for (let i = 0; i < src.length; i++) target[i] = src[i]!;
  return target;
}
