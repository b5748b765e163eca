import { describe, expect, it } from 'vitest';
import {
  countFolders,
  headingRows,
  rowAt,
  rowCount,
  rowOf,
  verticalNeighbour,
  type Sections,
} from './sections';

// 5 folders and 4 files, 3 to a row:
// 0 heading folders | 1: 0 1 2 | 2: 3 4 | 3 heading files | 4: 5 6 7 | 5: 8
const both: Sections = { folders: 5, count: 9, columns: 3 };

describe('listing sections', () => {
  it('counts the folders a listing starts with', () => {
    expect(countFolders([{ isDir: true }, { isDir: true }, { isDir: false }])).toBe(2);
    expect(countFolders([{ isDir: true }])).toBe(1);
    expect(countFolders([{ isDir: false }, { isDir: true }])).toBe(0);
    expect(countFolders([])).toBe(0);
  });

  it('puts a heading before the folders and one before the files', () => {
    expect(rowCount(both)).toBe(6);
    expect(headingRows(both)).toEqual([0, 3]);
    expect([0, 1, 2, 3, 4, 5, 6].map((r) => rowAt(both, r))).toEqual([
      { kind: 'heading', group: 'folders' },
      { kind: 'items', start: 0, end: 3 },
      { kind: 'items', start: 3, end: 5 },
      { kind: 'heading', group: 'files' },
      { kind: 'items', start: 5, end: 8 },
      { kind: 'items', start: 8, end: 9 },
      null,
    ]);
    expect([0, 2, 3, 4, 5, 7, 8, 9].map((i) => rowOf(both, i))).toEqual([1, 1, 2, 2, 4, 4, 5, -1]);
  });

  it('has no heading for a group without items, and no rows for an empty folder', () => {
    const files = { folders: 0, count: 4, columns: 1 };
    expect(rowCount(files)).toBe(5);
    expect(rowAt(files, 0)).toEqual({ kind: 'heading', group: 'files' });
    expect(headingRows(files)).toEqual([0]);
    expect(rowOf(files, 0)).toBe(1);
    const folders = { folders: 2, count: 2, columns: 4 };
    expect(rowCount(folders)).toBe(2);
    expect(rowAt(folders, 1)).toEqual({ kind: 'items', start: 0, end: 2 });
    expect(rowCount({ folders: 0, count: 0, columns: 3 })).toBe(0);
    expect(rowAt({ folders: 0, count: 0, columns: 3 }, 0)).toBeNull();
  });

  it('works out the rows of 100,000 entries from the counts', () => {
    const big = { folders: 10, count: 100_000, columns: 4 };
    expect(rowCount(big)).toBe(1 + 3 + 1 + 24_998);
    expect(rowAt(big, rowOf(big, 99_999))).toEqual({ kind: 'items', start: 99_998, end: 100_000 });
  });

  it('moves up and down in the same column, across the files heading, onto a shorter row’s last item', () => {
    expect(verticalNeighbour(both, 1, 1)).toBe(4);
    expect(verticalNeighbour(both, 2, 1)).toBe(4); // the folders' short last row
    expect(verticalNeighbour(both, 4, 1)).toBe(6); // into the files, same column
    expect(verticalNeighbour(both, 7, 1)).toBe(8);
    expect(verticalNeighbour(both, 8, 1)).toBeNull();
    expect(verticalNeighbour(both, 6, -1)).toBe(4); // back into the folders
    expect(verticalNeighbour(both, 5, -1)).toBe(3);
    expect(verticalNeighbour(both, 1, -1)).toBeNull();
  });
});
