/**
 * Trashing a folder around what must stay (S7) against a folder on the way swapped for a link out
 * between the listing of its parent and its own listing — a race a test cannot win by timing, so
 * the listing is made to swap right after it read the parent. Before the fix the files of the
 * outside folder were moved into the trash (gone from outside, restorable into the scope).
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Rule } from '@coffer/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resolvePath } from './resolve.js';
import { Conflict } from '../http/errors.js';
import { openTrashArea } from './trash-area.js';

/** Runs once after a listing that holds the name `t`. */
let afterListing: (() => Promise<void>) | null = null;
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const readdir = (async (...args: Parameters<typeof actual.readdir>) => {
    const r = await (actual.readdir as (...a: unknown[]) => Promise<unknown[]>)(...args);
    const names = r.map((d) => (typeof d === 'string' ? d : (d as { name: string }).name));
    // The trash's own listing (Dirents), not the rules walk's (names).
    const dirents = r.length > 0 && typeof r[0] !== 'string';
    if (afterListing && dirents && names.includes('t') && names.includes('keep.txt')) {
      const run = afterListing;
      afterListing = null;
      await run();
    }
    return r;
  }) as typeof actual.readdir;
  return { ...actual, readdir, default: { ...actual, readdir } };
});

let base: string;
let root: string;
const deny = (p: string): Rule => ({ regex: false, allow: false, path: p, regexp: null });
const user = { scope: '/', rules: [deny('/d/t/secret')], hideDotfiles: false };

beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'coffer-trashrace-'));
  root = path.join(base, 'root');
  await mkdir(path.join(root, 'd/t'), { recursive: true });
  await writeFile(path.join(root, 'd/keep.txt'), 'k');
  await writeFile(path.join(root, 'd/t/secret'), 's');
  await writeFile(path.join(root, 'd/t/a.txt'), 'inside');
  await mkdir(path.join(base, 'outside'));
  await writeFile(path.join(base, 'outside/a.txt'), 'outside, never to be moved');
  afterListing = null;
});
afterEach(async () => {
  afterListing = null;
  await rm(base, { recursive: true, force: true });
});

describe('trash moveIn around what stays', () => {
  it('never moves what a folder swapped for a link out holds', async () => {
    const area = await openTrashArea(path.join(base, 'data'));
    const source = await resolvePath(user, '/d', { serverRoot: root, globalRules: [] });
    afterListing = async () => {
      await rename(path.join(root, 'd/t'), path.join(root, 't-moved'));
      await symlink(path.join(base, 'outside'), path.join(root, 'd/t'));
    };
    const id = 'a'.repeat(32);
    await area.moveIn(id, source, { user, globalRules: [] }).catch(() => undefined);
    expect(await readFile(path.join(base, 'outside/a.txt'), 'utf8')).toBe('outside, never to be moved');
    // The folder moved away keeps its file too: nothing was reached through the link.
    expect(await readFile(path.join(root, 't-moved/a.txt'), 'utf8')).toBe('inside');
  });

  it('never moves an item whose parent was swapped for a link out after the resolve', async () => {
    const area = await openTrashArea(path.join(base, 'data'));
    const source = await resolvePath({ ...user, rules: [] }, '/d/t/a.txt', { serverRoot: root, globalRules: [] });
    await rename(path.join(root, 'd/t'), path.join(root, 't-moved'));
    await symlink(path.join(base, 'outside'), path.join(root, 'd/t'));
    const id = 'c'.repeat(32);
    await expect(area.moveIn(id, source, { user: { ...user, rules: [] }, globalRules: [] })).rejects.toBeInstanceOf(Conflict);
    expect(await readFile(path.join(base, 'outside/a.txt'), 'utf8')).toBe('outside, never to be moved');
    expect(await readFile(path.join(root, 't-moved/a.txt'), 'utf8')).toBe('inside');
  });

  it('moves everything but what stays when nothing moves', async () => {
    const area = await openTrashArea(path.join(base, 'data'));
    const source = await resolvePath(user, '/d', { serverRoot: root, globalRules: [] });
    const id = 'b'.repeat(32);
    const { kept } = await area.moveIn(id, source, { user, globalRules: [] });
    expect(kept).toBe(1);
    expect(await readFile(path.join(root, 'd/t/secret'), 'utf8')).toBe('s');
    expect(await readFile(path.join(area.dir, id, 't/a.txt'), 'utf8')).toBe('inside');
    expect(await readFile(path.join(area.dir, id, 'keep.txt'), 'utf8')).toBe('k');
    expect(existsSync(path.join(root, 'd/keep.txt'))).toBe(false);
    // A file alone goes by one rename, through its parent.
    await writeFile(path.join(root, 'd/t/one.txt'), '1');
    const one = await resolvePath(user, '/d/t/one.txt', { serverRoot: root, globalRules: [] });
    expect(await area.moveIn('d'.repeat(32), one, { user, globalRules: [] })).toEqual({ kept: 0 });
    expect(await readFile(path.join(area.dir, 'd'.repeat(32)), 'utf8')).toBe('1');
    expect(existsSync(path.join(root, 'd/t/one.txt'))).toBe(false);
  });

  it('never restores into a folder swapped for a link out after the resolve', async () => {
    const area = await openTrashArea(path.join(base, 'data'));
    const plain = { ...user, rules: [] };
    const id = 'e'.repeat(32);
    await area.moveIn(id, await resolvePath(plain, '/d/keep.txt', { serverRoot: root, globalRules: [] }), { user: plain, globalRules: [] });
    const target = await resolvePath(plain, '/d/t/back.txt', { serverRoot: root, globalRules: [], forWrite: true });
    await rename(path.join(root, 'd/t'), path.join(root, 't-moved'));
    await symlink(path.join(base, 'outside'), path.join(root, 'd/t'));
    await expect(area.moveOut(id, target)).rejects.toBeInstanceOf(Conflict);
    expect(existsSync(path.join(base, 'outside/back.txt'))).toBe(false);
    expect(await area.exists(id)).toBe(true);
    // Where nothing moved, it goes back.
    const again = await resolvePath(plain, '/t-moved/back.txt', { serverRoot: root, globalRules: [], forWrite: true });
    await area.moveOut(id, again);
    expect(await readFile(path.join(root, 't-moved/back.txt'), 'utf8')).toBe('k');
    expect(await area.exists(id)).toBe(false);
  });
});
