/**
 * Atomic writes (architecture.md "Writes are atomic", S51, S54): the bytes go to a staging file in
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
  mkdir(p: string, mode: number): Promise<void>;
}

export const nodeIo: WriteIo = {
  open: (p, flags, mode) => fsp.open(p, flags, mode),
  write: async (fh, chunks, position) => (await fh.writev(chunks, position)).bytesWritten,
  sync: (fh) => fh.sync(),
  rename: (a, b) => fsp.rename(a, b),
  link: (a, b) => fsp.link(a, b),
  unlink: (p) => fsp.unlink(p),
  mkdir: async (p, mode) => {
    await fsp.mkdir(p, { recursive: true, mode });
  },
};

export type ByteSource = AsyncIterable<Uint8Array | string> | Uint8Array;

export interface WriteOptions {
  /** Fail with 409 when the target exists (POST without override); never replaces anything. */
  exclusive: boolean;
  /** Permission bits of the new file (default 0640; a save keeps the old file's bits). */
  mode?: number;
  io?: WriteIo;
}

export interface WriteResult {
  size: number;
  mtimeNs: bigint;
}

/** Creates a folder and its missing parents (0750). A parent that is a file → 409. */
export async function makeDirs(real: string, io: WriteIo = nodeIo): Promise<void> {
  try {
    await io.mkdir(real, DIR_MODE);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR' || code === 'EEXIST') throw new Conflict('a parent is not a folder', { cause: err });
    throw err;
  }
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
 * missing parent folders are created (0750).
 */
export async function writeAtomic(target: ScopedPath, source: ByteSource, opts: WriteOptions): Promise<WriteResult> {
  const io = opts.io ?? nodeIo;
  const dest = target.real;
  const dir = path.dirname(dest);
  await makeDirs(dir, io);
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
    await syncDir(dir);
    const st = await fsp.stat(dest, { bigint: true });
    return { size, mtimeNs: st.mtimeNs };
  } finally {
    if (fh) await fh.close().catch(() => undefined);
    if (!placed) await io.unlink(tmp).catch(() => undefined);
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
