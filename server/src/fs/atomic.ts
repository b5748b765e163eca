/**
 * Atomic writes (S51, S54): the bytes go to a staging file in
 * the target's own folder (same filesystem, invisible: see names.ts), are fsynced, and only then
 * renamed over the target — or hard-linked to it when nothing may be replaced, so a concurrent
 * creation is never overwritten. Any failure (a full disk, a client that goes away) removes the
 * staging file and leaves the old file as it was. Streamed bodies go through batch-writer.ts
 * (few large writes, one in flight while the next is read, write-back started early).
 */
import { randomBytes } from 'node:crypto';
import * as fsp from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { noteWritten } from './changes.js';
import { Conflict } from '../http/errors.js';
import { createBatchWriter, WriteFailure } from './batch-writer.js';
import { TEMP_PREFIX } from './names.js';
import type { ScopedPath } from './resolve.js';

/** S54: new files 0640, new folders 0750 (the umask can only narrow them). */
export const FILE_MODE = 0o640;
export const DIR_MODE = 0o750;

/** The filesystem calls of a write, injectable so tests can make them fail (ENOSPC…). */
export interface WriteIo {
  open(p: string, flags: string, mode: number): Promise<FileHandle>;
  /** Writes `chunks` at `position`; may write less than asked. */
  write(fh: FileHandle, chunks: Uint8Array[], position: number): Promise<number>;
  sync(fh: FileHandle): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  link(from: string, to: string): Promise<void>;
  unlink(p: string): Promise<void>;
  /** Creates one folder (its parent exists). */
  mkdir(p: string, mode: number): Promise<void>;
}

export const nodeIo: WriteIo = {
  open: (p, flags, mode) => fsp.open(p, flags, mode),
  write: async (fh, chunks, position) => (await fh.writev(chunks, position)).bytesWritten,
  sync: (fh) => fh.sync(),
  rename: (a, b) => fsp.rename(a, b),
  link: (a, b) => fsp.link(a, b),
  unlink: (p) => fsp.unlink(p),
  mkdir: (p, mode) => fsp.mkdir(p, { mode }),
};

export type ByteSource = AsyncIterable<Uint8Array | string> | Uint8Array;

export interface WriteOptions {
  /** Fail with 409 when the target exists (POST without override); never replaces anything. */
  exclusive: boolean;
  /** Permission bits of the new file (default 0640; a save keeps the old file's bits). */
  mode?: number;
  io?: WriteIo;
  /** The operation this write is part of (a copy): folders it made are not "used by another". */
  owner?: object;
}

export interface WriteResult {
  size: number;
  mtimeNs: bigint;
}

/** What one request created: the path, and the inode it made (a name replaced since is not ours). */
export interface CreatedEntry {
  path: string;
  isDir: boolean;
  dev: number;
  ino: number;
  /** The request (its operation) that made it. */
  owner: object;
}
/** Files and folders one request created, in creation order: what a failure takes back. */
export type Created = CreatedEntry[];

/**
 * Folders made by operations still running, and whether another operation has used one since
 * (found it there and counted on it: a POST of the same folder answered 200, a file placed in it).
 * A folder another operation used is never taken back, even when it is still empty. The registry
 * is per process: several instances on one tree each see only their own operations.
 */
const pending = new Map<string, { owner: object; used: boolean }>();

function markUsed(dir: string, owner: object): void {
  const e = pending.get(dir);
  if (e && e.owner !== owner) e.used = true;
}

/** An entry made by `owner` at `p`, with its inode. */
export async function createdEntry(p: string, isDir: boolean, owner: object): Promise<CreatedEntry> {
  const st = await fsp.lstat(p);
  return { path: p, isDir, dev: st.dev, ino: st.ino, owner };
}

/** The operation succeeded: what it created is no longer pending. */
export function release(created: Created): void {
  for (const c of created) if (pending.get(c.path)?.owner === c.owner) pending.delete(c.path);
}

/**
 * Removes what a failed request created, newest first. Only what is still the very inode it made
 * goes (a name replaced since belongs to whoever replaced it); folders only when empty (rmdir) and
 * no other operation used them meanwhile. Nothing that existed before is ever removed.
 */
export async function takeBack(created: Created): Promise<void> {
  for (const c of [...created].reverse()) {
    const e = c.isDir ? pending.get(c.path) : undefined;
    if (e?.owner === c.owner) pending.delete(c.path);
    if (c.isDir && (!e || e.owner !== c.owner || e.used)) continue;
    const st = await fsp.lstat(c.path).catch(() => undefined);
    if (!st || st.dev !== c.dev || st.ino !== c.ino || st.isDirectory() !== c.isDir) continue;
    await (c.isDir ? fsp.rmdir(c.path) : fsp.unlink(c.path)).catch(() => undefined);
    noteWritten(c.path);
  }
}

/**
 * Creates a folder and its missing parents (0750), one level at a time, and returns the folders
 * it made, outermost first, on behalf of `owner` (one operation; the caller then calls `release`
 * or `takeBack`). When a level fails (a name too long, a full disk…) the folders made so far are
 * removed again before the error is thrown: a refused creation leaves nothing behind. A parent
 * that is a file → 409.
 */
export async function makeDirs(real: string, io: WriteIo = nodeIo, owner: object = {}): Promise<Created> {
  const missing: string[] = [];
  for (let p = real; ; p = path.dirname(p)) {
    const st = await fsp.stat(p).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      if (err.code === 'ENOTDIR') throw new Conflict('a parent is not a folder', { cause: err });
      throw err;
    });
    if (st && !st.isDirectory()) throw new Conflict('a parent is not a folder');
    if (st) markUsed(p, owner);
    if (st || path.dirname(p) === p) break;
    missing.unshift(p);
  }
  const made: Created = [];
  try {
    for (const dir of missing) {
      try {
        await io.mkdir(dir, DIR_MODE);
        noteWritten(dir);
        const entry = await createdEntry(dir, true, owner);
        pending.set(dir, { owner, used: false });
        made.push(entry);
      } catch (err) {
        // Made by a concurrent request meanwhile: fine, but not ours to take back.
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        if (!(await fsp.stat(dir)).isDirectory()) throw new Conflict('a parent is not a folder', { cause: err });
        markUsed(dir, owner);
      }
    }
  } catch (err) {
    await takeBack(made);
    throw err;
  }
  return made;
}

/** makeDirs for a creation that is never taken back (a folder asked for, a user's scope). */
export async function keepDirs(real: string, io: WriteIo = nodeIo): Promise<void> {
  release(await makeDirs(real, io));
}

async function writeAll(io: WriteIo, fh: FileHandle, chunk: Uint8Array): Promise<void> {
  let off = 0;
  while (off < chunk.length) {
    const n = await io.write(fh, [off === 0 ? chunk : chunk.subarray(off)], off);
    if (n <= 0) throw Object.assign(new Error('short write'), { code: 'EIO', syscall: 'write' });
    off += n;
  }
}

/** Streams `source` into `fh` from position 0 and fsyncs it; returns the size. */
async function writeStream(io: WriteIo, fh: FileHandle, source: AsyncIterable<Uint8Array | string>): Promise<number> {
  const w = createBatchWriter({ write: (bufs, at) => io.write(fh, bufs, at), sync: () => io.sync(fh) }, 0);
  try {
    for await (const chunk of source) {
      const wait = w.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
      if (wait) await wait;
    }
    await w.end();
    await w.sync();
  } catch (err) {
    await w.drop();
    throw err instanceof WriteFailure ? err.cause : err;
  }
  return w.written;
}

/** fsync of the folder so the rename itself survives a crash; best effort. */
async function syncDir(dir: string): Promise<void> {
  let fh: FileHandle | undefined;
  try {
    fh = await fsp.open(dir, 'r');
    await fh.sync();
  } catch {
    // Some filesystems refuse fsync on a folder; the data itself is already synced.
  } finally {
    await fh?.close().catch(() => undefined);
  }
}

/**
 * Writes `source` to `target.real` atomically. The staging file lives in the target's folder;
 * missing parent folders are created (0750), and removed again when the write fails.
 */
export async function writeAtomic(target: ScopedPath, source: ByteSource, opts: WriteOptions): Promise<WriteResult> {
  const io = opts.io ?? nodeIo;
  const dest = target.real;
  const dir = path.dirname(dest);
  const made = await makeDirs(dir, io, opts.owner);
  const tmp = path.join(dir, TEMP_PREFIX + randomBytes(8).toString('hex'));
  let fh: FileHandle | undefined;
  let placed = false;
  let size = 0;
  try {
    fh = await io.open(tmp, 'wx', opts.mode ?? FILE_MODE);
    if (source instanceof Uint8Array) {
      await writeAll(io, fh, source);
      await io.sync(fh);
      size = source.length;
    } else {
      size = await writeStream(io, fh, source);
    }
    if (opts.mode !== undefined) await fh.chmod(opts.mode);
    await fh.close();
    fh = undefined;
    if (opts.exclusive) await placeExclusive(io, tmp, dest);
    else await io.rename(tmp, dest);
    placed = true;
    noteWritten(dest);
    release(made);
    await syncDir(dir);
    const st = await fsp.stat(dest, { bigint: true });
    return { size, mtimeNs: st.mtimeNs };
  } finally {
    if (fh) await fh.close().catch(() => undefined);
    if (!placed) {
      await io.unlink(tmp).catch(() => undefined);
      await takeBack(made);
    }
  }
}

/** link() never replaces an existing name: EEXIST → 409. Filesystems without hard links fall back to a checked rename. */
async function placeExclusive(io: WriteIo, tmp: string, dest: string): Promise<void> {
  try {
    await io.link(tmp, dest);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new Conflict('the target exists', { cause: err });
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EMLINK') throw err;
    const exists = await fsp.lstat(dest).then(
      () => true,
      () => false,
    );
    if (exists) throw new Conflict('the target exists');
    await io.rename(tmp, dest);
    return;
  }
  await io.unlink(tmp).catch(() => undefined);
}
