import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { treeSize } from './tree-size.js';

describe('treeSize', () => {
  let dir: string;
  let outside: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'coffer-size-'));
    outside = await mkdtemp(path.join(tmpdir(), 'coffer-size-out-'));
    await writeFile(path.join(outside, 'big'), Buffer.alloc(100_000));
    await mkdir(path.join(dir, 'a', 'b', 'c'), { recursive: true });
    await writeFile(path.join(dir, 'top'), Buffer.alloc(10));
    await writeFile(path.join(dir, 'a', 'one'), Buffer.alloc(200));
    await writeFile(path.join(dir, 'a', 'b', 'c', 'deep'), Buffer.alloc(3000));
    // 150 files in one folder: more than one batch of stats.
    await mkdir(path.join(dir, 'many'));
    for (let i = 0; i < 150; i++) await writeFile(path.join(dir, 'many', `f${i}`), Buffer.alloc(2));
    // Links are never followed: not to a file or folder outside, not in a loop.
    await symlink(path.join(outside, 'big'), path.join(dir, 'link-file'));
    await symlink(outside, path.join(dir, 'link-dir'));
    await symlink(dir, path.join(dir, 'a', 'loop'));
    // Staging files of writes under way (and a staging folder) are not counted.
    await writeFile(path.join(dir, 'a', '.coffer-tmp-0123456789abcdef'), Buffer.alloc(50_000));
    await mkdir(path.join(dir, '.coffer-tmp-folder'));
    await writeFile(path.join(dir, '.coffer-tmp-folder', 'x'), Buffer.alloc(7));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  it('sums the regular files below a folder, at any depth, without following links', async () => {
    expect(await treeSize(dir)).toEqual({ bytes: 10 + 200 + 3000 + 300, files: 153, folders: 5 });
  });

  it('gives the same sum with one folder read at a time', async () => {
    expect((await treeSize(dir, { concurrency: 1 })).bytes).toBe(3510);
  });

  it('answers a file its own size and a missing path 0', async () => {
    expect((await treeSize(path.join(dir, 'a', 'one'))).bytes).toBe(200);
    expect((await treeSize(path.join(dir, 'nothing-here'))).bytes).toBe(0);
    expect((await treeSize(path.join(dir, 'link-dir'))).bytes).toBe(0);
  });

  it('stops when its signal is aborted', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(treeSize(dir, { signal: ac.signal })).rejects.toThrow();
  });
});
