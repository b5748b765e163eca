/**
 * Where extracted archive entries go (features/extract, docs/api.md §18 E11). Three steps, each
 * easy to check on its own:
 *
 * 1. `entrySegments(name)` — an entry's name as the archive says it → the relative segments it may
 *    take, or the reason it may not: absolute names (`/x`, `C:x`), `..` anywhere, backslashes,
 *    control characters, names over 255 bytes and Coffer's own staging names are refused. Nothing
 *    else decides where an entry goes.
 * 2. `openStaging(dest)` — a private folder `.coffer-tmp-…` (never listed, walked or addressable,
 *    fs/names.ts) made inside the destination folder, so that the final step is a rename on the
 *    same filesystem. Entries are written into it only by segments from step 1, files created
 *    exclusively and never through a link (O_EXCL | O_NOFOLLOW), with Coffer's own modes (S54:
 *    0640/0750; the archive's modes, owners, set-user-ID bits are never applied). Links, hard
 *    links and devices are never created: the reader skips them. `remove()` takes the whole folder
 *    back (a failed or cancelled extraction leaves nothing). A crash leaves it: the job notes the
 *    folder in a ledger in the data dir first, and `sweepStaging` removes the folders of jobs that
 *    are no longer queued or running at the next start.
 * 3. `place(staging, …)` — each staged entry, folders first, is given its destination path, which
 *    the caller resolves through `files.resolve` (scope, rules, links leaving the scope: a refusal
 *    skips the entry with its reason), then moved there by rename under the conflict policy. Files
 *    arrive whole: a file is either not there or complete.
 */
import { randomBytes } from 'node:crypto';
import { constants, type Dirent } from 'node:fs';
import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { noteWritten } from './changes.js';
import { NotFound } from '../http/errors.js';
import { DIR_MODE, FILE_MODE } from './atomic.js';
import { isTempName, TEMP_PREFIX } from './names.js';
import { openForChild } from './read.js';
import type { ScopedPath } from './resolve.js';

export type EntryVerdict = { ok: true; segments: string[] } | { ok: false; reason: string };

const NAME_MAX = 255;
/** Linux's PATH_MAX: a longer name could never be created, and names are held in memory and in the job's result. */
const PATH_MAX = 4096;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Step 1: the relative segments an archive entry named `name` may take. */
export function entrySegments(name: string): EntryVerdict {
  if (Buffer.byteLength(name) > PATH_MAX) return { ok: false, reason: `a name over ${PATH_MAX} bytes` };
  if (CONTROL.test(name)) return { ok: false, reason: 'control characters in the name' };
  if (name.includes('\\')) return { ok: false, reason: 'a backslash in the name' };
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return { ok: false, reason: 'an absolute name' };
  const segments = name.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) return { ok: false, reason: 'a name that climbs out with ..' };
  if (segments.some((s) => Buffer.byteLength(s) > NAME_MAX)) return { ok: false, reason: 'a name over 255 bytes' };
  if (segments.some(isTempName)) return { ok: false, reason: 'a name Coffer reserves' };
  return { ok: true, segments };
}

export interface Staging {
  /**
   * Writes one file from `source`; answers its size. Parent folders are made as needed. With
   * `sync`, the file is on stable storage before it resolves (a file placed as it is).
   */
  writeFile(segments: string[], source: AsyncIterable<Buffer>, mtime?: Date, sync?: boolean): Promise<number>;
  makeDir(segments: string[]): Promise<void>;
  /** Removes the staging folder and all in it. */
  remove(): Promise<void>;
  /** Real path of the staging folder (for place()). */
  readonly real: string;
}

/** Staging folders of jobs are named `<prefix>job-<job id>`; the sweep removes nothing else. */
const STAGING_PREFIX = `${TEMP_PREFIX}job-`;
const JOB_ID = /^[0-9a-f]{32}$/;

/** Where a job notes its staging folder (`<ledger>/<job id>` holds the folder's real path). */
export interface StagingNote {
  ledger: string;
  job: string;
}

/**
 * Step 2: a fresh private staging folder inside `dest` (an existing folder). With `note`, the
 * folder is written down in the ledger before it is made and struck off after it is removed.
 */
export async function openStaging(dest: ScopedPath, note?: StagingNote): Promise<Staging> {
  if (note && !JOB_ID.test(note.job)) throw new Error('bad job id');
  const real = path.join(dest.real, note ? `${STAGING_PREFIX}${note.job}` : `${TEMP_PREFIX}extract-${randomBytes(8).toString('hex')}`);
  const noteFile = note && path.join(note.ledger, note.job);
  if (noteFile) {
    await fsp.mkdir(note.ledger, { recursive: true, mode: 0o700 });
    await fsp.writeFile(noteFile, real, { mode: 0o600 });
  }
  try {
    await fsp.mkdir(real, { mode: 0o700 });
  } catch (err) {
    // Not made here (EEXIST: a folder of that name was there already): the note must not make
    // the sweep remove what this staging never made.
    if (noteFile) await fsp.rm(noteFile, { force: true });
    throw err;
  }
  const inside = (segments: string[]) => path.join(real, ...segments);
  const mkdirs = (segments: string[]) => fsp.mkdir(inside(segments), { recursive: true, mode: DIR_MODE });

  return {
    real,
    async makeDir(segments) {
      await mkdirs(segments);
    },
    async writeFile(segments, source, mtime, sync) {
      await mkdirs(segments.slice(0, -1));
      const fh = await fsp.open(inside(segments), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, FILE_MODE);
      let size = 0;
      try {
        for await (const chunk of source) {
          size += chunk.length;
          await fh.write(chunk);
        }
        if (mtime) await fh.utimes(mtime, mtime);
        if (sync) await fh.sync();
      } finally {
        await fh.close();
      }
      return size;
    },
    async remove() {
      // rm never follows links; the folder holds only what this staging made.
      await fsp.rm(real, { recursive: true, force: true });
      if (noteFile) await fsp.rm(noteFile, { force: true });
    },
  };
}

/**
 * At start: the staging folders noted in `ledger` by jobs that are no longer queued or running
 * (`live(id)` false: a crash, or a removal that failed) are removed with their notes. Only a real
 * folder named like a job's staging, under a parent that is no link, is removed. Answers how many.
 */
export async function sweepStaging(ledger: string, live: (job: string) => Promise<boolean>): Promise<number> {
  let names: string[];
  try {
    names = await fsp.readdir(ledger);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  let swept = 0;
  for (const job of names) {
    if (!JOB_ID.test(job) || (await live(job))) continue;
    const noteFile = path.join(ledger, job);
    const real = await fsp.readFile(noteFile, 'utf8').catch(() => '');
    if (path.isAbsolute(real) && path.basename(real) === `${STAGING_PREFIX}${job}`) {
      const parent = path.dirname(real);
      const st = await fsp.lstat(real).catch(() => undefined);
      if (st?.isDirectory() && (await fsp.realpath(parent).catch(() => '')) === parent) {
        await fsp.rm(real, { recursive: true, force: true });
        swept++;
      }
    }
    await fsp.rm(noteFile, { force: true });
  }
  return swept;
}

export type ConflictPolicy = 'skip' | 'rename' | 'overwrite';

export interface Skipped {
  name: string;
  reason: string;
}

/** Entries reported as left out at most; the rest are only counted (an archive may hold 100,000 links). */
export const SKIPPED_LIST_MAX = 1000;

/** The entries left out of an extraction: the first SKIPPED_LIST_MAX, and how many in all. */
export class SkipList {
  readonly items: Skipped[] = [];
  total = 0;
  push(s: Skipped): void {
    this.total++;
    if (this.items.length < SKIPPED_LIST_MAX) this.items.push(s);
  }
}

export interface PlaceOptions {
  /** Virtual path of the destination folder, ending in "/". */
  destVirtual: string;
  /** `files.resolve(user, virtual, { forWrite: true })` for the user; throws (403…) to refuse. */
  resolve(virtual: string): Promise<ScopedPath>;
  conflict: ConflictPolicy;
  /** `name(N).ext` (resources' keep-both naming). */
  numbered(name: string, n: number): string;
}

/** `base/name` for virtual paths. */
const join = (base: string, name: string) => (base.endsWith('/') ? base + name : `${base}/${name}`);

/** Step 3: moves the staged tree into the destination; the entries left out, and why, go to `skipped`. */
export async function place(staging: Staging, opts: PlaceOptions, skipped: SkipList): Promise<void> {
  try {
    await placeLevel(staging.real, opts.destVirtual, '', opts, skipped);
  } finally {
    const dest = await opts.resolve(opts.destVirtual).catch(() => undefined);
    if (dest) noteWritten(dest.real, true);
  }
}

async function placeLevel(stagedDir: string, destVirtual: string, rel: string, opts: PlaceOptions, skipped: SkipList): Promise<void> {
  const entries: Dirent[] = await fsp.readdir(stagedDir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const e of entries) {
    const name = rel ? `${rel}/${e.name}` : e.name;
    const staged = path.join(stagedDir, e.name);
    let target: ScopedPath;
    try {
      target = await opts.resolve(join(destVirtual, e.name));
    } catch (err) {
      skipped.push({ name, reason: refusal(err) });
      continue;
    }
    if (e.isDirectory()) {
      if (!target.exists) {
        await fsp.mkdir(target.real, { mode: DIR_MODE });
      } else if (!target.stat?.isDirectory()) {
        skipped.push({ name, reason: 'a file of that name is there' });
        continue;
      }
      await placeLevel(staged, join(destVirtual, e.name), name, opts, skipped);
      continue;
    }
    if (!target.exists) {
      await placeNew(staged, target.real).catch(async (err: unknown) => {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        skipped.push({ name, reason: 'the name was taken meanwhile' });
      });
      continue;
    }
    if (target.stat?.isDirectory()) {
      skipped.push({ name, reason: 'a folder of that name is there' });
      continue;
    }
    if (opts.conflict === 'skip') {
      skipped.push({ name, reason: 'exists' });
    } else if (opts.conflict === 'overwrite') {
      // rename() replaces the file in one step (the link itself when the name is a link, never its target).
      await fsp.rename(staged, target.entry);
    } else {
      await placeNumbered(staged, destVirtual, e.name, opts, name, skipped);
    }
  }
}

/** A file to a name nobody holds: link() refuses an existing name (EEXIST), unlike rename(). */
async function placeNew(staged: string, real: string): Promise<void> {
  await fsp.link(staged, real);
  await fsp.unlink(staged);
}

async function placeNumbered(staged: string, destVirtual: string, base: string, opts: PlaceOptions, name: string, skipped: SkipList): Promise<void> {
  for (let n = 1; n <= 1000; n++) {
    let target: ScopedPath;
    try {
      target = await opts.resolve(join(destVirtual, opts.numbered(base, n)));
    } catch (err) {
      skipped.push({ name, reason: refusal(err) });
      return;
    }
    if (target.exists) continue;
    try {
      await placeNew(staged, target.real);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  skipped.push({ name, reason: 'no free name' });
}

function refusal(err: unknown): string {
  const status = (err as { status?: number }).status;
  if (status === 403) return 'not allowed there (a rule, or a link leaving the scope)';
  if (status === 400) return 'not a valid name there';
  throw err;
}

/**
 * The archive file itself, opened for reading (zip readers need random access; tars read
 * `fh.createReadStream()`). It must be the very file the resolver checked — same device and inode,
 * not a link: a name swapped for a link since (or a folder on the way swapped for one) cannot hand
 * over a file outside the scope.
 */
export async function openArchive(source: ScopedPath): Promise<fsp.FileHandle> {
  // The check of read.ts (made for ffmpeg's descriptor); an errno passes as it is.
  return openForChild(source).catch((err: unknown) => {
    throw (err as NodeJS.ErrnoException).code ? err : new NotFound('the archive changed while it was opened');
  });
}
