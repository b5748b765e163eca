/**
 * Streams an upload body into a file with few system calls and with the disk working while the
 * body still arrives (bench/README.md "Uploads"):
 *
 * - the socket's pieces (≤ 64 KiB each) are gathered into batches of `WRITE_BATCH` bytes and each
 *   batch is written with one vectored write, no copy;
 * - one batch is on its way to the disk while the next is read from the socket (double
 *   buffering): `push` only waits when a full batch finds the previous one still in flight, which
 *   is the back-pressure that keeps memory flat (S80);
 * - write-back starts early: whenever `EARLY_SYNC` bytes were written since the last one began, a
 *   background fdatasync runs (one at a time), so the sync that makes the bytes durable at the
 *   end has little left to flush.
 *
 * Used by tus chunks (`staging.ts`) and by plain uploads (`atomic.ts`).
 */

/** Bytes gathered before one vectored write. */
export const WRITE_BATCH = 1024 * 1024;
/**
 * Bytes written between the starts of two background fdatasyncs. Each sync is a journal commit;
 * a tus chunk (10 MiB by default) is synced once right after it anyway, so this only matters for
 * plain uploads and very large chunks: it bounds what the closing sync still has to flush.
 */
export const EARLY_SYNC = 16 * 1024 * 1024;

export interface BatchSink {
  /** Writes `bufs` at `position`; may write less than asked (the rest is written again). */
  write(bufs: Uint8Array[], position: number): Promise<number>;
  /** fdatasync (or fsync) of the file. */
  sync(): Promise<void>;
}

export interface BatchWriter {
  /** Bytes handed to `push` so far. */
  readonly accepted: number;
  /** Bytes on disk (page cache) so far. */
  readonly written: number;
  /** Takes a piece; the returned promise (when there is one) must be awaited before the next. */
  push(buf: Uint8Array): Promise<void> | undefined;
  /** Writes what is gathered and waits for every write. Throws the first write error. */
  end(): Promise<void>;
  /** Forgets what is gathered and waits for the write and sync in flight (before a rollback). */
  drop(): Promise<void>;
  /** Waits for the background sync in flight, then syncs once more: every written byte is durable. */
  sync(): Promise<void>;
}

/** Marks errors of our own writes and syncs, as opposed to a failing source. */
export class WriteFailure extends Error {
  constructor(override readonly cause: unknown) {
    super('write failed');
  }
}

export function createBatchWriter(sink: BatchSink, start: number): BatchWriter {
  let accepted = 0;
  let written = 0;
  let batch: Uint8Array[] = [];
  let batched = 0;
  let inflight: Promise<void> | undefined;
  let syncing: Promise<void> | undefined;
  let unsynced = 0;
  let failure: unknown;

  const fail = (err: unknown) => {
    failure ??= err;
  };

  async function writeAt(bufs: Uint8Array[], n: number, at: number): Promise<void> {
    let done = 0;
    while (done < n) {
      const k = await sink.write(done === 0 ? bufs : sliceBuffers(bufs, done), at + done);
      if (k <= 0) throw Object.assign(new Error('short write'), { code: 'EIO', syscall: 'write' });
      done += k;
    }
    written += n;
    unsynced += n;
    if (unsynced >= EARLY_SYNC && !syncing) {
      unsynced = 0;
      syncing = sink.sync().then(
        () => void (syncing = undefined),
        (err: unknown) => {
          syncing = undefined;
          fail(err);
        },
      );
    }
  }

  async function settle(): Promise<void> {
    if (inflight) await inflight;
    inflight = undefined;
    if (failure !== undefined) throw new WriteFailure(failure);
  }

  async function flush(): Promise<void> {
    await settle();
    if (batched === 0) return;
    const bufs = batch;
    const n = batched;
    batch = [];
    batched = 0;
    inflight = writeAt(bufs, n, start + accepted - n).catch(fail);
  }

  return {
    get accepted() {
      return accepted;
    },
    get written() {
      return written;
    },
    push(buf) {
      if (failure !== undefined) return Promise.reject(new WriteFailure(failure));
      batch.push(buf);
      batched += buf.length;
      accepted += buf.length;
      return batched >= WRITE_BATCH ? flush() : undefined;
    },
    async end() {
      await flush();
      await settle();
    },
    async drop() {
      batch = [];
      accepted -= batched;
      batched = 0;
      if (inflight) await inflight;
      inflight = undefined;
      if (syncing) await syncing;
    },
    async sync() {
      if (syncing) await syncing;
      if (failure !== undefined) throw new WriteFailure(failure);
      try {
        await sink.sync();
      } catch (err) {
        throw new WriteFailure(err);
      }
    },
  };
}

function sliceBuffers(bufs: Uint8Array[], skip: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const b of bufs) {
    if (skip >= b.length) {
      skip -= b.length;
      continue;
    }
    out.push(skip ? b.subarray(skip) : b);
    skip = 0;
  }
  return out;
}
