import { describe, expect, it } from 'vitest';
import { sourcesFromEntries } from './entries';

/** A folder tree in the shape of the File System entries API, read in batches of two. */
function dir(name: string, children: FileSystemEntry[]): FileSystemEntry {
  return {
    name,
    isFile: false,
    isDirectory: true,
    createReader() {
      let at = 0;
      return {
        readEntries(done: (batch: FileSystemEntry[]) => void) {
          const batch = children.slice(at, at + 2);
          at += batch.length;
          queueMicrotask(() => done(batch));
        },
      };
    },
  } as unknown as FileSystemEntry;
}

function file(name: string): FileSystemEntry {
  return {
    name,
    isFile: true,
    isDirectory: false,
    file(done: (f: File) => void) {
      queueMicrotask(() => done(new File([name], name)));
    },
  } as unknown as FileSystemEntry;
}

describe('dropped folders', () => {
  it('are walked to every file, reading all batches, with empty folders kept', async () => {
    const tree = dir('photos', [
      file('a.jpg'),
      file('b.jpg'),
      file('c.jpg'),
      dir('2024', [file('d.jpg'), dir('empty', [])]),
    ]);
    const sources = await sourcesFromEntries([tree, new File(['x'], 'loose.txt')]);
    expect(sources.map((s) => [s.relativePath, s.file?.name ?? null])).toEqual([
      ['photos/a.jpg', 'a.jpg'],
      ['photos/b.jpg', 'b.jpg'],
      ['photos/c.jpg', 'c.jpg'],
      ['photos/2024/d.jpg', 'd.jpg'],
      ['photos/2024/empty', null],
      ['loose.txt', 'loose.txt'],
    ]);
  });

  it('keep a dropped empty folder', async () => {
    expect(await sourcesFromEntries([dir('nothing', [])])).toEqual([{ relativePath: 'nothing', file: null }]);
  });
});
