import { describe, expect, it } from 'vitest';
import { naturalKey, naturalOrder, sortItems, type Sortable } from './sort.js';

const f = (name: string, size = 0, mtime = 0, isDir = false): Sortable => ({ name, size, mtime, isDir });
const names = (xs: Sortable[]) => xs.map((x) => x.name);

describe('natural order', () => {
  it('compares digit runs by value, case-insensitively', () => {
    const xs = ['file10.txt', 'File2.txt', 'a.txt', 'file1.txt', 'file003.txt'].map((n) => f(n));
    expect(names(sortItems(xs, { by: 'name', asc: false }))).toEqual(['a.txt', 'file1.txt', 'File2.txt', 'file003.txt', 'file10.txt']);
    expect(naturalKey('x9') < naturalKey('x10')).toBe(true);
    expect(naturalKey('x99999999999999999999') > naturalKey('x1000')).toBe(true);
  });
});

/** The order as first written (one mark character 0x100 + length per digit run), kept as the reference. */
function referenceKey(name: string): string {
  const lower = name.toLowerCase();
  let out = '';
  for (let i = 0; i < lower.length; ) {
    const c = lower.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      let j = i;
      while (j < lower.length && lower.charCodeAt(j) >= 48 && lower.charCodeAt(j) <= 57) j++;
      let k = i;
      while (k < j - 1 && lower.charCodeAt(k) === 48) k++;
      out += '0' + String.fromCharCode(0x100 + Math.min(j - k, 0xfeff)) + lower.slice(k, j);
      i = j;
    } else out += lower[i++];
  }
  return out;
}
const referenceOrder = (xs: string[]) =>
  xs.slice().sort((a, b) => {
    const ka = referenceKey(a);
    const kb = referenceKey(b);
    if (ka !== kb) return ka < kb ? -1 : 1;
    return a < b ? -1 : a > b ? 1 : 0;
  });
const ordered = (xs: string[]) => naturalOrder(xs.map((_, i) => i), (i) => xs[i]!).map((i) => xs[i]!);

describe('natural order, fast paths', () => {
  it('a name without digits is its own lowercase', () => {
    expect(naturalKey('Readme.MD')).toBe('readme.md');
    expect(ordered(['b', 'B', 'a', 'A', 'Ä', 'ä', 'ab'])).toEqual(['A', 'a', 'ab', 'B', 'b', 'Ä', 'ä']);
  });
  it('equal keys (case, leading zeros) are ordered by code units', () => {
    expect(ordered(['file1', 'FILE1', 'File1'])).toEqual(['FILE1', 'File1', 'file1']);
    expect(ordered(['a7', 'a8', 'a007', 'a07', 'a0', 'a00'])).toEqual(['a0', 'a00', 'a007', 'a07', 'a7', 'a8']);
  });
  it('long digit runs compare by length first, also past one mark character', () => {
    const long = (d: string, n: number) => 'x' + d.repeat(n);
    expect(ordered([long('1', 300), long('9', 299), long('1', 255), long('9', 254), long('5', 256)])).toEqual([
      long('9', 254),
      long('1', 255),
      long('5', 256),
      long('9', 299),
      long('1', 300),
    ]);
    // Runs longer than the last mark compare as text (the first order's quirk, kept).
    expect(ordered([long('2', 0xfeff + 5), long('1', 0xfeff + 9)])).toEqual([long('1', 0xfeff + 9), long('2', 0xfeff + 5)]);
  });
  it('orders exactly as the reference on mixed names (non-ASCII, astral, digits anywhere)', () => {
    const parts = ['', 'a', 'B', 'é', 'É', 'ß', 'İ', 'Σ', 'ς', '漢', '😀', '\ud800', ' ', '-', '.', '_', '~', '\xff', '0', '00', '7', '007', '10', '099', '9'.repeat(260), '1'.repeat(255)];
    let seed = 7;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % parts.length;
    const names = new Set<string>();
    while (names.size < 3000) names.add(Array.from({ length: 1 + (next() % 5) }, () => parts[next()]).join('') || 'x');
    const xs = [...names];
    expect(ordered(xs)).toEqual(referenceOrder(xs));
    // Keys keep their order relation with the reference keys pair by pair.
    for (let i = 1; i < 200; i++) expect(naturalKey(xs[i - 1]!) < naturalKey(xs[i]!)).toBe(referenceKey(xs[i - 1]!) < referenceKey(xs[i]!));
  });
  it('orders ASCII names (compared without keys) exactly as the reference, from byte order or shuffled', () => {
    const parts = ['a', 'A', 'b', 'Z', 'z', '[', '_', '`', '~', ' ', '-', '.', '0', '00', '1', '01', '9', '10', '010', '99', '100', '0009'];
    let seed = 11;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % parts.length;
    const names = new Set<string>();
    while (names.size < 4000) names.add(Array.from({ length: 1 + (next() % 6) }, () => parts[next()]).join(''));
    const bytes = [...names].sort();
    expect(ordered(bytes)).toEqual(referenceOrder(bytes));
    const shuffled = bytes.slice().sort((a, b) => a.length - b.length || (a < b ? 1 : -1));
    expect(ordered(shuffled)).toEqual(referenceOrder(bytes));
    // ASCII against non-ASCII names (keys on one side only).
    const both = [...bytes.slice(0, 500), ...bytes.slice(0, 500).map((x) => x + 'é'), ...bytes.slice(0, 500).map((x) => 'É' + x)];
    expect(ordered(both)).toEqual(referenceOrder(both));
  });
  it('keeps the input order of equal names and works on indices with gaps', () => {
    const xs = ['b', 'a', 'b', 'c', 'a'];
    expect(naturalOrder([4, 2, 1, 0], (i) => xs[i]!)).toEqual([4, 1, 2, 0]);
    expect(naturalOrder([], (i) => xs[i]!)).toEqual([]);
  });
});

describe('File Browser sorting quirks (docs/api.md §7.5)', () => {
  const items = () => [f('b', 5, 3), f('dir2', 4096, 1, true), f('a', 10, 2), f('dir1', 100, 4, true), f('c', 1, 1)];
  it('name asc:false is A→Z with folders first; asc:true reverses', () => {
    expect(names(sortItems(items(), { by: 'name', asc: false }))).toEqual(['dir1', 'dir2', 'a', 'b', 'c']);
    expect(names(sortItems(items(), { by: 'name', asc: true }))).toEqual(['dir2', 'dir1', 'c', 'b', 'a']);
  });
  it('size desc puts folders after files; asc puts folders first', () => {
    expect(names(sortItems(items(), { by: 'size', asc: false }))).toEqual(['a', 'b', 'c', 'dir2', 'dir1']);
    expect(names(sortItems(items(), { by: 'size', asc: true }))).toEqual(['dir1', 'dir2', 'c', 'b', 'a']);
  });
  it('modified has no folder grouping', () => {
    expect(names(sortItems(items(), { by: 'modified', asc: false }))).toEqual(['dir1', 'b', 'a', 'dir2', 'c']);
    expect(names(sortItems(items(), { by: 'modified', asc: true }))[0]).toMatch(/dir2|c/);
  });
  it('an unknown key keeps disk order, or acts as name/asc:true', () => {
    expect(names(sortItems(items(), { by: 'weird', asc: false }))).toEqual(['b', 'dir2', 'a', 'dir1', 'c']);
    expect(names(sortItems(items(), { by: 'weird', asc: true }))).toEqual(['dir2', 'dir1', 'c', 'b', 'a']);
  });
});
