import { describe, expect, it } from 'vitest';
import { naturalCompare, nextSorting, sortingFrom, sortItems, storedSorting, shownSize } from './sorting';

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

  it('sorts a list that is in order but for its last pair, in either group', () => {
    const names = Array.from({ length: 50 }, (_, i) => `f${i}`);
    const files = [...names.slice(0, -2), names[49], names[48]].map((n) => item(n ?? ''));
    expect(sortItems(files, { by: 'name', asc: true }).map((i) => i.name)).toEqual(names);
    const dirs = [item('a', true), item('c', true), item('b', true), item('x')];
    expect(sortItems(dirs, { by: 'name', asc: true }).map((i) => i.name)).toEqual(['a', 'b', 'c', 'x']);
    const first = [item('b'), item('a'), item('c')];
    expect(sortItems(first, { by: 'name', asc: true }).map((i) => i.name)).toEqual(['a', 'b', 'c']);
  });

  it('keeps a listing already in order as it is, equal items included, in a new array', () => {
    const items = [item('B', true), item('a'), item('b', false, 10), item('b', false, 20), item('file10')];
    const out = sortItems(items, { by: 'name', asc: true });
    expect(out).toEqual(items);
    expect(out).not.toBe(items);
    // In order ascending is out of order descending, and the other way round.
    expect(sortItems(items, { by: 'name', asc: false }).map((i) => i.name)).toEqual([
      'B',
      'file10',
      'b',
      'b',
      'a',
    ]);
    const desc = [item('z'), item('y'), item('x', false, 0), item('x', false, 1)];
    expect(sortItems(desc, { by: 'name', asc: false })).toEqual(desc);
  });

  it('gives what a full sort gives, sorted or not, by every field and direction', () => {
    const pool = ['a', 'B', 'c2', 'c10', 'é', 'E', 'd'].flatMap((name, i) => [
      item(name, i % 3 === 0, (i * 7) % 4, `2024-01-0${(i % 5) + 1}T00:00:00Z`),
      item(`${name}x`, false, i % 2, '2024-01-01T00:00:00Z'),
    ]);
    for (const by of ['name', 'size', 'modified'] as const) {
      for (const asc of [true, false]) {
        const sorting = { by, asc };
        const once = sortItems(pool, sorting);
        expect(sortItems(once, sorting)).toEqual(once);
        expect(sortItems([...pool].reverse(), sorting).map((i) => i.name)).toEqual(once.map((i) => i.name));
      }
    }
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

describe('sortingFrom / storedSorting', () => {
  it("reads name's stored flag inverted: the default asc: false is A→Z (docs/api.md §7.5)", () => {
    expect(sortingFrom({ by: 'name', asc: false })).toEqual({ by: 'name', asc: true });
    expect(sortingFrom({ by: 'name', asc: true })).toEqual({ by: 'name', asc: false });
    expect(sortingFrom({ by: 'name' })).toEqual({ by: 'name', asc: true });
  });

  it('reads size and modified as stored', () => {
    expect(sortingFrom({ by: 'size', asc: true })).toEqual({ by: 'size', asc: true });
    expect(sortingFrom({ by: 'modified', asc: false })).toEqual({ by: 'modified', asc: false });
  });

  it('reads anything unknown as the default, names A→Z', () => {
    expect(sortingFrom(undefined)).toEqual({ by: 'name', asc: true });
    expect(sortingFrom({ by: '', asc: false })).toEqual({ by: 'name', asc: true });
    expect(sortingFrom({ by: 7, asc: 'yes' })).toEqual({ by: 'name', asc: true });
  });

  it('stores what it reads back unchanged', () => {
    for (const by of ['name', 'size', 'modified'] as const)
      for (const asc of [true, false]) expect(sortingFrom(storedSorting({ by, asc }))).toEqual({ by, asc });
    expect(storedSorting({ by: 'name', asc: true })).toEqual({ by: 'name', asc: false });
  });
});

describe('sorting folders by their recursive size (docs/api.md §24)', () => {
  const at = '2024-01-01T00:00:00Z';
  it('uses folderSize when the server sent it, the entry size otherwise', () => {
    const items = [
      { name: 'big', isDir: true, size: 4096, folderSize: 9_000_000, modified: at },
      { name: 'small', isDir: true, size: 4096, folderSize: 10, modified: at },
      { name: 'unknown', isDir: true, size: 4096, modified: at },
      { name: 'f', isDir: false, size: 5, modified: at },
    ];
    expect(sortItems(items, { by: 'size', asc: true }).map((i) => i.name)).toEqual(['small', 'unknown', 'big', 'f']);
    expect(sortItems(items, { by: 'size', asc: false }).map((i) => i.name)).toEqual(['big', 'unknown', 'small', 'f']);
    expect(shownSize(items[0]!)).toBe(9_000_000);
    expect(shownSize(items[2]!)).toBe(4096);
  });
});
