import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { DestinationMoved, entrySegments, openArchive, openStaging, place, SkipList, sweepStaging, type PlaceOptions } from './extract.js';
import type { ScopedPath } from './resolve.js';

/** A destination folder as the resolver would give it. */
const folderAt = async (real: string, root: string, virtual = '/dest/') => ({ real, entry: real, root, virtual, exists: true, stat: await stat(real) }) as unknown as ScopedPath;
const bytes = (text: string) => Readable.from([Buffer.from(text)]);
const options = (over: Partial<PlaceOptions> = {}): PlaceOptions => ({
  destVirtual: '/dest/',
  denied: () => false,
  anyRule: false,
  conflict: 'skip',
  numbered: (n, i) => `${n}(${i})`,
  ...over,
});

/** Every path below `dir`, folders with a trailing "/", sorted. */
async function listTree(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const rel = path.relative(dir, path.join(e.parentPath, e.name));
    out.push(e.isDirectory() ? `${rel}/` : rel);
  }
  return out.sort();
}

describe('staging and placing work from opened folders, not names', () => {
  it('a destination renamed and swapped for a link mid-job: the bytes stay in the folder opened, nothing is placed, nothing reaches the link', async () => {
    const base = await mkdtemp(path.join(tmpdir(), 'coffer-swap-'));
    try {
      const dest = path.join(base, 'root', 'dest');
      const outside = path.join(base, 'outside');
      await mkdir(dest, { recursive: true });
      await mkdir(outside);
      const staging = await openStaging(await folderAt(dest, path.join(base, 'root')));
      await staging.writeFile(['a', 'one.txt'], bytes('one'));
      // Mid-job: the folder is renamed and a link to outside the area takes its name.
      await rename(dest, `${dest}-moved`);
      await symlink(outside, dest);
      await staging.writeFile(['a', 'b', 'two.txt'], bytes('two'));
      await staging.makeDir(['c']);
      expect(await readdir(outside)).toEqual([]);
      const moved = await listTree(`${dest}-moved`);
      expect(moved.filter((p) => !p.startsWith('.coffer-tmp-extract-')).length).toBe(0);
      expect(moved.some((p) => p.endsWith('/a/b/two.txt'))).toBe(true);
      await expect(place(staging, options(), new SkipList())).rejects.toBeInstanceOf(DestinationMoved);
      await staging.remove();
      expect(await readdir(outside)).toEqual([]);
      expect(await readdir(`${dest}-moved`)).toEqual([]);
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });

  it('writeSmall: a deep entry in the same batch never closes (and so re-numbers) the folder an earlier file of the batch is written through', async () => {
    const base = await mkdtemp(path.join(tmpdir(), 'coffer-evict-'));
    try {
      const dest = path.join(base, 'root', 'dest');
      await mkdir(dest, { recursive: true });
      const staging = await openStaging(await folderAt(dest, path.join(base, 'root')));
      const stored = (segments: string[], text: string) => {
        const body = Buffer.from(text);
        return { segments, method: 0 as const, size: body.length, crc: crc32(body), body };
      };
      // 300 folders deep: more than the staging keeps open, so opening them evicts `x`.
      const deep = Array.from({ length: 300 }, (_, i) => `d${i}`);
      await staging.writeSmall([stored(['x', 'a.txt'], 'first'), stored([...deep, 'b.txt'], 'second')]);
      expect(await readFile(path.join(staging.real, 'x', 'a.txt'), 'utf8')).toBe('first');
      expect(await readFile(path.join(staging.real, ...deep, 'b.txt'), 'utf8')).toBe('second');
      expect((await listTree(staging.real)).filter((p) => !p.endsWith('/'))).toHaveLength(2);
      await staging.remove();
      expect(await readdir(dest)).toEqual([]);
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });

  it('a destination swapped for a link before the job starts is refused', async () => {
    const base = await mkdtemp(path.join(tmpdir(), 'coffer-swap-'));
    try {
      const dest = path.join(base, 'dest');
      await mkdir(dest);
      const resolved = await folderAt(dest, base);
      await rename(dest, `${dest}-moved`);
      await mkdir(path.join(base, 'other'));
      await symlink(path.join(base, 'other'), dest);
      await expect(openStaging(resolved)).rejects.toBeInstanceOf(DestinationMoved);
      // Another folder of the same name (another inode) is not the folder resolved either.
      await rm(dest);
      await mkdir(dest);
      await expect(openStaging(resolved)).rejects.toBeInstanceOf(DestinationMoved);
      expect(await readdir(path.join(base, 'other'))).toEqual([]);
      expect(await readdir(dest)).toEqual([]);
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });

  it('places a new folder whole, leaves out what the rules deny inside it, never follows a link at the destination', async () => {
    const base = await mkdtemp(path.join(tmpdir(), 'coffer-place-'));
    try {
      const dest = path.join(base, 'dest');
      const outside = path.join(base, 'outside');
      await mkdir(path.join(dest, 'merge'), { recursive: true });
      await mkdir(outside);
      await writeFile(path.join(dest, 'merge', 'old.txt'), 'old');
      await symlink(outside, path.join(dest, 'link'));
      await symlink(path.join(outside, 'f.txt'), path.join(dest, 'f.txt'));
      const staging = await openStaging(await folderAt(dest, base));
      for (const p of [['new', 'a.txt'], ['new', 'deep', 'secret.key'], ['new', 'deep', 'b.txt'], ['merge', 'old.txt'], ['merge', 'c.txt'], ['link', 'x.txt'], ['f.txt']]) {
        await staging.writeFile(p, bytes(p.join('/')));
      }
      const skipped = new SkipList();
      await place(staging, options({ denied: (v) => v.endsWith('.key'), anyRule: true, conflict: 'overwrite' }), skipped);
      await staging.remove();
      expect(skipped.items).toEqual([
        { name: 'link', reason: 'a link of that name is there' },
        { name: 'new/deep/secret.key', reason: 'not allowed there (a rule, or a link leaving the scope)' },
      ]);
      // The link itself was replaced (overwrite), its target outside untouched.
      expect(await readdir(outside)).toEqual([]);
      expect(await listTree(dest)).toEqual(['f.txt', 'link', 'merge/', 'merge/c.txt', 'merge/old.txt', 'new/', 'new/a.txt', 'new/deep/', 'new/deep/b.txt']);
      expect(await readFile(path.join(dest, 'merge', 'old.txt'), 'utf8')).toBe('merge/old.txt');
      expect(await readFile(path.join(dest, 'f.txt'), 'utf8')).toBe('f.txt');
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });
});

describe('entrySegments: where an archive entry may go', () => {
  it('takes plain relative names, dropping empty and "." segments', () => {
    expect(entrySegments('a/b/c.txt')).toEqual({ ok: true, segments: ['a', 'b', 'c.txt'] });
    expect(entrySegments('./a//b/')).toEqual({ ok: true, segments: ['a', 'b'] });
    expect(entrySegments('a..b/..c')).toEqual({ ok: true, segments: ['a..b', '..c'] });
    expect(entrySegments('é ü/日本.txt')).toEqual({ ok: true, segments: ['é ü', '日本.txt'] });
    expect(entrySegments(`${'a/'.repeat(127)}x`)).toEqual({ ok: true, segments: [...Array(127).fill('a'), 'x'] });
  });

  it.each([
    ['../x', /climbs out/],
    ['a/../../x', /climbs out/],
    ['a/..', /climbs out/],
    ['/etc/passwd', /absolute/],
    ['C:/x', /absolute/],
    ['c:x', /absolute/],
    ['..\\x', /backslash/],
    ['a\\b', /backslash/],
    ['a\u0000b', /control/],
    ['a\nb', /control/],
    ['.coffer-tmp-x', /reserves/],
    ['a/.coffer-tmp-1/b', /reserves/],
    [`${'x'.repeat(256)}`, /255/],
    [`${'a/'.repeat(2048)}x`, /over 4096 bytes/],
    // Placing merges into existing folders holding two descriptors per level: 1,500 levels ran a
    // process with the usual 1,024 descriptors out of them (EMFILE for every request meanwhile).
    [`${'a/'.repeat(128)}x`, /more than 128 levels deep/],
  ])('refuses %j', (name, reason) => {
    const v = entrySegments(name);
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.reason).toMatch(reason);
  });
});

describe('openStaging and sweepStaging: a job notes only the folder it made', () => {
  it('leaves no note when the staging folder cannot be made, so the sweep never removes a folder it did not make', async () => {
    const base = await mkdtemp(path.join(tmpdir(), 'coffer-staging-'));
    try {
      const ledger = path.join(base, 'ledger');
      const dest = { real: path.join(base, 'dest') } as ScopedPath;
      const job = 'a'.repeat(32);
      // A folder of that name was there already (made behind Coffer's back, e.g. by a command).
      const theirs = path.join(dest.real, `.coffer-tmp-job-${job}`);
      await mkdir(theirs, { recursive: true });
      await writeFile(path.join(theirs, 'keep.txt'), 'mine');
      await expect(openStaging(dest, { ledger, job })).rejects.toThrow(/EEXIST/);
      expect(await sweepStaging(ledger, () => Promise.resolve(false))).toBe(0);
      expect(await readFile(path.join(theirs, 'keep.txt'), 'utf8')).toBe('mine');
      // A staging folder the job did make is noted, and swept once the job is dead.
      const made = await openStaging(dest, { ledger, job: 'b'.repeat(32) });
      expect(await readdir(ledger)).toEqual(['b'.repeat(32)]);
      expect(await sweepStaging(ledger, () => Promise.resolve(false))).toBe(1);
      await expect(stat(made.real)).rejects.toThrow(/ENOENT/);
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });
});

describe('openArchive: the very file the resolver checked', () => {
  it('refuses a name that is now a link, or another file than the one resolved (a folder swapped on the way)', async () => {
    const base = await mkdtemp(path.join(tmpdir(), 'coffer-open-'));
    try {
      const archive = path.join(base, 'a.tar');
      const other = path.join(base, 'other.tar');
      await writeFile(archive, 'mine');
      await writeFile(other, 'not mine');
      const resolved = { real: archive, stat: await stat(archive) } as ScopedPath;
      const fh = await openArchive(resolved);
      await fh.close();
      // The name now leads to another file (e.g. its folder was swapped for a link since).
      await expect(openArchive({ ...resolved, real: other } as ScopedPath)).rejects.toThrow(/changed/);
      await symlink(other, path.join(base, 'link.tar'));
      await expect(openArchive({ ...resolved, real: path.join(base, 'link.tar') } as ScopedPath)).rejects.toThrow();
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });
});
