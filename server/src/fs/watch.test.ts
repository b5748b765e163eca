import { mkdirSync } from 'node:fs';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { watchTree, type Watch } from './watch.js';

let root: string;
let w: Watch | undefined;
let seen: Set<string>;
let errors: Error[];

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'coffer-watch-'));
  seen = new Set();
  errors = [];
  w = await watchTree(
    root,
    (paths) => paths.forEach((p) => seen.add(p)),
    (err) => errors.push(err),
  );
});
afterEach(async () => {
  await w?.close();
  await rm(root, { recursive: true, force: true });
});

async function until(probe: () => boolean, ms = 3000): Promise<boolean> {
  for (const start = Date.now(); Date.now() - start < ms; await new Promise((r) => setTimeout(r, 20))) if (probe()) return true;
  return probe();
}

describe('watchTree', () => {
  /** A tree made elsewhere and moved in: the library watches its top folder only. */
  async function moveIn(): Promise<void> {
    const stage = await mkdtemp(path.join(tmpdir(), 'coffer-watch-stage-'));
    mkdirSync(path.join(stage, 'a/b/c'), { recursive: true });
    await rename(path.join(stage, 'a'), path.join(root, 'a'));
    await rm(stage, { recursive: true });
    expect(await until(() => seen.has(path.join(root, 'a')))).toBe(true);
  }

  it('reports a tree moved in, but not what changes in its folders below the top', async () => {
    await moveIn();
    await writeFile(path.join(root, 'a/b/c/f.txt'), 'x');
    await writeFile(path.join(root, 'a/top.txt'), 'x');
    expect(await until(() => seen.has(path.join(root, 'a/top.txt')))).toBe(true);
    // The library's gap that covers close (the index covers every folder it adds).
    expect(await until(() => seen.has(path.join(root, 'a/b/c/f.txt')), 300)).toBe(false);
  });

  it('reports what changes in a covered folder, and no more once it is uncovered', async () => {
    await moveIn();
    w!.cover(path.join(root, 'a/b'));
    w!.cover(path.join(root, 'a/b/c'));
    w!.cover(path.join(root, 'a/b/c')); // once only
    expect(w!.covers).toBe(2);
    await writeFile(path.join(root, 'a/b/c/f.txt'), 'x');
    await writeFile(path.join(root, 'a/b/g.txt'), 'x');
    expect(await until(() => seen.has(path.join(root, 'a/b/c/f.txt')) && seen.has(path.join(root, 'a/b/g.txt')))).toBe(true);

    w!.uncover(path.join(root, 'a/b'));
    expect(w!.covers).toBe(0);
    seen.clear();
    await writeFile(path.join(root, 'a/b/c/h.txt'), 'x');
    expect(await until(() => seen.has(path.join(root, 'a/b/c/h.txt')), 500)).toBe(false);
    expect(errors).toEqual([]);
  });

  it('drops a cover once the library reports the folder made (it watches the folder itself then)', async () => {
    const d = path.join(root, 'late');
    mkdirSync(d);
    w!.cover(d);
    expect(w!.covers).toBe(1);
    expect(await until(() => w!.covers === 0)).toBe(true);
    await writeFile(path.join(d, 'f.txt'), 'x');
    expect(await until(() => seen.has(path.join(d, 'f.txt')))).toBe(true);
  });

  // The usual order for a folder made behind Coffer's back: the library reports it (and watches
  // it), then the index reads it. Before: covered all the same, and never dropped.
  it('does not cover a folder the library already reported made', async () => {
    const d = path.join(root, 'p/x');
    mkdirSync(path.join(root, 'p'));
    expect(await until(() => seen.has(path.join(root, 'p')))).toBe(true);
    mkdirSync(d);
    expect(await until(() => seen.has(d))).toBe(true);
    w!.cover(path.join(root, 'p'));
    w!.cover(d);
    expect(w!.covers).toBe(0);
    await writeFile(path.join(d, 'f.txt'), 'x');
    expect(await until(() => seen.has(path.join(d, 'f.txt')))).toBe(true);
    // Removed, then made again inside a tree moved in, where the library does not look: covered.
    seen.clear();
    await rm(path.join(root, 'p'), { recursive: true });
    expect(await until(() => seen.has(path.join(root, 'p')))).toBe(true);
    const stage = await mkdtemp(path.join(tmpdir(), 'coffer-watch-stage-'));
    mkdirSync(path.join(stage, 'p/x'), { recursive: true });
    await rename(path.join(stage, 'p'), path.join(root, 'p'));
    await rm(stage, { recursive: true });
    expect(await until(() => seen.has(path.join(root, 'p')))).toBe(true);
    w!.cover(d);
    expect(w!.covers).toBe(1);
  });

  it('covers a folder reported made once it left the index (it may be made again unseen)', async () => {
    mkdirSync(path.join(root, 'q/y'), { recursive: true });
    expect(await until(() => seen.has(path.join(root, 'q')))).toBe(true);
    mkdirSync(path.join(root, 'r'));
    expect(await until(() => seen.has(path.join(root, 'r')))).toBe(true);
    w!.uncover(path.join(root, 'q'));
    w!.cover(path.join(root, 'q'));
    w!.cover(path.join(root, 'r'));
    expect(w!.covers).toBe(1);
  });

  it('covers again once below the cap, saying the cap was reached once (before: never again)', async () => {
    const other = await mkdtemp(path.join(tmpdir(), 'coffer-watch-cap-'));
    for (const d of ['x', 'y', 'z']) mkdirSync(path.join(other, d));
    const errs: Error[] = [];
    const capped = await watchTree(other, () => undefined, (err) => errs.push(err), [], 1);
    try {
      capped.cover(path.join(other, 'x'));
      capped.cover(path.join(other, 'y'));
      expect(capped.covers).toBe(1);
      expect(errs.length).toBe(1);
      capped.uncover(path.join(other, 'x'));
      capped.cover(path.join(other, 'y'));
      expect(capped.covers).toBe(1);
      capped.cover(path.join(other, 'z'));
      expect(capped.covers).toBe(1);
      expect(errs.length).toBe(1);
    } finally {
      await capped.close();
      await rm(other, { recursive: true });
    }
  });

  it('ignores a folder that is gone, and stops covering after the first other failure, saying so once', async () => {
    w!.cover(path.join(root, 'missing'));
    expect(w!.covers).toBe(0);
    expect(errors).toEqual([]);
    await writeFile(path.join(root, 'file'), 'x');
    w!.cover(path.join(root, 'file')); // not a folder: inotify takes it, so make one that fails
    w!.uncover(path.join(root, 'file'));
    w!.cover(path.join(root, 'file', 'below')); // ENOTDIR
    w!.cover(path.join(root, 'file', 'other'));
    expect(errors.length).toBe(1);
    mkdirSync(path.join(root, 'later'));
    w!.cover(path.join(root, 'later'));
    expect(w!.covers).toBe(0);
  });
});
