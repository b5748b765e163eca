/**
 * gzip on both cores, as pigz does it: the input is cut into blocks (growing from 64 KiB to
 * 1 MiB, so that the first bytes leave soon), each block is compressed by a worker thread into a
 * complete gzip member (RFC 1952 §2.2: "a gzip file consists of a series of members"), and the
 * members are written in input order. The first member is the first input chunk (at most
 * 64 KiB), compressed at once on this thread (~1 ms): the first bytes never wait for a worker
 * to be scheduled, which on a loaded machine took up to a few hundred ms. Concatenated members
 * are one valid .gz file: gzip -t, tar xzf and node:zlib's gunzip read them as one stream. Each
 * block loses the 32 KiB window of the one before, which costs well under 1 % of the size at
 * these block sizes.
 *
 * Memory is bounded: at most MAX_IN_FLIGHT blocks per stream are with the workers; while they
 * are full, the stream stops taking input (backpressure reaches the tar writer and the reads).
 * A destroyed stream (client gone, job cancelled) dispatches nothing more; the blocks already
 * with a worker finish (one block is a few ms of work) and their output is dropped.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { gzipSync } from 'node:zlib';
import { shareOf } from '../../cluster/budget.js';

/** First block, and the largest. */
const FIRST_BLOCK = 64 * 1024;
const MAX_BLOCK = 1024 * 1024;
/** Blocks of one stream being compressed at once (two per worker). */
const MAX_IN_FLIGHT = 4;
/** A partial block waits at most this long for more input before it is compressed as it is. */
const IDLE_FLUSH_MS = 50;
/** Workers for the whole box (with `--workers N`, this process's part). */
const WORKERS = 2;

/** Counters for tests: blocks handed to the workers since start, and blocks with them now. */
export const gzipActivity = { blocks: 0, inFlight: 0 };

const WORKER_SOURCE = String.raw`
const { parentPort } = require('node:worker_threads');
const zlib = require('node:zlib');
parentPort.on('message', ({ id, data, level }) => {
  try {
    const out = zlib.gzipSync(new Uint8Array(data), { level });
    // gzipSync's result may be a slice of a larger allocation: send exactly its bytes.
    const own = new Uint8Array(out.length);
    own.set(out);
    parentPort.postMessage({ id, out: own }, [own.buffer]);
  } catch (err) {
    parentPort.postMessage({ id, error: String((err && err.message) || err) });
  }
});
`;

interface Pending {
  resolve: (b: Buffer) => void;
  reject: (e: Error) => void;
}

class GzipWorker {
  readonly worker = new Worker(WORKER_SOURCE, { eval: true });
  readonly pending = new Map<number, Pending>();
  constructor(onExit: (w: GzipWorker) => void) {
    this.worker.unref();
    this.worker.on('message', (m: { id: number; out?: Uint8Array; error?: string }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.error !== undefined || !m.out) p.reject(new Error(`gzip: ${m.error}`));
      else p.resolve(Buffer.from(m.out.buffer, m.out.byteOffset, m.out.byteLength));
    });
    const fail = (err: Error) => {
      onExit(this);
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`gzip worker exited (${code})`)));
  }
}

const workers: GzipWorker[] = [];
let nextId = 0;

/** The least busy worker; a new one while every one is busy and there is room. */
function pickWorker(): GzipWorker {
  const size = shareOf(WORKERS);
  if (workers.length < size && workers.every((w) => w.pending.size > 0)) {
    workers.push(
      new GzipWorker((dead) => {
        const i = workers.indexOf(dead);
        if (i >= 0) workers.splice(i, 1);
      }),
    );
  }
  let best = workers[0]!;
  for (const w of workers) if (w.pending.size < best.pending.size) best = w;
  return best;
}

/** One complete gzip member of `block`, compressed by a worker. The block's bytes are copied. */
export function gzipMember(block: Buffer, level: number): Promise<Buffer> {
  const w = pickWorker();
  const id = nextId++;
  // A copy the worker owns: `block` may be a slice of a pooled or shared buffer.
  const data = new Uint8Array(block.length);
  data.set(block);
  gzipActivity.blocks++;
  gzipActivity.inFlight++;
  const done = new Promise<Buffer>((resolve, reject) => {
    w.pending.set(id, { resolve, reject });
    w.worker.postMessage({ id, data: data.buffer, level }, [data.buffer]);
  });
  const settled = () => {
    gzipActivity.inFlight--;
  };
  done.then(settled, settled);
  return done;
}

/** Stops the gzip workers (tests and shutdown; they are unref'd and never hold the process). */
export async function closeGzipWorkers(): Promise<void> {
  await Promise.all(workers.splice(0).map((w) => w.worker.terminate()));
}

/** A member on its way: its bytes once the worker answered. */
interface Slot {
  out?: Buffer;
}

/** A gzip stream whose members are compressed in parallel, written in order (see above). */
export class ParallelGzip extends Transform {
  private parts: Buffer[] = [];
  private bytes = 0;
  private block = FIRST_BLOCK;
  /** Members being compressed or waiting for the ones before them, in input order. */
  private readonly queue: Slot[] = [];
  /** The input callback held while MAX_IN_FLIGHT members are out (backpressure). */
  private held: TransformCallback | undefined;
  /** The end callback, once the input ended: called when the queue is empty. */
  private ending: TransformCallback | undefined;
  private timer: NodeJS.Timeout | undefined;
  private dispatched = false;

  constructor(private readonly level = 6) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.parts.push(chunk);
    this.bytes += chunk.length;
    if (!this.dispatched) this.dispatch(Math.min(this.bytes, FIRST_BLOCK));
    while (this.bytes >= this.block) this.dispatch(this.block);
    if (this.bytes > 0 && !this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        if (this.bytes > 0 && !this.destroyed) this.dispatch(this.bytes);
      }, IDLE_FLUSH_MS);
    }
    if (this.queue.length >= MAX_IN_FLIGHT) this.held = cb;
    else cb();
  }

  override _flush(cb: TransformCallback): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    // An empty input still makes a valid (empty) gzip file: one member of nothing.
    if (this.bytes > 0 || !this.dispatched) this.dispatch(this.bytes);
    this.ending = cb;
    this.drain();
  }

  override _destroy(err: Error | null, cb: (error?: Error | null) => void): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.parts = [];
    this.bytes = 0;
    this.queue.length = 0;
    this.held = undefined;
    this.ending = undefined;
    cb(err);
  }

  /** Hands the first `size` bytes of the input to a worker as one member. */
  private dispatch(size: number): void {
    const all = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.bytes);
    const rest = all.subarray(size);
    this.parts = rest.length > 0 ? [rest] : [];
    this.bytes = rest.length;
    this.block = Math.min(this.block * 2, MAX_BLOCK);
    const slot: Slot = {};
    this.queue.push(slot);
    if (!this.dispatched) {
      this.dispatched = true;
      slot.out = gzipSync(all.subarray(0, size), { level: this.level });
      this.drain();
      return;
    }
    gzipMember(all.subarray(0, size), this.level).then(
      (out) => {
        slot.out = out;
        this.drain();
      },
      (err: Error) => {
        if (!this.destroyed) this.destroy(err);
      },
    );
  }

  /** Writes the finished members at the head of the queue, in order; releases held input; ends. */
  private drain(): void {
    if (this.destroyed) return;
    while (this.queue.length > 0 && this.queue[0]!.out) this.push(this.queue.shift()!.out);
    if (this.held && this.queue.length < MAX_IN_FLIGHT) {
      const cb = this.held;
      this.held = undefined;
      cb();
    }
    if (this.ending && this.queue.length === 0) {
      const cb = this.ending;
      this.ending = undefined;
      cb();
    }
  }
}
