/**
 * File-system work off the event loop, in worker threads, where one libuv round trip per call
 * costs more than the call itself:
 * - folder stats: the lstat of each entry (stat of the target for links) of one readdir, handed
 *   back as compact typed arrays; a big folder is split between the workers. For a folder of
 *   100,000 entries that is ~0.4 s instead of ~1.3 s. Nothing is opened (S85).
 * - small reads: open, fstat, read and close of a file the resolver produced, in one round trip
 *   instead of three (small raw downloads; the rest of their time is one HTTP answer).
 * The event loop never waits on a synchronous call. Each kind has its own workers, so a huge
 * listing never holds up downloads.
 *
 * The worker is evaluated from source text so the same code runs from `src/` (tests) and `dist/`.
 */
import { readdir } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';

/** Per-entry outcome in `DirStats.kind`. */
export const ENTRY = {
  /** A plain entry (not a link). */
  plain: 0,
  /** A link whose target exists inside the area: the stats are the target's. */
  link: 1,
  /** A link that is dangling, looping or unreadable: the main thread judges it. */
  unresolved: 2,
  /** A link whose target lies outside the area: never reported (S6). */
  escaping: 3,
  /** Vanished or unreadable between readdir and lstat. */
  gone: 4,
} as const;

export interface DirStats {
  names: string[];
  kind: Uint8Array;
  size: Float64Array;
  /** mtime seconds and nanoseconds. */
  sec: Float64Array;
  nsec: Uint32Array;
  /** st_mode of the target (of the link itself for unresolved links). */
  mode: Uint32Array;
  /** Real path of a link's target, by entry index (links only). */
  real: Record<number, string>;
}

/** The workers' nice value (Linux): below the main thread's 0. */
export const WORKER_NICE = 10;

const WORKER_SOURCE = String.raw`
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
// Bulk work yields to the request handling (and to anything else on the machine) when the cores
// are busy: on Linux a thread has its own nice value (elsewhere this does nothing).
// Only when /proc is this process's own (not another PID namespace's, where the id would name
// some other thread).
try {
  if (fs.readlinkSync('/proc/self') === String(process.pid)) {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    if (tid > 0) require('node:os').setPriority(tid, ${WORKER_NICE});
  }
} catch {}
const S_IFMT = fs.constants.S_IFMT, S_IFLNK = fs.constants.S_IFLNK;
// O_NOFOLLOW: the path is fully resolved, a link there now is a swap; O_NONBLOCK: a FIFO put there
// instead of the file must not hang the worker on open.
const READ_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;
function inside(root, p) { return p === root || p.startsWith(root.endsWith('/') ? root : root + '/'); }
function fail(id, e) { return { id, error: { code: e && e.code, message: String(e && e.message), syscall: e && e.syscall } }; }
function stats({ id, dir, root, joined, n }) {
  const names = n === 0 ? [] : joined.split('\0');
  const kind = new Uint8Array(n), size = new Float64Array(n), sec = new Float64Array(n);
  const nsec = new Uint32Array(n), mode = new Uint32Array(n), real = {};
  const B = 1000000000n;
  // A name from readdir never holds a slash: joining by concatenation is exact (and path.join of
  // every entry was a tenth of a worker's time).
  const prefix = dir.endsWith('/') ? dir : dir + '/';
  for (let i = 0; i < n; i++) {
    const p = prefix + names[i];
    let st;
    try { st = fs.lstatSync(p, { bigint: true }); } catch { kind[i] = 4; continue; }
    if ((Number(st.mode) & S_IFMT) === S_IFLNK) {
      try {
        const r = fs.realpathSync.native(p);
        if (!inside(root, r)) { kind[i] = 3; continue; }
        st = fs.statSync(r, { bigint: true });
        real[i] = r;
        kind[i] = 1;
      } catch { kind[i] = 2; }
    }
    size[i] = Number(st.size);
    let s = st.mtimeNs / B, ns = st.mtimeNs % B;
    if (ns < 0n) { ns += B; s -= 1n; }
    sec[i] = Number(s);
    nsec[i] = Number(ns);
    mode[i] = Number(st.mode);
  }
  return [{ id, kind, size, sec, nsec, mode, real }, [kind.buffer, size.buffer, sec.buffer, nsec.buffer, mode.buffer]];
}
function read({ id, real, start, length, dev, ino }) {
  let fd;
  try { fd = fs.openSync(real, READ_FLAGS); } catch (e) {
    if (e && e.code === 'ELOOP') return [{ id, changed: true }, []];
    throw e;
  }
  try {
    const st = fs.fstatSync(fd);
    if (st.dev !== dev || st.ino !== ino || !st.isFile()) return [{ id, changed: true }, []];
    const bytes = new Uint8Array(length);
    for (let off = 0; off < length; ) {
      const n = fs.readSync(fd, bytes, off, length - off, start + off);
      if (n === 0) return [{ id, changed: true }, []];
      off += n;
    }
    return [{ id, bytes }, [bytes.buffer]];
  } finally {
    fs.closeSync(fd);
  }
}
parentPort.on('message', (msg) => {
  let out;
  try { out = msg.real === undefined ? stats(msg) : read(msg); } catch (e) { out = [fail(msg.id, e), []]; }
  parentPort.postMessage(out[0], out[1]);
});
`;

/** Stats of a list of names, by their position in the list. */
export type StatPart = Omit<DirStats, 'names'>;
/** A file part read by a worker, or `changed` when the file is no longer the one resolved. */
type ReadPart = { bytes: Uint8Array } | { changed: true };
type Reply<T> = ({ id: number } & T) | { id: number; error: { code?: string; message: string; syscall?: string } };

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

class PoolWorker {
  readonly worker: Worker;
  readonly pending = new Map<number, Pending>();
  constructor(onExit: (w: PoolWorker) => void) {
    this.worker = new Worker(WORKER_SOURCE, { eval: true });
    this.worker.unref();
    this.worker.on('message', (m: Reply<object>) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if ('error' in m) {
        const err = Object.assign(new Error(m.error.message), { code: m.error.code, syscall: m.error.syscall });
        p.reject(err);
      } else p.resolve(m);
    });
    const fail = (err: unknown) => {
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
      onExit(this);
    };
    this.worker.on('error', fail);
    this.worker.on('exit', () => fail(new Error('file worker exited')));
  }
}

let seq = 0;

/** Up to `size` workers, started on demand; a dead one is replaced at the next call. */
class Pool {
  readonly workers: PoolWorker[] = [];
  constructor(readonly size: number) {}

  private spawn(): PoolWorker {
    const w = new PoolWorker((dead) => {
      const i = this.workers.indexOf(dead);
      if (i >= 0) this.workers.splice(i, 1);
    });
    this.workers.push(w);
    return w;
  }

  /** The least busy workers, `count` of them (a new one while all are busy and there is room). */
  pick(count: number): PoolWorker[] {
    while (
      this.workers.length < Math.min(count, this.size) ||
      (this.workers.length < this.size && this.workers.every((w) => w.pending.size > 0))
    )
      this.spawn();
    if (count === 1) {
      let best = this.workers[0]!;
      for (const w of this.workers) if (w.pending.size < best.pending.size) best = w;
      return [best];
    }
    return [...this.workers].sort((a, b) => a.pending.size - b.pending.size).slice(0, count);
  }

  ask<T>(w: PoolWorker, msg: object): Promise<T> {
    const id = ++seq;
    return new Promise<T>((resolve, reject) => {
      w.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      w.worker.postMessage({ ...msg, id });
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.splice(0).map((w) => w.worker.terminate()));
  }
}

const POOL_SIZE = 2;
const statPool = new Pool(POOL_SIZE);
const readPool = new Pool(POOL_SIZE);

function askStats(w: PoolWorker, dir: string, root: string, names: string[]): Promise<StatPart> {
  // One string instead of an array of 100,000: far cheaper to pass between threads. NUL never
  // occurs in a file name.
  return statPool.ask<StatPart>(w, { dir, root, joined: names.join('\0'), n: names.length });
}

/** Big folders are split between the workers (the stats are the cost, S85 benchmark). */
const SPLIT_AT = 4096;

/**
 * One readdir plus one lstat per entry of `dir` (a real folder path inside `root`), links resolved
 * and judged against `root`. Errors of the readdir reject with the errno code.
 */
export async function statDirectory(dir: string, root: string): Promise<DirStats> {
  return statNames(dir, root, await readdir(dir));
}

/**
 * The stats of `names` (a readdir of `dir`), as `statDirectory`. The workers are asked at once:
 * the caller may work on the names while they stat.
 */
export async function statNames(dir: string, root: string, names: string[]): Promise<DirStats> {
  const n = names.length;
  if (n < SPLIT_AT) return { names, ...(await askStats(statPool.pick(1)[0]!, dir, root, names)) };
  const workers = statPool.pick(POOL_SIZE);
  const per = Math.ceil(n / workers.length);
  const parts = await Promise.all(workers.map((w, k) => askStats(w, dir, root, names.slice(k * per, (k + 1) * per))));
  const out: DirStats = {
    names,
    kind: new Uint8Array(n),
    size: new Float64Array(n),
    sec: new Float64Array(n),
    nsec: new Uint32Array(n),
    mode: new Uint32Array(n),
    real: {},
  };
  parts.forEach((p, k) => {
    const at = k * per;
    out.kind.set(p.kind, at);
    out.size.set(p.size, at);
    out.sec.set(p.sec, at);
    out.nsec.set(p.nsec, at);
    out.mode.set(p.mode, at);
    for (const [i, r] of Object.entries(p.real)) out.real[at + Number(i)] = r;
  });
  return out;
}

/**
 * The stats of several lists of names of `dir`, all asked at once and shared out between the
 * workers in turn, so that they arrive about in list order (a listing streamed as it is statted).
 * Every promise already has a handler: a caller that stops awaiting leaves no unhandled rejection.
 */
export function statBatches(dir: string, root: string, batches: string[][]): Promise<StatPart>[] {
  if (batches.length === 0) return [];
  const workers = statPool.pick(Math.min(POOL_SIZE, batches.length));
  return batches.map((names, k) => {
    const p = askStats(workers[k % workers.length]!, dir, root, names);
    p.catch(() => undefined);
    return p;
  });
}

/**
 * The bytes [start, end] of the regular file at `real` (a path the resolver produced), in one
 * worker round trip. The file must still be the one `expect` describes (same device and inode,
 * not a link, long enough): otherwise the answer is null. Errors reject with the errno code.
 */
export async function readPart(
  real: string,
  range: { start: number; end: number },
  expect: { dev: number; ino: number },
): Promise<Buffer | null> {
  const msg = { real, start: range.start, length: range.end - range.start + 1, dev: expect.dev, ino: expect.ino };
  const out = await readPool.ask<ReadPart>(readPool.pick(1)[0]!, msg);
  return 'bytes' in out ? Buffer.from(out.bytes.buffer, out.bytes.byteOffset, out.bytes.byteLength) : null;
}

/** Stops the workers (tests and shutdown; they are unref'd and never hold the process). */
export async function closeWorkerPools(): Promise<void> {
  await Promise.all([statPool.close(), readPool.close()]);
}
