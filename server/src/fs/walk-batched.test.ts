import { chmod, mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reservePath } from './reserved.js';
import { resolvePath } from './resolve.js';
import { walk, type WalkSkip } from './walk.js';
import { walkBatched } from './walk-batched.js';
import { closeWorkerPools, readBatch, walkFolder, walkStats, WALK_FIRST, WALK_PART } from './worker-pool.js';

let base: string;
let root: string;
/** More entries than the first part and three more parts (more than are asked for ahead): the parts must line up with the names. */
const BIG = WALK_FIRST + 3 * WALK_PART + 7;

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'coffer-walkb-'));
  root = path.join(base, 'root');
  await mkdir(path.join(root, 'a/b'), { recursive: true });
  await mkdir(path.join(base, 'outside/deep'), { recursive: true });
  await writeFile(path.join(base, 'outside/o.txt'), 'o');
  await writeFile(path.join(base, 'outside/deep/d.txt'), 'd');
  await writeFile(path.join(root, 'a/b/c.txt'), 'ccc');
  await chmod(path.join(root, 'a/b/c.txt'), 0o640);
  await writeFile(path.join(root, 'a/.hidden'), 'h');
  await writeFile(path.join(root, 'z.txt'), 'z');
  await mkdir(path.join(root, 'secret'));
  await writeFile(path.join(root, 'secret/s.txt'), 's');
  await symlink(path.join(base, 'outside'), path.join(root, 'out')); // escaping folder link
  await symlink(path.join(base, 'outside/o.txt'), path.join(root, 'a/o-link.txt')); // escaping file link
  await symlink('../../outside/deep', path.join(root, 'a/rel-out')); // escaping, relative
  await symlink('a', path.join(root, 'alias')); // inside: descended
  await symlink('b/c.txt', path.join(root, 'a/c-link.txt')); // inside file link
  await symlink('..', path.join(root, 'a/up')); // loop
  await symlink('missing', path.join(root, 'broken')); // dangling
  await symlink(path.join(base, 'nowhere'), path.join(root, 'broken-out')); // dangling, pointing out
  await writeFile(path.join(root, '.coffer-tmp-123'), 'staging');
  await writeFile(path.join(root, 'coffer.db'), 'db');
  await reservePath(path.join(root, 'coffer.db'));
  // Links inside the root to Coffer's own files: to the database, into a reserved folder.
  await mkdir(path.join(root, 'cofferdata/sub'), { recursive: true });
  await writeFile(path.join(root, 'cofferdata/sub/upload.bin'), 'u');
  await reservePath(path.join(root, 'cofferdata'));
  await symlink('coffer.db', path.join(root, 'db-link'));
  await symlink('cofferdata/sub', path.join(root, 'data-link'));
  await mkdir(path.join(root, 'big'));
  await Promise.all(
    Array.from({ length: BIG }, (_, i) =>
      writeFile(path.join(root, 'big', `f${String(i).padStart(5, '0')}`), 'x'.repeat(i % 7)),
    ),
  );
  // Denied names inside the big folder, past the first part.
  await writeFile(path.join(root, 'big', 'zz-secret'), 's');
});
afterAll(async () => {
  await closeWorkerPools();
  await rm(base, { recursive: true, force: true });
});

const rules = [
  { regex: false, allow: false, path: '/secret', regexp: null },
  { regex: false, allow: false, path: '/big/zz-secret', regexp: null },
];
const user = { scope: '/', rules, hideDotfiles: true };

async function both(opts: { hidden?: boolean; signal?: AbortSignal } = {}) {
  const dir = await resolvePath(user, '/', { serverRoot: root, globalRules: [] });
  const a: string[] = [];
  const aSkips: WalkSkip[] = [];
  for await (const e of walk(dir, {
    user,
    globalRules: [],
    descendLinks: true,
    onSkip: (s) => aSkips.push(s),
    ...opts,
  })) {
    a.push(
      `${e.virtual} ${e.kind} ${e.real} ${e.kind === 'dangling' ? '' : `${e.stat.mode} ${e.stat.size} ${e.stat.mtime.getTime()} ${e.stat.dev} ${e.stat.ino}`}`,
    );
  }
  const b: string[] = [];
  const bSkips: WalkSkip[] = [];
  for await (const e of walkBatched(dir, { user, globalRules: [], onSkip: (s) => bSkips.push(s), ...opts })) {
    b.push(
      `${e.virtual} ${e.kind} ${e.real} ${e.kind === 'dangling' ? '' : `${e.stat.mode} ${e.stat.size} ${e.stat.mtime.getTime()} ${e.stat.dev} ${e.stat.ino}`}`,
    );
  }
  const skips = (s: WalkSkip[]) => s.map((x) => `${x.reason} ${x.virtual}`).sort();
  return { a, b, aSkips: skips(aSkips), bSkips: skips(bSkips) };
}

describe('walkBatched', () => {
  it('yields what walk yields (descending inside links), in the same order with the same stats', async () => {
    const { a, b, aSkips, bSkips } = await both();
    expect(b).toEqual(a);
    expect(bSkips).toEqual(aSkips);
    const seen = b.map((l) => l.split(' ')[0]);
    expect(seen).toContain('/alias/b/c.txt');
    expect(seen).toContain('/a/c-link.txt');
    expect(seen.filter((v) => v.startsWith('/big/'))).toHaveLength(BIG);
  });

  it('leaves out escaping links (absolute and relative), loops, denied, hidden, staging and reserved names', async () => {
    const { b, bSkips } = await both();
    const seen = b.map((l) => l.split(' ')[0]!);
    for (const v of [
      '/out',
      '/a/o-link.txt',
      '/a/rel-out',
      '/a/up',
      '/secret',
      '/secret/s.txt',
      '/a/.hidden',
      '/.coffer-tmp-123',
      '/coffer.db',
      '/big/zz-secret',
      '/cofferdata',
      '/db-link',
      '/data-link',
      '/data-link/upload.bin',
    ]) {
      expect(seen).not.toContain(v);
    }
    expect(seen.some((v) => v.includes('o.txt') || v.includes('d.txt'))).toBe(false);
    expect(bSkips).toEqual(
      expect.arrayContaining([
        'escaping /out',
        'escaping /a/o-link.txt',
        'escaping /a/rel-out',
        'loop /a/up',
        'denied /secret',
        'denied /a/.hidden',
        'denied /big/zz-secret',
        'reserved /coffer.db',
        'reserved /cofferdata',
        'reserved /db-link',
        'reserved /data-link',
      ]),
    );
    // A dangling link pointing out is left out; one pointing inside is a dangling entry.
    expect(seen).not.toContain('/broken-out');
    expect(seen).toContain('/broken');
  });

  it('keeps dotfiles when hidden is off, and stops at once when aborted', async () => {
    const { a, b } = await both({ hidden: false });
    expect(b).toEqual(a);
    expect(b.map((l) => l.split(' ')[0])).toContain('/a/.hidden');
    const ac = new AbortController();
    ac.abort();
    expect((await both({ signal: ac.signal })).b).toEqual([]);
  });

  it('gives the device and inode that a later read checks: a file swapped for a link out or another file is not read', async () => {
    await mkdir(path.join(root, 'swap'));
    await writeFile(path.join(root, 'swap/a.txt'), 'walked a');
    await writeFile(path.join(root, 'swap/b.txt'), 'walked b');
    await writeFile(path.join(root, 'swap/c.txt'), 'walked c');
    const dir = await resolvePath(user, '/swap', { serverRoot: root, globalRules: [] });
    const found = [];
    for await (const e of walkBatched(dir, { user, globalRules: [] })) found.push(e);
    expect(found.map((e) => e.virtual)).toEqual(['/swap/a.txt', '/swap/b.txt', '/swap/c.txt']);
    // After the walk: a.txt becomes a link to a file outside, b.txt another file; c.txt stays.
    await rm(path.join(root, 'swap/a.txt'));
    await symlink(path.join(base, 'outside/o.txt'), path.join(root, 'swap/a.txt'));
    await writeFile(path.join(root, 'swap/b2.txt'), 'other b');
    await rename(path.join(root, 'swap/b2.txt'), path.join(root, 'swap/b.txt'));
    const r = await readBatch(
      found.map((e) => ({ real: e.real, size: e.stat.size, dev: e.stat.dev, ino: e.stat.ino })),
      null,
    );
    expect(r[0]).toEqual({ changed: true });
    expect(r[1]).toEqual({ changed: true });
    expect(r[2]).toMatchObject({ size: 8 });
    expect((r[2] as { body: Buffer }).body.toString()).toBe('walked c');
  });

  it('does not follow a folder swapped for a link out while the walk is under way', async () => {
    await mkdir(path.join(root, 'swapdir/a'), { recursive: true });
    await mkdir(path.join(root, 'swapdir/b'));
    await writeFile(path.join(root, 'swapdir/b/in.txt'), 'in');
    const dir = await resolvePath(user, '/swapdir', { serverRoot: root, globalRules: [] });
    const seen: string[] = [];
    const skips: WalkSkip[] = [];
    for await (const e of walkBatched(dir, { user, globalRules: [], onSkip: (s) => skips.push(s) })) {
      seen.push(e.virtual);
      // b was lstat'ed as a folder with its parent; before it is read it becomes a link out.
      if (e.virtual === '/swapdir/a') {
        await rename(path.join(root, 'swapdir/b'), path.join(base, 'b-away'));
        await symlink(path.join(base, 'outside'), path.join(root, 'swapdir/b'));
      }
    }
    expect(seen).toEqual(['/swapdir/a', '/swapdir/b']);
    expect(skips.map((s) => `${s.reason} ${s.virtual}`)).toEqual(['error /swapdir/b']);
  });

  it('refuses a folder read that is not the folder walked (another folder, a link on the way)', async () => {
    await mkdir(path.join(root, 'swap2/x'), { recursive: true });
    await mkdir(path.join(root, 'swap2/y'));
    const x = await resolvePath(user, '/swap2/x', { serverRoot: root, globalRules: [] });
    const y = await resolvePath(user, '/swap2/y', { serverRoot: root, globalRules: [] });
    await expect(walkFolder(x.real, x.stat)).resolves.toMatchObject({ names: [] });
    await expect(walkFolder(x.real, y.stat)).rejects.toMatchObject({ code: 'ECHANGED' });
    await expect(walkStats(x.real, ['a'], y.stat)).rejects.toMatchObject({ code: 'ECHANGED' });
    // A path through a link (the walk only asks for real paths): refused even without device and inode.
    await expect(walkFolder(path.join(root, 'alias/b'))).rejects.toMatchObject({ code: 'ECHANGED' });
    // The folder itself a link (O_NOFOLLOW | O_DIRECTORY: ENOTDIR on Linux).
    await expect(walkFolder(path.join(root, 'out'))).rejects.toMatchObject({ code: 'ENOTDIR' });
  });

  it('fails, instead of leaving the folder out, when its worker stops during the walk', async () => {
    const dir = await resolvePath(user, '/big', { serverRoot: root, globalRules: [] });
    const skips: WalkSkip[] = [];
    const seen: string[] = [];
    const run = async () => {
      for await (const e of walkBatched(dir, { user, globalRules: [], onSkip: (s) => skips.push(s) })) {
        seen.push(e.virtual);
        // The first part came with the names; the next ones are with the worker now.
        if (seen.length === 1) await closeWorkerPools();
      }
    };
    await expect(run()).rejects.toThrow(/worker/);
    expect(seen.length).toBeLessThan(BIG);
    expect(skips.filter((s) => s.reason === 'error')).toEqual([]);
  });

  it('reports a folder it cannot read and goes on', async () => {
    const dir = await resolvePath(user, '/a', { serverRoot: root, globalRules: [] });
    await rm(path.join(root, 'a/b'), { recursive: true });
    const skips: WalkSkip[] = [];
    const seen: string[] = [];
    // The folder vanished after it was resolved: its read fails, reported, no throw.
    const gone = { ...dir, real: path.join(root, 'a/b') };
    for await (const e of walkBatched(gone, { user, globalRules: [], onSkip: (s) => skips.push(s) }))
      seen.push(e.virtual);
    expect(seen).toEqual([]);
    expect(skips.map((s) => s.reason)).toEqual(['error']);
    await mkdir(path.join(root, 'a/b'));
    await writeFile(path.join(root, 'a/b/c.txt'), 'ccc');
  });
});
