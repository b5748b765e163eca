import { describe, expect, it } from 'vitest';
import { naturalCompare, nextSorting, sortItems } from './sorting';

const item = (name: string, isDir = false, size = 0, modified = '2024-01-01T00:00:00Z') => ({
  name,
  isDir,
  size,
  modified,
});

describe('sortItems', () => {
  it('puts folders before files and orders names naturally', () => {
    const out = sortItems([item('file10'), item('b', true), item('file2'), item('A', true), item('File1')], {
      by: 'name',
      asc: true,
    });
    expect(out.map((i) => i.name)).toEqual(['A', 'b', 'File1', 'file2', 'file10']);
  });

  it('reverses each group when descending, folders still first', () => {
    const out = sortItems([item('a'), item('d', true), item('b'), item('c', true)], {
      by: 'name',
      asc: false,
    });
    expect(out.map((i) => i.name)).toEqual(['d', 'c', 'b', 'a']);
  });

  it('sorts by size and by last modified, ties by name', () => {
    const items = [item('x', false, 30), item('y', false, 10), item('z', false, 10)];
    expect(sortItems(items, { by: 'size', asc: true }).map((i) => i.name)).toEqual(['y', 'z', 'x']);
    const dated = [
      item('new', false, 0, '2025-05-01T00:00:00Z'),
      item('old', false, 0, '2020-05-01T00:00:00Z'),
    ];
    expect(sortItems(dated, { by: 'modified', asc: true }).map((i) => i.name)).toEqual(['old', 'new']);
  });

  it('does not change its input', () => {
    const items = [item('b'), item('a')];
    sortItems(items, { by: 'name', asc: true });
    expect(items.map((i) => i.name)).toEqual(['b', 'a']);
  });
});

describe('naturalCompare', () => {
  it('compares digit runs as numbers', () => {
    expect(naturalCompare('img9.png', 'img10.png')).toBeLessThan(0);
    expect(naturalCompare('a', 'a')).toBe(0);
  });
});

describe('nextSorting', () => {
  it('flips the direction on the same field and starts ascending on another', () => {
    expect(nextSorting({ by: 'name', asc: true }, 'name')).toEqual({ by: 'name', asc: false });
    expect(nextSorting({ by: 'name', asc: false }, 'size')).toEqual({ by: 'size', asc: true });
  });
});
