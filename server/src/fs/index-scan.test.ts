import { lstatSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanFolder } from './index-scan.js';
import { closeWorkerPools, lstatNames } from './worker-pool.js';

let dir = '';
let root = '';
let outside = '';
beforeAll(async () => {
  dir = await realpath(await mkdtemp(path.join(tmpdir(), 'coffer-index-scan-')));
  root = path.join(dir, 'root');
  outside = path.join(dir, 'outside');
  mkdirSync(path.join(root, 'sub'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'secret.txt'), 'x'.repeat(5000));
  writeFileSync(path.join(root, 'a.txt'), 'hello');
  writeFileSync(path.join(root, 'odd name\nwith newline'), 'ab');
  // Links out of the root, to a file and to a folder, a dangling link and a loop.
  symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'to-file'));
  symlinkSync(outside, path.join(root, 'to-folder'));
  symlinkSync('/nonexistent/target', path.join(root, 'dangling'));
  symlinkSync('loop', path.join(root, 'loop'));
  symlinkSync('../../..', path.join(root, 'up'));
  // Staging names are left out like the search walk leaves them out.
  writeFileSync(path.join(root, '.coffer-tmp-1234'), 'partial');
});
afterAll(async () => {
  await closeWorkerPools();
  await rm(dir, { recursive: true, force: true });
});

describe('scanFolder (the file index build)', () => {
  it('reports links as links with their own lstat and never follows them', async () => {
    const entries = await scanFolder(root);
    expect(entries).not.toBeNull();
    const byName = new Map(entries!.map((e) => [e.name, e]));
    for (const name of ['to-file', 'to-folder', 'dangling', 'loop', 'up']) {
      const own = lstatSync(path.join(root, name));
      expect(byName.get(name), name).toEqual({ name, isDir: false, isLink: true, size: own.size, mtime: Math.floor(own.mtimeMs), inode: own.ino });
    }
    // The target's size (5000) is nowhere: nothing outside the root was read.
    expect(byName.get('to-file')!.size).toBe(path.join(outside, 'secret.txt').length);
    expect(byName.get('sub')).toMatchObject({ isDir: true, isLink: false });
    expect(byName.get('a.txt')).toMatchObject({ isDir: false, isLink: false, size: 5 });
    expect(byName.get('odd name\nwith newline')).toMatchObject({ size: 2 });
  });

  it('gives each entry the fields one lstat gives, and leaves staging files out', async () => {
    const entries = (await scanFolder(root))!;
    expect(entries.map((e) => e.name).sort()).toEqual(['a.txt', 'dangling', 'loop', 'odd name\nwith newline', 'sub', 'to-file', 'to-folder', 'up']);
    for (const e of entries) {
      const st = lstatSync(path.join(root, e.name));
      expect(e.inode).toBe(st.ino);
      expect(e.mtime).toBe(Math.floor(st.mtimeMs));
      expect(e.size).toBe(st.size);
    }
  });

  it('is null for what is no readable folder', async () => {
    expect(await scanFolder(path.join(root, 'missing'))).toBeNull();
    expect(await scanFolder(path.join(root, 'a.txt'))).toBeNull();
    expect(await scanFolder(path.join(root, 'sub'))).toEqual([]);
  });
});

describe('lstatNames', () => {
  it('marks names that are gone (or that no readdir could give) as not found, and lstats the rest', async () => {
    const st = await lstatNames(root, ['a.txt', 'vanished', '../outside/secret.txt', '', 'to-folder']);
    expect([...st.ok]).toEqual([1, 0, 1, 1, 1]);
    // A name holding a slash is not one readdir gives; lstat resolves it like any path (the
    // index only passes readdir names). '' is the folder itself.
    expect(st.size[0]).toBe(5);
    expect(st.mode[4]! & 0o170000).toBe(0o120000); // a link, not the folder it points to
  });

  it('keeps every answer of a big folder in its place', async () => {
    const big = path.join(dir, 'big');
    mkdirSync(big);
    const names: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const n = `f${i}`;
      names.push(n);
      writeFileSync(path.join(big, n), Buffer.alloc(i % 97));
    }
    names.splice(1500, 0, 'not-there');
    const st = await lstatNames(big, names);
    expect(st.ok.length).toBe(names.length);
    for (let i = 0; i < names.length; i++) {
      if (names[i] === 'not-there') {
        expect(st.ok[i]).toBe(0);
        continue;
      }
      const own = lstatSync(path.join(big, names[i]!));
      expect([st.ok[i], st.size[i], st.ino[i], st.mtime[i]]).toEqual([1, own.size, own.ino, Math.floor(own.mtimeMs)]);
    }
  }, 60_000);
});
