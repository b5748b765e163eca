/**
 * Delete and copy against a folder or file swapped for a link out after the walk saw it — a race
 * a test cannot win by timing, so the walk is made to swap just before it hands over the entry.
 * Before the fix, delete unlinked the outside file through the swapped folder, and copy read the
 * outside file through the swapped name.
 */
import { existsSync } from 'node:fs';
import { appendFile, link, lstat, mkdir, mkdtemp, readFile, readlink, rename, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { nodeIo } from './atomic.js';
import { checksum, copyTree, moveTree, openRead, readHead, readText, removeTree } from './ops.js';
import { readHead as readHeadOf, readWhole } from './read.js';
import { resolvePath } from './resolve.js';
import { Conflict } from '../http/errors.js';
import type { WalkEntry } from './walk.js';

/** Runs before the walk hands over the entry with this virtual path. */
const swaps = new Map<string, () => Promise<void>>();
vi.mock('./walk.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('./walk.js')>();
  return {
    ...actual,
    walk: async function* (...args: Parameters<typeof actual.walk>): AsyncGenerator<WalkEntry> {
      for await (const e of actual.walk(...args)) {
        await swaps.get(e.virtual)?.();
        yield e;
      }
    },
  };
});

let base: string;
let root: string;
const user = { scope: '/', rules: [], hideDotfiles: false };
const resolve = (p: string) => resolvePath(user, p, { serverRoot: root, globalRules: [] });

beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'coffer-opsrace-'));
  root = path.join(base, 'root');
  await mkdir(path.join(root, 'victim/x'), { recursive: true });
  await writeFile(path.join(root, 'victim/x/a.txt'), 'inside');
  await mkdir(path.join(base, 'outside'));
  await writeFile(path.join(base, 'outside/a.txt'), 'outside, never to be deleted or read');
  swaps.clear();
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('removeTree', () => {
  it('never deletes through a folder swapped for a link out after the walk read it', async () => {
    const target = await resolve('/victim');
    swaps.set('/victim/x/a.txt', async () => {
      await rename(path.join(root, 'victim/x'), path.join(root, 'victim-x-moved'));
      await symlink(path.join(base, 'outside'), path.join(root, 'victim/x'));
    });
    const { kept } = await removeTree(target, { user, globalRules: [] });
    expect(await readFile(path.join(base, 'outside/a.txt'), 'utf8')).toBe('outside, never to be deleted or read');
    expect(kept).toBeGreaterThan(0);
    // The moved folder keeps its file: the delete did not reach it through the link either.
    expect(await readFile(path.join(root, 'victim-x-moved/a.txt'), 'utf8')).toBe('inside');
  });

  it('still deletes a whole tree when nothing moves', async () => {
    await mkdir(path.join(root, 'victim/x/deep/er'), { recursive: true });
    await writeFile(path.join(root, 'victim/x/deep/er/b.txt'), 'b');
    await symlink(path.join(base, 'outside/a.txt'), path.join(root, 'victim/link-out'));
    await symlink('x/a.txt', path.join(root, 'victim/link-in'));
    const { kept } = await removeTree(await resolve('/victim'), { user, globalRules: [] });
    // The link out is left in place (S7); everything else goes, the outside file stays.
    expect(kept).toBe(1);
    expect(existsSync(path.join(root, 'victim/x'))).toBe(false);
    expect(existsSync(path.join(root, 'victim/link-in'))).toBe(false);
    expect(await readFile(path.join(base, 'outside/a.txt'), 'utf8')).toBe('outside, never to be deleted or read');
    // A single file.
    await writeFile(path.join(root, 'one.txt'), '1');
    await removeTree(await resolve('/one.txt'), { user, globalRules: [] });
    expect(existsSync(path.join(root, 'one.txt'))).toBe(false);
  });
});

describe('removeTree of a folder whose own parent is swapped', () => {
  it('answers a conflict and removes nothing through the link', async () => {
    await mkdir(path.join(root, 'p/victim/x'), { recursive: true });
    await writeFile(path.join(root, 'p/victim/x/b.txt'), 'b');
    await mkdir(path.join(base, 'outside/victim/x'), { recursive: true });
    const target = await resolve('/p/victim');
    swaps.set('/p/victim/x', async () => {
      await rename(path.join(root, 'p'), path.join(root, 'p-moved'));
      await symlink(path.join(base, 'outside'), path.join(root, 'p'));
    });
    await expect(removeTree(target, { user, globalRules: [] })).rejects.toBeInstanceOf(Conflict);
    expect(existsSync(path.join(base, 'outside/victim/x'))).toBe(true);
    expect(existsSync(path.join(root, 'p-moved/victim/x'))).toBe(true);
  });

  it('answers a conflict when the folder itself was swapped for a link out', async () => {
    await mkdir(path.join(base, 'outside/x'), { recursive: true });
    const target = await resolve('/victim');
    swaps.set('/victim/x', async () => {
      await rename(path.join(root, 'victim'), path.join(root, 'victim-moved'));
      await symlink(path.join(base, 'outside'), path.join(root, 'victim'));
    });
    await expect(removeTree(target, { user, globalRules: [] })).rejects.toBeInstanceOf(Conflict);
    expect(existsSync(path.join(base, 'outside/x'))).toBe(true);
    expect(existsSync(path.join(root, 'victim-moved/x'))).toBe(true);
  });
});

describe('copyTree', () => {
  it('never copies the file a name leads to after the walk saw another one there', async () => {
    const src = await resolve('/victim');
    await mkdir(path.join(root, 'dest'));
    const dst = await resolvePath(user, '/dest/copy', { serverRoot: root, globalRules: [], forWrite: true });
    swaps.set('/victim/x/a.txt', async () => {
      await rm(path.join(root, 'victim/x/a.txt'));
      await symlink(path.join(base, 'outside/a.txt'), path.join(root, 'victim/x/a.txt'));
    });
    await expect(copyTree(src, dst, { user, globalRules: [], override: false })).rejects.toThrow();
    const copied = path.join(root, 'dest/copy/x/a.txt');
    expect(existsSync(copied) ? await readFile(copied, 'utf8') : '').not.toContain('outside');
  });

  it('copies a tree whose files stay put, links inside included', async () => {
    await symlink('x/a.txt', path.join(root, 'victim/link-in'));
    await mkdir(path.join(root, 'dest'));
    const dst = await resolvePath(user, '/dest/copy', { serverRoot: root, globalRules: [], forWrite: true });
    await copyTree(await resolve('/victim'), dst, { user, globalRules: [], override: false });
    expect(await readFile(path.join(root, 'dest/copy/x/a.txt'), 'utf8')).toBe('inside');
    expect(await readFile(path.join(root, 'dest/copy/link-in'), 'utf8')).toBe('inside');
  });
});

describe('copyTree of a file replaced meanwhile', () => {
  it('fails with 409 (another file is at the name now), and copies nothing of it', async () => {
    await mkdir(path.join(root, 'dest'));
    const dst = await resolvePath(user, '/dest/copy', { serverRoot: root, globalRules: [], forWrite: true });
    swaps.set('/victim/x/a.txt', async () => {
      await writeFile(path.join(root, 'victim/x/new.tmp'), 'replaced');
      await rename(path.join(root, 'victim/x/new.tmp'), path.join(root, 'victim/x/a.txt'));
    });
    await expect(copyTree(await resolve('/victim'), dst, { user, globalRules: [], override: false })).rejects.toMatchObject({ status: 409 });
    expect(existsSync(path.join(root, 'dest/copy'))).toBe(false);
  });
});

describe('copyTree of a file that grows', () => {
  it('copies the whole file, not the size the walk saw', async () => {
    await mkdir(path.join(root, 'dest'));
    const dst = await resolvePath(user, '/dest/copy', { serverRoot: root, globalRules: [], forWrite: true });
    swaps.set('/victim/x/a.txt', async () => {
      await appendFile(path.join(root, 'victim/x/a.txt'), ', and more');
    });
    await copyTree(await resolve('/victim'), dst, { user, globalRules: [], override: false });
    expect(await readFile(path.join(root, 'dest/copy/x/a.txt'), 'utf8')).toBe('inside, and more');
  });
});

describe('reads of a resolved file', () => {
  /** Resolves /victim/x/a.txt, then swaps its folder for a link to the outside folder. */
  const swapped = async () => {
    const p = await resolve('/victim/x/a.txt');
    await rename(path.join(root, 'victim/x'), path.join(root, 'victim-x-moved'));
    await symlink(path.join(base, 'outside'), path.join(root, 'victim/x'));
    return p;
  };
  const drain = async (s: NodeJS.ReadableStream) => {
    const chunks: Buffer[] = [];
    for await (const c of s) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };

  it('never reads the file a name leads to after the resolve', async () => {
    const p = await swapped();
    await expect(checksum(p, 'sha256')).rejects.toMatchObject({ status: 409 });
    await expect(readText(p, 1000)).rejects.toMatchObject({ status: 409 });
    await expect(drain(openRead(p))).rejects.toMatchObject({ status: 409 });
    await expect(readHead(p, 1000)).rejects.toMatchObject({ status: 409 });
    await expect(readHeadOf(p, 1000)).rejects.toMatchObject({ status: 409 });
    await expect(readWhole(p, p.stat!.size)).rejects.toMatchObject({ status: 409 });
  });

  it('reads the file resolved while it stays put', async () => {
    const p = await resolve('/victim/x/a.txt');
    expect(await checksum(p, 'sha256')).toBe('106b086224a4d945eae25f7be3805a931a873270326dd868b0e41f71ee9fff72');
    expect(await readText(p, 1000)).toBe('inside');
    expect(await readText(p, 3)).toBe('ins');
    expect(await drain(openRead(p))).toBe('inside');
    expect(Buffer.from(await readHead(p, 3)).toString()).toBe('ins');
    expect((await readHeadOf(p, 1000)).toString()).toBe('inside');
    expect((await readWhole(p, p.stat!.size)).toString()).toBe('inside');
  });
});

describe('moveTree across filesystems', () => {
  /** A rename of `src` fails as across filesystems (the move copies, then removes). */
  const acrossFor = (srcEntry: string) => ({
    ...nodeIo,
    rename: async (from: string, to: string) => {
      if (from === srcEntry) throw Object.assign(new Error('cross-device link'), { code: 'EXDEV' });
      return nodeIo.rename(from, to);
    },
  });
  const moveAcross = async (from: string, to: string) => {
    const src = await resolve(from);
    const dst = await resolvePath(user, to, { serverRoot: root, globalRules: [], forWrite: true });
    await moveTree(src, dst, { user, globalRules: [], override: false, io: acrossFor(src.entry) });
  };

  it('leaves in the source what appeared or changed there during the copy (before: deleted uncopied)', async () => {
    await mkdir(path.join(root, 'src/a'), { recursive: true });
    await mkdir(path.join(root, 'src/b'));
    await writeFile(path.join(root, 'src/a/one.txt'), 'one');
    await writeFile(path.join(root, 'src/a/kept.txt'), 'old');
    await writeFile(path.join(root, 'src/b/two.txt'), 'two');
    // Once a/ is copied: a new file there, and a copied one written again.
    swaps.set('/src/b', async () => {
      await writeFile(path.join(root, 'src/a/late.txt'), 'late');
      await appendFile(path.join(root, 'src/a/kept.txt'), ' and new');
    });
    await moveAcross('/src', '/dst');
    expect(await readFile(path.join(root, 'dst/a/one.txt'), 'utf8')).toBe('one');
    expect(await readFile(path.join(root, 'dst/b/two.txt'), 'utf8')).toBe('two');
    expect(await readFile(path.join(root, 'src/a/late.txt'), 'utf8')).toBe('late');
    expect(await readFile(path.join(root, 'src/a/kept.txt'), 'utf8')).toBe('old and new');
    expect(existsSync(path.join(root, 'src/a/one.txt'))).toBe(false);
    expect(existsSync(path.join(root, 'src/b'))).toBe(false);
  });

  it('moves the links inside a folder as links, dangling ones too (before: copies of their targets, dangling ones lost)', async () => {
    await mkdir(path.join(root, 'src'));
    await writeFile(path.join(root, 'src/f.txt'), 'f');
    await symlink('../victim', path.join(root, 'src/to-victim'));
    await symlink('nowhere', path.join(root, 'src/dangling'));
    await moveAcross('/src', '/dst');
    expect(await readlink(path.join(root, 'dst/to-victim'))).toBe('../victim');
    expect(await readlink(path.join(root, 'dst/dangling'))).toBe('nowhere');
    expect(await readFile(path.join(root, 'dst/f.txt'), 'utf8')).toBe('f');
    expect(existsSync(path.join(root, 'src'))).toBe(false);
    expect(await readFile(path.join(root, 'victim/x/a.txt'), 'utf8')).toBe('inside');
  });

  it('leaves a copied file written again in place with its size and time set back (before: deleted, its new content lost)', async () => {
    await mkdir(path.join(root, 'src'));
    await writeFile(path.join(root, 'src/a.txt'), 'aaaa');
    await writeFile(path.join(root, 'src/b.txt'), 'b');
    await utimes(path.join(root, 'src/a.txt'), 1_000_000_000, 1_000_000_000);
    // Once a.txt is copied: rewritten in place (the same inode), same size, its time restored.
    swaps.set('/src/b.txt', async () => {
      await writeFile(path.join(root, 'src/a.txt'), 'AAAA');
      await utimes(path.join(root, 'src/a.txt'), 1_000_000_000, 1_000_000_000);
    });
    await moveAcross('/src', '/dst');
    expect(await readFile(path.join(root, 'dst/a.txt'), 'utf8')).toBe('aaaa');
    expect(await readFile(path.join(root, 'src/a.txt'), 'utf8')).toBe('AAAA');
    expect(existsSync(path.join(root, 'src/b.txt'))).toBe(false);
  });

  it('removes both names of a file linked twice in the folder (the first removal changes its change time)', async () => {
    await mkdir(path.join(root, 'src'));
    await writeFile(path.join(root, 'src/a.txt'), 'same');
    await link(path.join(root, 'src/a.txt'), path.join(root, 'src/b.txt'));
    await moveAcross('/src', '/dst');
    expect(await readFile(path.join(root, 'dst/a.txt'), 'utf8')).toBe('same');
    expect(await readFile(path.join(root, 'dst/b.txt'), 'utf8')).toBe('same');
    expect(existsSync(path.join(root, 'src'))).toBe(false);
  });

  it('leaves an empty folder put in place of a copied one (before: removed, never copied)', async () => {
    await mkdir(path.join(root, 'src/d'), { recursive: true });
    await writeFile(path.join(root, 'src/e.txt'), 'e');
    swaps.set('/src/e.txt', async () => {
      await rename(path.join(root, 'src/d'), path.join(root, 'd-away'));
      await mkdir(path.join(root, 'src/d'));
    });
    await moveAcross('/src', '/dst');
    expect((await lstat(path.join(root, 'dst/d'))).isDirectory()).toBe(true);
    expect((await lstat(path.join(root, 'src/d'))).isDirectory()).toBe(true);
    expect(existsSync(path.join(root, 'src/e.txt'))).toBe(false);
  });

  it('moves a single file', async () => {
    await writeFile(path.join(root, 'file.txt'), 'file');
    await moveAcross('/file.txt', '/moved.txt');
    expect(await readFile(path.join(root, 'moved.txt'), 'utf8')).toBe('file');
    expect(existsSync(path.join(root, 'file.txt'))).toBe(false);
  });

  it('moves a link as a link, never as a copy of what it leads to', async () => {
    await symlink('victim', path.join(root, 'lnk'));
    const src = await resolve('/lnk');
    const dst = await resolvePath(user, '/moved', { serverRoot: root, globalRules: [], forWrite: true });
    let first = true;
    const io = {
      ...nodeIo,
      rename: async (from: string, to: string) => {
        if (first && from === src.entry) {
          first = false;
          throw Object.assign(new Error('cross-device link'), { code: 'EXDEV' });
        }
        return nodeIo.rename(from, to);
      },
    };
    await moveTree(src, dst, { user, globalRules: [], override: false, io });
    expect((await lstat(path.join(root, 'moved'))).isSymbolicLink()).toBe(true);
    expect(await readlink(path.join(root, 'moved'))).toBe('victim');
    expect(existsSync(path.join(root, 'lnk'))).toBe(false);
    expect(await readFile(path.join(root, 'victim/x/a.txt'), 'utf8')).toBe('inside');
  });
});
