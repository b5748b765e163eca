import { describe, expect, it } from 'vitest';
import { naturalKey, sortItems, type Sortable } from './sort.js';

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

describe('File Browser sorting quirks (api.md §8)', () => {
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
