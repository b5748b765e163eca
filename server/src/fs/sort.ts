/**
 * Listing order (docs/api.md §7.5), with File Browser's quirks: `name` with `asc: false` is
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

const isDigit = (c: number) => c >= 48 && c <= 57;
const NON_ASCII = /[^\0-\x7f]/;

/**
 * Compares two ASCII names as their `naturalKey`s compare (sign only), without making the keys:
 * letters lowercased, a digit run against another by its length without leading zeros then its
 * digits, against anything else as the "0" its key starts with. Runs longer than the last mark
 * (never in a real name) go through the keys.
 */
function compareAscii(a: string, b: string): number {
  const la = a.length;
  const lb = b.length;
  let i = 0;
  let j = 0;
  while (i < la && j < lb) {
    let ca = a.charCodeAt(i);
    let cb = b.charCodeAt(j);
    if (isDigit(ca) && isDigit(cb)) {
      let ea = i + 1;
      while (ea < la && isDigit(a.charCodeAt(ea))) ea++;
      let eb = j + 1;
      while (eb < lb && isDigit(b.charCodeAt(eb))) eb++;
      while (i < ea - 1 && a.charCodeAt(i) === 48) i++;
      while (j < eb - 1 && b.charCodeAt(j) === 48) j++;
      const length = ea - i;
      if (length >= MAX_RUN_MARK || eb - j >= MAX_RUN_MARK) return naturalKey(a) < naturalKey(b) ? -1 : naturalKey(a) > naturalKey(b) ? 1 : 0;
      if (length !== eb - j) return length - (eb - j);
      for (; i < ea; i++, j++) if (a.charCodeAt(i) !== b.charCodeAt(j)) return a.charCodeAt(i) - b.charCodeAt(j);
      continue;
    }
    if (isDigit(ca)) ca = 48;
    else if (ca >= 65 && ca <= 90) ca += 32;
    if (isDigit(cb)) cb = 48;
    else if (cb >= 65 && cb <= 90) cb += 32;
    if (ca !== cb) return ca - cb;
    i++;
    j++;
  }
  // One key is a prefix of the other (or both ended): the shorter first.
  return la - i - (lb - j);
}

/**
 * Natural, case-insensitive order with ties broken by code units: a total order of distinct names.
 * ASCII names are compared as they are; keys are made only for the others. The input usually
 * comes in readdir's byte order, often already the natural one, which the (adaptive) sort then
 * only checks.
 */
export function naturalOrder(indices: readonly number[], name: (i: number) => string): number[] {
  const n = indices.length;
  // By position (indices may have gaps).
  const names: string[] = new Array<string>(n);
  const ascii = new Uint8Array(n);
  const keys: (string | undefined)[] = new Array<string | undefined>(n);
  const at: number[] = new Array<number>(n);
  for (let k = 0; k < n; k++) {
    const s = name(indices[k]!);
    names[k] = s;
    ascii[k] = NON_ASCII.test(s) ? 0 : 1;
    at[k] = k;
  }
  const keyOf = (k: number) => (keys[k] ??= naturalKey(names[k]!));
  at.sort((a, b) => {
    const na = names[a]!;
    const nb = names[b]!;
    if (ascii[a]! & ascii[b]!) {
      const c = compareAscii(na, nb);
      if (c !== 0) return c;
    } else {
      const ka = keyOf(a);
      const kb = keyOf(b);
      if (ka < kb) return -1;
      if (ka > kb) return 1;
    }
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
  const n = named.length;
  // Filled in place (growing arrays cost more than asking isDir twice).
  const out: number[] = new Array<number>(n);
  let dirs = 0;
  for (let j = 0; j < n; j++) if (isDir(named[j]!)) dirs++;
  let d = 0;
  let f = dirs;
  for (let j = 0; j < n; j++) {
    const i = named[asc ? n - 1 - j : j]!;
    if (isDir(i)) out[d++] = i;
    else out[f++] = i;
  }
  return out;
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
