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

/** Run lengths at or above this all share one mark (their digits then compare as text). */
const MAX_RUN_MARK = 0xfeff;
const marks: string[] = [];

/**
 * The mark of a digit run of `length` digits (leading zeros dropped): one character below 0xff,
 * else 0xff and two more, so marks order as their lengths and a name of Latin-1 characters keeps
 * a one-byte key (cheaper to compare). A mark only ever meets another mark: both keys are then at
 * the start of a digit run.
 */
function runMark(length: number): string {
  if (length < 0xff) return (marks[length] ??= '0' + String.fromCharCode(length));
  const n = Math.min(length, MAX_RUN_MARK);
  return '0\xff' + String.fromCharCode(n >> 8, n & 0xff);
}

function digitRun(run: string): string {
  let k = 0;
  while (k < run.length - 1 && run.charCodeAt(k) === 48) k++;
  return runMark(run.length - k) + (k === 0 ? run : run.slice(k));
}

const DIGIT_RUNS = /[0-9]+/g;
const HAS_DIGIT = /[0-9]/;

/**
 * A key whose plain string order is the natural, case-insensitive order: each digit run becomes
 * "0" + a length mark + the digits without leading zeros, so numbers compare by value; a name
 * without digits is its own lowercase.
 */
export function naturalKey(name: string): string {
  const lower = name.toLowerCase();
  return HAS_DIGIT.test(lower) ? lower.replace(DIGIT_RUNS, digitRun) : lower;
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
  const n = indices.length;
  // Keys and positions in dense arrays (indices may have gaps); the input usually comes in
  // readdir's byte order, close to the natural one, which the (adaptive) sort makes cheap.
  const keys: string[] = new Array<string>(n);
  const at: number[] = new Array<number>(n);
  for (let k = 0; k < n; k++) {
    keys[k] = naturalKey(name(indices[k]!));
    at[k] = k;
  }
  at.sort((a, b) => {
    const ka = keys[a]!;
    const kb = keys[b]!;
    if (ka < kb) return -1;
    if (ka > kb) return 1;
    const na = name(indices[a]!);
    const nb = name(indices[b]!);
    return na < nb ? -1 : na > nb ? 1 : a - b;
  });
  for (let k = 0; k < n; k++) at[k] = indices[at[k]!]!;
  return at;
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
