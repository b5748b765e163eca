/**
 * Where extracted archive entries go (features/extract, docs/api.md §18 E11). Three steps, each
 * easy to check on its own:
 *
 * 1. `entrySegments(name)` — an entry's name as the archive says it → the relative segments it may
 *    take, or the reason it may not: absolute names (`/x`, `C:x`), `..` anywhere, backslashes,
 *    control characters, names over 255 bytes or more than 128 levels deep and Coffer's own staging
 *    names are refused. Nothing else decides where an entry goes.
 * 2. `openStaging(dest)` — a private folder `.coffer-tmp-…` (never listed, walked or addressable,
 *    fs/names.ts) made inside the destination folder, so that the final step is a rename on the
 *    same filesystem. Everything after the start works from opened descriptors, never by name
 *    (openat-style, through `/proc/self/fd/<fd>/<name>`): the destination folder is opened once
 *    (checked to be the folder resolved: same real path, device and inode, not a link), the
 *    staging folder is made and opened through it, and every folder inside is made and opened
 *    through its parent's descriptor (O_NOFOLLOW | O_DIRECTORY). A destination renamed and a link
 *    put in its place mid-job therefore changes nothing about where the bytes go. Files are created
 *    exclusively and never through a link (O_EXCL | O_NOFOLLOW), with Coffer's own modes (S54:
 *    0640/0750; the archive's modes, owners, set-user-ID bits are never applied). Links, hard
 *    links and devices are never created: the reader skips them. `remove()` takes the whole folder
 *    back (a failed or cancelled extraction leaves nothing). A crash leaves it: the job notes the
 *    folder in a ledger in the data dir first, and `sweepStaging` removes the folders of jobs that
 *    are no longer queued or running at the next start.
 * 3. `place(staging, …)` — first checks that the destination folder is still where it was resolved
 *    (the job fails otherwise), then moves the staged entries in, level by level through opened
 *    folders: each name is checked against the user's rules (in memory) and Coffer's reserved
 *    paths (a refusal skips the entry with its reason); a staged folder whose name is free moves
 *    with ONE rename (its inside checked against the rules first: a folder the job just made holds
 *    no link and nobody else's names); an existing folder is merged into (a link of that name is
 *    never followed); files follow the conflict policy. Files arrive whole: either not there or
 *    complete.
 */
import { randomBytes } from 'node:crypto';
import { constants, type Dirent } from 'node:fs';
import * as fsp from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Readable } from 'node:stream';
import type { Rule } from '@coffer/protocol';
import { noteWritten } from './changes.js';
import { Conflict, NotFound } from '../http/errors.js';
import { DIR_MODE, FILE_MODE } from './atomic.js';
import { openDirExactly, openDirIn, viaFd, whereIs } from './dirfd.js';
import { isTempName, TEMP_PREFIX } from './names.js';
import { openForChild } from './read.js';
import { writeBatch, type WriteFile, type WriteOutcome } from './worker-pool.js';
import { hasReservedBelow, isReserved } from './reserved.js';
import { hasRules, isDenied, type RuleSubject } from './rules.js';
import { isInside, type ScopedPath } from './resolve.js';

export type EntryVerdict = { ok: true; segments: string[] } | { ok: false; reason: string };

const NAME_MAX = 255;
/** Linux's PATH_MAX: a longer name could never be created, and names are held in memory and in the job's result. */
const PATH_MAX = 4096;
/**
 * Levels (folders and the entry itself) a name may have. Placing an entry into folders that exist
 * holds two descriptors per level (the staged and the destination folder); thousands of levels
 * would run the whole process out of descriptors (EMFILE under the usual limit of 1,024).
 */
const DEPTH_MAX = 128;
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
  if (segments.length > DEPTH_MAX) return { ok: false, reason: `a name more than ${DEPTH_MAX} levels deep` };
  if (segments.some(isTempName)) return { ok: false, reason: 'a name Coffer reserves' };
  return { ok: true, segments };
}

export interface Staging {
  /**
   * Writes one file from `source`; answers its size. Parent folders are made as needed. With
   * `sync`, the file is on stable storage before it resolves (a file placed as it is).
   */
  writeFile(segments: string[], source: AsyncIterable<Buffer>, mtime?: Date, sync?: boolean): Promise<number>;
  /**
   * Writes small files (unpacked there) in one worker round trip: see SmallFile. Resolves when all
   * are written; rejects at the first that fails (a damaged body: an Error; a full disk: its errno).
   * At most two batches run at once (the caller awaits before sending a third).
   */
  writeSmall(files: SmallFile[]): Promise<void>;
  makeDir(segments: string[]): Promise<void>;
  /** Removes the staging folder and all in it (whatever place() has not moved out), and closes its descriptors. */
  remove(): Promise<void>;
  /** Real path of the staging folder when it was made (the ledger's note). */
  readonly real: string;
  /** The staging folder, opened. */
  readonly root: FileHandle;
  /** The destination folder, opened at the start, and the real path and virtual path it had then. */
  readonly dest: { dir: FileHandle; real: string; root: string };
}

/** A small file of a zip for `writeSmall`: its body as stored in the archive and what its directory says. */
export interface SmallFile {
  segments: string[];
  method: 0 | 8;
  size: number;
  crc: number;
  mtime?: Date;
  body: Buffer;
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
 * Folders of the staging tree kept open at most (an archive may hold 100,000 folders). A batch of
 * writeSmall uses the descriptors of up to SMALL_BATCH_MAX folders while a worker writes, and two
 * batches may be in flight: those must never be closed (and their numbers reused) under them, so
 * they are pinned (StagedDirs.pin) — one deep entry opens a folder per level and would otherwise
 * evict them.
 */
const OPEN_DIRS_MAX = 256;
/** How long remove() waits for a file still being streamed before it removes the folder anyway. */
const STREAM_WAIT_MS = 10_000;
/** Files in one writeSmall batch at most. */
export const SMALL_BATCH_MAX = 64;

/**
 * The folders of a staging tree by their segments, made and opened each through its parent's
 * descriptor. The most recently used OPEN_DIRS_MAX stay open; an evicted one is opened again the
 * same way when next needed.
 */
class StagedDirs {
  private readonly open = new Map<string, FileHandle>();
  /**
   * Folders a path in use is built on (`viaFd`): a worker's batch, a file being opened. They are
   * never evicted: closed, their number would be reused by the next folder opened — in this
   * staging tree or anywhere in the process — and the path would lead there.
   */
  private readonly pinned = new Map<FileHandle, number>();
  constructor(private readonly root: FileHandle) {}

  pin(fh: FileHandle): void {
    this.pinned.set(fh, (this.pinned.get(fh) ?? 0) + 1);
  }

  unpin(fh: FileHandle): void {
    const n = (this.pinned.get(fh) ?? 1) - 1;
    if (n > 0) this.pinned.set(fh, n);
    else this.pinned.delete(fh);
  }

  async get(segments: string[]): Promise<FileHandle> {
    if (segments.length === 0) return this.root;
    const key = segments.join('/');
    const known = this.open.get(key);
    if (known) {
      // Most recently used last.
      this.open.delete(key);
      this.open.set(key, known);
      return known;
    }
    const parent = await this.get(segments.slice(0, -1));
    const name = segments[segments.length - 1]!;
    this.pin(parent);
    const dir = await openDirIn(parent, name)
      .catch(async (err: unknown) => {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        await fsp.mkdir(viaFd(parent, name), { mode: DIR_MODE }).catch((e: unknown) => {
          if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        });
        return openDirIn(parent, name);
      })
      .finally(() => this.unpin(parent));
    this.open.set(key, dir);
    if (this.open.size > OPEN_DIRS_MAX) {
      // The least recently used that nothing is built on (the tree may hold more while all are pinned).
      for (const [k, fh] of this.open) {
        if (fh === dir || this.pinned.has(fh)) continue;
        this.open.delete(k);
        await fh.close();
        break;
      }
    }
    return dir;
  }

  async close(): Promise<void> {
    const all = [...this.open.values()];
    this.open.clear();
    await Promise.all(all.map((fh) => fh.close()));
  }
}

/**
 * Step 2: a fresh private staging folder inside `dest` (an existing folder). With `note`, the
 * folder is written down in the ledger before it is made and struck off after it is removed.
 */
export async function openStaging(dest: ScopedPath, note?: StagingNote): Promise<Staging> {
  if (note && !JOB_ID.test(note.job)) throw new Error('bad job id');
  const name = note ? `${STAGING_PREFIX}${note.job}` : `${TEMP_PREFIX}extract-${randomBytes(8).toString('hex')}`;
  const real = path.join(dest.real, name);
  const noteFile = note && path.join(note.ledger, note.job);
  // The folder resolved, not what its name leads to now.
  const destDir = await openDirExactly(dest.real, dest.stat).catch((err: unknown) => {
    // An errno other than a link or a vanished folder (EACCES, EMFILE…) passes as it is.
    const code = (err as NodeJS.ErrnoException).code;
    if (code && !['ELOOP', 'ENOTDIR', 'ENOENT'].includes(code)) throw err;
    throw new DestinationMoved('the destination folder was moved or replaced before the job could start');
  });
  let root: FileHandle;
  try {
    if (noteFile) {
      await fsp.mkdir(note.ledger, { recursive: true, mode: 0o700 });
      await fsp.writeFile(noteFile, real, { mode: 0o600 });
    }
    try {
      await fsp.mkdir(viaFd(destDir, name), { mode: 0o700 });
    } catch (err) {
      // Not made here (EEXIST: a folder of that name was there already): the note must not make
      // the sweep remove what this staging never made.
      if (noteFile) await fsp.rm(noteFile, { force: true });
      throw err;
    }
    root = await openDirIn(destDir, name);
  } catch (err) {
    await destDir.close();
    throw err;
  }
  const dirs = new StagedDirs(root);
  let removed = false;
  /** writeSmall batches in a worker now: remove() waits for them (their paths use our descriptors). */
  const inFlight = new Set<Promise<unknown>>();
  const streaming = new Set<Promise<unknown>>();

  return {
    real,
    root,
    dest: { dir: destDir, real: dest.real, root: dest.root },
    async makeDir(segments) {
      await dirs.get(segments);
    },
    writeFile(segments, source, mtime, sync) {
      const writing = (async () => {
        const parent = await dirs.get(segments.slice(0, -1));
        dirs.pin(parent);
        const fh = await fsp
          .open(viaFd(parent, segments[segments.length - 1]!), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, FILE_MODE)
          .finally(() => dirs.unpin(parent));
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
      })();
      streaming.add(writing);
      return writing.finally(() => streaming.delete(writing));
    },
    async writeSmall(items) {
      if (items.length > SMALL_BATCH_MAX || inFlight.size >= 2) throw new Error('writeSmall: batch too large or too many in flight');
      const files: WriteFile[] = [];
      // The folders the batch's paths go through stay open (and keep their numbers) until it ends.
      const parents: FileHandle[] = [];
      const release = () => parents.splice(0).forEach((fh) => dirs.unpin(fh));
      let writing: Promise<WriteOutcome>;
      try {
        for (const it of items) {
          const parent = await dirs.get(it.segments.slice(0, -1));
          dirs.pin(parent);
          parents.push(parent);
          const mtime = it.mtime && !Number.isNaN(it.mtime.getTime()) ? it.mtime.getTime() / 1000 : null;
          files.push({ path: viaFd(parent, it.segments[it.segments.length - 1]!), method: it.method, size: it.size, crc: it.crc, mtime, length: it.body.length });
        }
        writing = writeBatch(files, Buffer.concat(items.map((it) => it.body)), FILE_MODE);
      } catch (err) {
        release();
        throw err;
      }
      inFlight.add(writing);
      const outcome = await writing.finally(() => {
        inFlight.delete(writing);
        release();
      });
      if (!('kind' in outcome)) return;
      if (outcome.kind === 'errno') throw Object.assign(new Error(outcome.message), { code: outcome.code });
      throw new Error(`archive entry ${items[outcome.failed]!.segments.join('/')}: ${outcome.kind === 'crc' ? 'CRC-32 does not match' : outcome.kind === 'size' ? 'size does not match' : 'damaged data'}`);
    },
    async remove() {
      if (removed) return;
      removed = true;
      // Worker batches always end; a streamed file whose source stalls might not: its descriptors
      // are then closed only once it ends (a closed folder's number, reused, must never be
      // written through).
      await Promise.allSettled([...inFlight]);
      const streams = Promise.allSettled([...streaming]);
      const settled = await Promise.race([streams.then(() => true), delay(STREAM_WAIT_MS, false, { ref: false })]);
      const closeAll = async () => {
        await dirs.close();
        await root.close();
        await destDir.close();
      };
      try {
        // Through the destination's descriptor, wherever it is now; rm never follows links, and
        // the folder holds only what this staging made.
        await fsp.rm(viaFd(destDir, name), { recursive: true, force: true });
      } finally {
        if (settled) await closeAll();
        else void streams.then(closeAll);
      }
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
  /** The user's rules/hidden check of a virtual path (fs/rules.ts isDenied, as the resolver applies it). */
  denied(virtual: string): boolean;
  /** Whether any rule or hidden-file setting could deny a name at all (else nothing inside a moved folder is checked). */
  anyRule: boolean;
  conflict: ConflictPolicy;
  /** `name(N).ext` (resources' keep-both naming). */
  numbered(name: string, n: number): string;
}

/** The rules part of PlaceOptions for a user, with the global rules read once (at placement). */
export function placeRules(user: RuleSubject, globalRules: readonly Rule[]): Pick<PlaceOptions, 'denied' | 'anyRule'> {
  return {
    // As the resolver checks a path to write: the rules, and hidden files for a user who hides them.
    denied: (virtual) => isDenied(user, virtual, globalRules),
    anyRule: hasRules(user, globalRules) || user.hideDotfiles,
  };
}

/** `base/name` for virtual paths. */
const join = (base: string, name: string) => (base.endsWith('/') ? base + name : `${base}/${name}`);

const NOT_ALLOWED = 'not allowed there (a rule, or a link leaving the scope)';

/** The destination moved, or its name now leads elsewhere, since the job opened it: nothing is placed. */
export class DestinationMoved extends Conflict {
  constructor(message = 'the destination folder was moved or replaced while the job ran: nothing was placed') {
    super(message);
  }
}

/**
 * Step 3: moves the staged tree into the destination; the entries left out, and why, go to
 * `skipped`. Throws DestinationMoved when the destination folder is no longer at the real path it
 * had at the start, inside its area (renamed, or swapped for a link).
 */
export async function place(staging: Staging, opts: PlaceOptions, skipped: SkipList): Promise<void> {
  const { dir, real, root } = staging.dest;
  if (!isInside(root, real) || (await whereIs(dir)) !== real) throw new DestinationMoved();
  const into: string[] = [];
  try {
    await placeLevel({ from: staging.root, to: dir, toReal: real, toVirtual: opts.destVirtual, rel: '', into }, opts, skipped);
  } finally {
    // The index (fs/changes.ts) reads again each folder something was placed into (a folder moved
    // in whole is a new child of one of them), not the destination's whole tree: that could be
    // the root, walked at every extraction of a one-file archive.
    for (const folder of into) noteWritten(folder);
  }
}

interface Level {
  /** The staged folder, opened. */
  from: FileHandle;
  /** The destination folder, opened. */
  to: FileHandle;
  toReal: string;
  toVirtual: string;
  /** The level's path inside the archive ("" at the top). */
  rel: string;
  /** The real paths of the destination folders placed into so far (for the index). */
  into: string[];
}

const lstatOrNone = (p: string) =>
  fsp.lstat(p).catch((err: unknown) => {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  });

async function placeLevel(level: Level, opts: PlaceOptions, skipped: SkipList): Promise<void> {
  const { from, to, toReal, toVirtual, rel, into } = level;
  into.push(toReal);
  const entries: Dirent[] = await fsp.readdir(viaFd(from), { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const e of entries) {
    const name = rel ? `${rel}/${e.name}` : e.name;
    const virtual = join(toVirtual, e.name);
    const real = path.join(toReal, e.name);
    if (opts.denied(virtual) || isReserved(real)) {
      skipped.push({ name, reason: NOT_ALLOWED });
      continue;
    }
    const staged = viaFd(from, e.name);
    const target = viaFd(to, e.name);
    // The entry itself, never followed: a link of that name is not a way out.
    const there = await lstatOrNone(target);
    if (e.isDirectory()) {
      if (!there && !hasReservedBelow(real) && (await moveFolder(staged, target, virtual, name, opts, skipped))) continue;
      const now = there ?? (await lstatOrNone(target));
      if (now && !now.isDirectory()) {
        skipped.push({ name, reason: now.isSymbolicLink() ? 'a link of that name is there' : 'a file of that name is there' });
        continue;
      }
      if (!now) await fsp.mkdir(target, { mode: DIR_MODE });
      const fromChild = await openDirIn(from, e.name);
      try {
        const toChild = await openDirIn(to, e.name);
        try {
          await placeLevel({ from: fromChild, to: toChild, toReal: real, toVirtual: virtual, rel: name, into }, opts, skipped);
        } finally {
          await toChild.close();
        }
      } finally {
        await fromChild.close();
      }
      continue;
    }
    if (!there) {
      await placeNew(staged, target).catch(async (err: unknown) => {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        skipped.push({ name, reason: 'the name was taken meanwhile' });
      });
      continue;
    }
    if (there.isDirectory()) {
      skipped.push({ name, reason: 'a folder of that name is there' });
      continue;
    }
    if (opts.conflict === 'skip') {
      skipped.push({ name, reason: 'exists' });
    } else if (opts.conflict === 'overwrite') {
      // rename() replaces the file in one step (the link itself when the name is a link, never its target).
      await fsp.rename(staged, target);
    } else {
      await placeNumbered(staged, to, toVirtual, e.name, opts, name, skipped);
    }
  }
}

/**
 * A staged folder to a name that was free: its inside is checked against the rules (denied
 * entries are taken out of the staging folder and reported), then the name is claimed with an
 * exclusive mkdir and the staged folder renamed over that empty folder — one rename for the whole
 * tree. False when the name was taken meanwhile (the caller merges instead).
 */
async function moveFolder(staged: string, target: string, virtual: string, name: string, opts: PlaceOptions, skipped: SkipList): Promise<boolean> {
  if (opts.anyRule) await dropDenied(staged, virtual, name, opts, skipped);
  try {
    await fsp.mkdir(target, { mode: DIR_MODE });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    await fsp.rename(staged, target);
    return true;
  } catch (err) {
    // Something was put into the claimed folder meanwhile: merge into it.
    if ((err as NodeJS.ErrnoException).code === 'ENOTEMPTY' || (err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/** Removes from a staged folder what the rules deny at its destination, reporting each. */
async function dropDenied(staged: string, virtual: string, rel: string, opts: PlaceOptions, skipped: SkipList): Promise<void> {
  const entries: Dirent[] = await fsp.readdir(staged, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const e of entries) {
    const v = join(virtual, e.name);
    const p = path.join(staged, e.name);
    if (opts.denied(v)) {
      skipped.push({ name: `${rel}/${e.name}`, reason: NOT_ALLOWED });
      await fsp.rm(p, { recursive: true, force: true });
    } else if (e.isDirectory()) {
      await dropDenied(p, v, `${rel}/${e.name}`, opts, skipped);
    }
  }
}

/** A file to a name nobody holds: link() refuses an existing name (EEXIST), unlike rename(). */
async function placeNew(staged: string, target: string): Promise<void> {
  await fsp.link(staged, target);
  await fsp.unlink(staged);
}

async function placeNumbered(staged: string, to: FileHandle, toVirtual: string, base: string, opts: PlaceOptions, name: string, skipped: SkipList): Promise<void> {
  for (let n = 1; n <= 1000; n++) {
    const numbered = opts.numbered(base, n);
    if (opts.denied(join(toVirtual, numbered))) {
      skipped.push({ name, reason: NOT_ALLOWED });
      return;
    }
    try {
      await placeNew(staged, viaFd(to, numbered));
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  skipped.push({ name, reason: 'no free name' });
}

/** Bytes of an archive file read in windows (zip: the central directory and the entries' local headers and bodies). */
export interface ArchiveReader {
  readonly size: number;
  /** `length` bytes at `position` (fewer only at the end of the file). The buffer may be shared: copy what is kept. */
  read(position: number, length: number): Promise<Buffer>;
  /** The bytes [start, end) as a stream (large entries). */
  stream(start: number, end: number): Readable;
  close(): Promise<void>;
}

const WINDOW = 1024 * 1024;
/** Windows kept: a zip is read at two places at once (its directory at the end, the entries from the start). */
const WINDOWS = 4;

/**
 * The archive (openArchive: the very file resolved) read through a few 1 MiB windows, so that the
 * many small reads of a zip (a directory record, a local header, a small body per entry) cost a
 * libuv round trip per MiB instead of two or three per entry.
 */
export async function openArchiveReader(source: ScopedPath): Promise<ArchiveReader> {
  const fh = await openArchive(source);
  const size = (await fh.stat()).size;
  let windows: { at: number; bytes: Buffer }[] = [];
  const readAt = async (position: number, length: number) => {
    const buf = Buffer.allocUnsafe(Math.max(0, Math.min(length, size - position)));
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await fh.read(buf, got, buf.length - got, position + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return got === buf.length ? buf : buf.subarray(0, got);
  };
  return {
    size,
    async read(position, length) {
      const hit = windows.find((w) => position >= w.at && position + length <= w.at + w.bytes.length);
      if (hit) {
        windows = [hit, ...windows.filter((w) => w !== hit)];
        return hit.bytes.subarray(position - hit.at, position - hit.at + length);
      }
      if (length > WINDOW) return readAt(position, length);
      const bytes = await readAt(position, WINDOW);
      windows = [{ at: position, bytes }, ...windows].slice(0, WINDOWS);
      return bytes.subarray(0, length);
    },
    stream(start, end) {
      return fh.createReadStream({ start, end: end - 1, autoClose: false }) as unknown as Readable;
    },
    close: () => fh.close(),
  };
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
