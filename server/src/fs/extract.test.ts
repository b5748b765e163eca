import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { entrySegments, openArchive, openStaging, sweepStaging } from './extract.js';
import type { ScopedPath } from './resolve.js';

describe('entrySegments: where an archive entry may go', () => {
  it('takes plain relative names, dropping empty and "." segments', () => {
    expect(entrySegments('a/b/c.txt')).toEqual({ ok: true, segments: ['a', 'b', 'c.txt'] });
    expect(entrySegments('./a//b/')).toEqual({ ok: true, segments: ['a', 'b'] });
    expect(entrySegments('a..b/..c')).toEqual({ ok: true, segments: ['a..b', '..c'] });
    expect(entrySegments('é ü/日本.txt')).toEqual({ ok: true, segments: ['é ü', '日本.txt'] });
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
