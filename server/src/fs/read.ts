/**
 * Reading user files for the byte endpoints (raw, archives, previews, subtitles). Every function
 * takes something the resolver or the walker produced (a ScopedPath or a WalkEntry), never a
 * string from a request.
 */
import { close as fsClose, constants, createReadStream, fstat, open as fsOpen, read as fsRead, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { Conflict } from '../http/errors.js';
import type { ScopedPath } from './resolve.js';
import type { WalkEntry } from './walk.js';
import { readPart } from './worker-pool.js';

export type Readable_ = ScopedPath | WalkEntry;
/** A file found by the resolver or a walker: its real path and the device and inode it had then. */
export interface ExpectedFile {
  real: string;
  stat?: { dev: number; ino: number };
}

/**
 * The name no longer leads to the file resolved or walked (another file, reached through a folder
 * swapped for a link): 409, as for any other change made meanwhile — not a server error.
 */
export class FileChanged extends Conflict {
  constructor() {
    super('the file changed while it was being used');
  }
}

/**
 * The stream's open: the resolved file itself, never what its name leads to now. O_NOFOLLOW
 * refuses a link put in place of the name; the device and inode check refuses another file
 * reached through a folder on the way swapped for a link since the resolve (same check as
 * `openForChild`). O_NONBLOCK: a FIFO swapped in must not hang the open.
 */
function openResolved(expect: Stats | undefined) {
  return {
    open(p: string, _flags: unknown, _mode: unknown, cb: (err: Error | null, fd?: number) => void): void {
      fsOpen(p, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK, (err, fd) => {
        if (err) return cb(err);
        fstat(fd, (statErr, st) => {
          if (!statErr && expect && st.isFile() && st.dev === expect.dev && st.ino === expect.ino) return cb(null, fd);
          fsClose(fd, () => cb(statErr ?? new FileChanged()));
        });
      });
    },
    read: fsRead,
    close: fsClose,
  };
}

/**
 * A stream of the bytes [start, end] (inclusive) of a resolved file; without a range, the
 * `stat.size` bytes the answer announced. Bounding the read lets a small file be read with one
 * right-sized buffer and no extra read for the end (an unbounded stream allocates
 * `highWaterMark` twice: most of the garbage of a small download). The stream fails (nothing
 * read) when the name no longer leads to the file resolved (see openResolved).
 */
export function openFileStream(
  p: Readable_,
  range?: { start: number; end: number },
  highWaterMark = 256 * 1024,
): Readable {
  const size = p.stat?.isFile() ? p.stat.size : 0;
  const r = range ?? (size > 0 ? { start: 0, end: size - 1 } : undefined);
  const hwm = r ? Math.max(1, Math.min(highWaterMark, r.end - r.start + 1)) : highWaterMark;
  return createReadStream(p.real, { start: r?.start, end: r?.end, highWaterMark: hwm, fs: openResolved(p.stat) });
}

/**
 * A stream of a resolved regular file's bytes up to its end as it is when read (or up to `end`,
 * inclusive), through the same checked open as `openFileStream`: for copies and hashes, where a
 * file that grew since its stat must be read whole, not cut at the size the stat saw.
 */
export function openFileToEnd(p: Readable_, end?: number): Readable {
  return createReadStream(p.real, { end, fs: openResolved(p.stat) });
}

/**
 * The bytes [start, end] (inclusive) of a resolved regular file in one buffer, for small answers:
 * read by a worker thread in one round trip (a stream, or even open/read/close on the libuv pool,
 * costs more than the I/O of a few KiB). Throws when the file is no longer the one resolved (a
 * different or shorter file since its stat): a short or foreign answer must never look complete.
 */
export async function readRange(p: Readable_, range: { start: number; end: number }): Promise<Buffer> {
  if (!p.stat?.isFile()) throw new Error('not a resolved regular file');
  const bytes = await readPart(p.real, range, p.stat);
  if (!bytes) throw new Error('file changed while being read');
  return bytes;
}

/**
 * Reads a whole small file (the walker's `size` bytes at most). Fewer bytes than expected are
 * returned as read: the caller archives what is there now.
 */
export async function readWhole(p: Readable_, size: number): Promise<Buffer> {
  // The file resolved or walked, never what its name leads to now (see openForChild).
  const fh = await openForChild(p);
  try {
    const buf = Buffer.allocUnsafe(size);
    let off = 0;
    while (off < size) {
      const { bytesRead } = await fh.read(buf, off, size - off, off);
      if (bytesRead === 0) break;
      off += bytesRead;
    }
    return off === size ? buf : buf.subarray(0, off);
  } finally {
    await fh.close();
  }
}

/** The first `n` bytes (fewer for a shorter file) of the file resolved (see openForChild). */
export async function readHead(p: Readable_, n: number): Promise<Buffer> {
  const fh = await openForChild(p);
  try {
    const buf = Buffer.alloc(n);
    const { bytesRead } = await fh.read(buf, 0, n, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** An iterator over a file's bytes that can also be closed without being iterated. */
export type FileChunks = AsyncGenerator<Buffer> & { close(): Promise<void> };

/**
 * Opens a file for reading exactly its first `size` bytes; the open happens now so that a
 * vanished or unreadable file is known before anything about it is written. The iterator throws
 * when the file turns out shorter than `size` (a truncated archive entry must never look
 * complete). `close()` releases the file when the iterator is abandoned unstarted.
 */
export async function openExact(p: ExpectedFile, size: number, chunk = 256 * 1024): Promise<FileChunks> {
  // The file walked, not what its name leads to now (a link swapped in since, to a file outside the scope).
  const fh = await openForChild(p);
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await fh.close();
  };
  async function* read(): AsyncGenerator<Buffer> {
    try {
      let pos = 0;
      while (pos < size) {
        const want = Math.min(chunk, size - pos);
        const buf = Buffer.allocUnsafe(want);
        const { bytesRead } = await fh.read(buf, 0, want, pos);
        if (bytesRead === 0) throw new Error(`file shrank while being read (${pos} of ${size} bytes)`);
        pos += bytesRead;
        yield bytesRead === want ? buf : buf.subarray(0, bytesRead);
      }
    } finally {
      await close();
    }
  }
  return Object.assign(read(), { close });
}

/** Bytes per read of `pumpFile` and the reads it keeps ahead of the writes. */
export const PUMP_CHUNK = 512 * 1024;
const PUMP_BUFFERS = 2;

/**
 * Hands the bytes [start, end] (inclusive) of a resolved regular file to `write`, piece by piece,
 * through a few buffers reused for the whole file: `write` resolves once its piece may be
 * overwritten (a socket took it). A stream allocates a new buffer per read, and for a large file
 * those buffers (external memory to V8) set off a full garbage collection every few dozen MiB — on
 * a busy machine most of the time of a 1 GiB download (bench/README.md "WebDAV"). The next piece
 * is read while the last one is written. Throws when the file turns out shorter than `end` (the
 * answer announced its length) or is no longer the inode resolved; `signal` stops it.
 */
export async function pumpFile(
  p: Readable_,
  range: { start: number; end: number },
  write: (piece: Buffer) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  if (!p.stat?.isFile()) throw new Error('not a resolved regular file');
  // O_NONBLOCK: a FIFO swapped in for the file must not hang the open (regular files ignore it);
  // it opens and is refused below (not a regular file, another inode).
  const fh = await open(p.real, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = await fh.stat();
    if (!st.isFile() || st.dev !== p.stat.dev || st.ino !== p.stat.ino) throw new Error('file changed while being read');
    const total = range.end - range.start + 1;
    const size = Math.max(1, Math.min(PUMP_CHUNK, total));
    const bufs = Array.from({ length: Math.min(PUMP_BUFFERS, Math.ceil(total / size)) }, () => Buffer.allocUnsafeSlow(size));
    const writing: (Promise<void> | undefined)[] = bufs.map(() => undefined);
    let failed: unknown;
    for (let pos = range.start, k = 0; pos <= range.end; k = (k + 1) % bufs.length) {
      await writing[k];
      if (failed !== undefined) throw failed;
      if (signal?.aborted) throw signal.reason;
      const buf = bufs[k]!;
      const want = Math.min(size, range.end + 1 - pos);
      let got = 0;
      while (got < want) {
        const { bytesRead } = await fh.read(buf, got, want - got, pos + got);
        if (bytesRead === 0) throw new Error(`file shrank while being read (${pos + got - range.start} of ${total} bytes)`);
        got += bytesRead;
      }
      pos += got;
      writing[k] = write(got === buf.length ? buf : buf.subarray(0, got)).catch((err: unknown) => void (failed ??= err));
    }
    await Promise.all(writing);
    if (failed !== undefined) throw failed;
  } finally {
    await fh.close();
  }
}

/**
 * Opens a resolved regular file for a child process to read as an inherited descriptor (ffmpeg,
 * features/preview/video.ts). The handle must be the very file the resolver checked (same device
 * and inode, not a link): a name swapped since for a link cannot hand the child a file outside
 * the scope. The caller closes the handle.
 */
export async function openForChild(p: ExpectedFile): Promise<FileHandle> {
  // O_NONBLOCK: a FIFO swapped in for the file must not hang the open (regular files ignore it).
  const fh = await open(p.real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const st = await fh.stat();
    if (!st.isFile() || !p.stat || st.dev !== p.stat.dev || st.ino !== p.stat.ino) {
      throw new FileChanged();
    }
    return fh;
  } catch (err) {
    await fh.close();
    throw err;
  }
}
