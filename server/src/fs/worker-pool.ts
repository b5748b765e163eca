/**
 * File-system work off the event loop, in worker threads, where one libuv round trip per call
 * costs more than the call itself:
 * - folder stats: the lstat of each entry (stat of the target for links) of one readdir, handed
 *   back as compact typed arrays; a big folder is split between the workers. For a folder of
 *   100,000 entries that is ~0.4 s instead of ~1.3 s. Nothing is opened (S85).
 * - small reads: open, fstat, read and close of a file the resolver produced, in one round trip
 *   instead of three (small raw downloads; the rest of their time is one HTTP answer).
 * - folder reads: the names of a folder, read a bounded number per system call and sorted in the
 *   worker, handed over in parts.
 * - the file index's stats: one lstat per entry of a folder, a folder per round trip (index-scan.ts).
 * - archive batches: many small files the walker produced read in one round trip, each checked
 *   to be the file walked, and for ZIP deflated with its CRC taken there too (archive downloads:
 *   10,000 small files cost three libuv round trips each and a deflate on the event loop).
 * The event loop never waits on a synchronous call. Each kind has its own workers, so a huge
 * listing never holds up downloads.
 *
 * Memory (bench/README.md "Listing memory"): fs.readdir's scandir holds all of a folder's names at
 * once in C memory on a libuv pool thread, and glibc keeps that thread's malloc arena that big
 * afterwards (after 300,000-entry listings the four pool threads' arenas held ~75 MB more); read
 * here 1,024 entries at a time, the names live in the worker's V8 heap. After big listings the
 * listing workers are stopped (`retireListingWorkers`, from release.ts), which gives their V8
 * heaps back.
 *
 * The worker is evaluated from source text so the same code runs from `src/` (tests) and `dist/`.
 */
import { Worker } from 'node:worker_threads';
import { shareOf } from '../cluster/budget.js';

/** An entry's type as the folder reports it (`FolderNames.types`). */
export const DIRENT = {
  /** The file system does not say: lstat tells. */
  unknown: 0,
  file: 1,
  folder: 2,
  link: 3,
  /** A FIFO, socket or device. */
  special: 4,
} as const;

/** A folder's entry names, sorted by code units, and their types (`DIRENT`) by position. */
export interface FolderNames {
  names: string[];
  types: number[];
}

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
  /** Creation time in ms as \`Stats\` gives it: the birth time, or the change time where there is none (WebDAV's creationdate). */
  created: Float64Array;
  /** Real path of a link's target, by entry index (links only). */
  real: Record<number, string>;
}

/** The workers' nice value (Linux): below the main thread's 0. */
export const WORKER_NICE = 10;
/** Entries read from a folder per system call. */
const FOLDER_READ = 1024;
/** Names per message when a worker hands a folder's names over. */
const NAMES_PER_MESSAGE = 2048;
/** The archive walk: entries statted in the folder read's own round trip; the rest go in parts of WALK_PART. */
export const WALK_FIRST = 1024;
export const WALK_PART = 4096;

const WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
// Bulk work yields to the request handling (and to anything else on the machine) when the cores
// are busy: on Linux a thread has its own nice value (elsewhere this does nothing).
// Only when /proc is this process's own (not another PID namespace's, where the id would name
// some other thread).
try {
  if (workerData.nice && fs.readlinkSync('/proc/self') === String(process.pid)) {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    if (tid > 0) require('node:os').setPriority(tid, workerData.nice);
  }
} catch {}
const S_IFMT = fs.constants.S_IFMT, S_IFLNK = fs.constants.S_IFLNK;
// O_NOFOLLOW: the path is fully resolved, a link there now is a swap; O_NONBLOCK: a FIFO put there
// instead of the file must not hang the worker on open.
const READ_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;
function inside(root, p) { return p === root || p.startsWith(root.endsWith('/') ? root : root + '/'); }
function typeOf(d) {
  return d.isFile() ? 1 : d.isDirectory() ? 2 : d.isSymbolicLink() ? 3
    : d.isFIFO() || d.isSocket() || d.isCharacterDevice() || d.isBlockDevice() ? 4 : 0;
}
// The entries of a folder, ${FOLDER_READ} per system call (fs.readdir's scandir holds all the names
// at once in C memory), sorted by code units (the natural sort then finds them nearly in order),
// handed over ${NAMES_PER_MESSAGE} at a time with the types that are not 'file' (few) as
// [position, type] pairs; the last message answers.
function list({ id, dir }) {
  const h = fs.opendirSync(dir, { bufferSize: ${FOLDER_READ} });
  const names = [];
  const odd = new Map();
  try {
    for (let d = h.readSync(); d !== null; d = h.readSync()) {
      names.push(d.name);
      const t = typeOf(d);
      if (t !== 1) odd.set(d.name, t);
    }
  } finally {
    h.closeSync();
  }
  names.sort();
  for (let from = 0; from < names.length; from += ${NAMES_PER_MESSAGE}) {
    const part = names.slice(from, from + ${NAMES_PER_MESSAGE});
    const types = [];
    if (odd.size > 0) for (let k = 0; k < part.length; k++) { const t = odd.get(part[k]); if (t !== undefined) types.push(k, t); }
    parentPort.postMessage({ id, part: true, names: part, types });
  }
  return [{ id }, []];
}
function fail(id, e) { return { id, error: { code: e && e.code, message: String(e && e.message), syscall: e && e.syscall } }; }
function stats({ id, dir, root, joined, n }) {
  const names = n === 0 ? [] : joined.split('\0');
  const kind = new Uint8Array(n), size = new Float64Array(n), sec = new Float64Array(n);
  const nsec = new Uint32Array(n), mode = new Uint32Array(n), created = new Float64Array(n), real = {};
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
    // As Stats' birthtimeMs / ctimeMs: seconds * 1e3 + nanoseconds / 1e6.
    const c = st.birthtimeNs > 0n ? st.birthtimeNs : st.ctimeNs;
    let cs = c / B, cns = c % B;
    if (cns < 0n) { cns += B; cs -= 1n; }
    created[i] = Number(cs) * 1e3 + Number(cns) / 1e6;
  }
  return [{ id, kind, size, sec, nsec, mode, created, real }, [kind.buffer, size.buffer, sec.buffer, nsec.buffer, mode.buffer, created.buffer]];
}
// The file index's stats (fs/index-scan.ts): lstat only — a link is reported as a link with its
// own size and never followed, so no root to judge targets against. Per entry: 1 when lstat
// answered (0: gone or unreadable), st_mode, size, whole mtime ms, inode.
function lstats({ id, dir, joined, n }) {
  const names = n === 0 ? [] : joined.split('\0');
  const ok = new Uint8Array(n), mode = new Uint32Array(n), size = new Float64Array(n);
  const mtime = new Float64Array(n), ino = new Float64Array(n);
  const prefix = dir.endsWith('/') ? dir : dir + '/';
  for (let i = 0; i < n; i++) {
    let st;
    try { st = fs.lstatSync(prefix + names[i]); } catch { continue; }
    ok[i] = 1;
    mode[i] = st.mode;
    size[i] = st.size;
    mtime[i] = Math.floor(st.mtimeMs);
    ino[i] = st.ino;
  }
  return [{ id, ok, mode, size, mtime, ino }, [ok.buffer, mode.buffer, size.buffer, mtime.buffer, ino.buffer]];
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
// Status per file of a batch: 0 read, 1 no longer the file walked, 2 an error (code in codes).
function readSmall(f) {
  let fd;
  try { fd = fs.openSync(f.real, READ_FLAGS); } catch (e) { return e && e.code === 'ELOOP' ? 1 : e; }
  try {
    const st = fs.fstatSync(fd);
    if (st.dev !== f.dev || st.ino !== f.ino || !st.isFile()) return 1;
    const bytes = Buffer.allocUnsafe(f.size);
    let off = 0;
    while (off < f.size) { const n = fs.readSync(fd, bytes, off, f.size - off, off); if (n === 0) break; off += n; }
    return off === f.size ? bytes : bytes.subarray(0, off);
  } catch (e) { return e; } finally { fs.closeSync(fd); }
}
// A batch of small files: their bytes (or, for ZIP, the body to store) one after the other in one
// buffer; per file status, original size, body length, CRC-32 and whether the body is deflated.
function batch({ id, files, level }) {
  const n = files.length;
  const status = new Uint8Array(n), size = new Float64Array(n), length = new Float64Array(n);
  const crc = new Float64Array(n), deflated = new Uint8Array(n), codes = {};
  const bodies = [];
  for (let i = 0; i < n; i++) {
    const f = files[i];
    const r = readSmall(f);
    if (r === 1) { status[i] = 1; continue; }
    if (!(r instanceof Uint8Array)) { status[i] = 2; codes[i] = (r && r.code) || 'EIO'; continue; }
    let body = r;
    size[i] = r.length;
    if (level !== null) {
      crc[i] = r.length ? zlib.crc32(r) : 0;
      if (f.deflate && r.length > 0) {
        const d = zlib.deflateRawSync(r, { level });
        if (d.length < r.length) { body = d; deflated[i] = 1; }
      }
    }
    length[i] = body.length;
    bodies.push(body);
  }
  const all = Buffer.concat(bodies);
  const data = new Uint8Array(all.buffer, all.byteOffset, all.byteLength);
  const transfer = [status.buffer, size.buffer, length.buffer, crc.buffer, deflated.buffer];
  // Buffer.concat of small parts may sit in the shared pool: only a buffer of its own moves.
  if (all.byteOffset === 0 && all.buffer.byteLength === all.byteLength) transfer.push(all.buffer);
  return [{ id, status, size, length, crc, deflated, codes, data }, transfer];
}
// Small extracted files (fs/extract.ts writeSmall): each body inflated (method 8) or as stored (0),
// its size and CRC-32 checked against the archive's directory (the inflated size is bounded by
// it: a lying entry cannot unpack to more), then written to a new file — O_EXCL | O_NOFOLLOW:
// never over a name that exists, never through a link — with its modification time. The paths
// reach the staging folders through their descriptors (/proc/self/fd/N/name). Stops at the
// first failure and says which file and why.
const WRITE_FLAGS = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW;
function write({ id, files, data, mode }) {
  let at = 0;
  for (let i = 0; i < files.length; i++) {
    const f = files[i];
    const body = Buffer.from(data.buffer, data.byteOffset + at, f.length);
    at += f.length;
    let out;
    try {
      out = f.method === 8 ? zlib.inflateRawSync(body, { maxOutputLength: Math.max(1, f.size) }) : body;
    } catch (e) {
      return [{ id, failed: i, kind: e && e.code === 'ERR_BUFFER_TOO_LARGE' ? 'size' : 'damaged' }, []];
    }
    if (out.length !== f.size) return [{ id, failed: i, kind: 'size' }, []];
    if ((out.length ? zlib.crc32(out) : 0) !== f.crc) return [{ id, failed: i, kind: 'crc' }, []];
    let fd;
    try {
      fd = fs.openSync(f.path, WRITE_FLAGS, mode);
      let off = 0;
      while (off < out.length) off += fs.writeSync(fd, out, off, out.length - off);
      if (f.mtime !== null) fs.futimesSync(fd, f.mtime, f.mtime);
      fs.closeSync(fd);
    } catch (e) {
      if (fd !== undefined) try { fs.closeSync(fd); } catch {}
      return [{ id, failed: i, kind: 'errno', code: e && e.code, message: String(e && e.message) }, []];
    }
  }
  return [{ id, failed: -1 }, []];
}
// The archive walk (fs/walk-batched.ts): a folder's names (sorted by code units) and the lstat of
// the first ${WALK_FIRST} of them in one round trip, the rest asked for by name ('walkstat'). lstat
// only: a link is reported as a link and judged by the main thread. Per entry: type (0 gone,
// 1 file, 2 folder, 3 link, 4 other, 5 unreadable: errno code in codes), st_mode, size, mtime ms,
// device and inode (to check later that a file read is the one walked).
function lstatList(dir, names) {
  const n = names.length;
  const type = new Uint8Array(n), mode = new Uint32Array(n), size = new Float64Array(n);
  const mtime = new Float64Array(n), dev = new Float64Array(n), ino = new Float64Array(n), codes = {};
  const prefix = dir.endsWith('/') ? dir : dir + '/';
  for (let i = 0; i < n; i++) {
    let st;
    try { st = fs.lstatSync(prefix + names[i]); } catch (e) {
      if (!(e && e.code === 'ENOENT')) { type[i] = 5; codes[i] = (e && e.code) || 'EIO'; }
      continue;
    }
    type[i] = st.isFile() ? 1 : st.isDirectory() ? 2 : st.isSymbolicLink() ? 3 : 4;
    mode[i] = st.mode; size[i] = st.size; mtime[i] = st.mtimeMs; dev[i] = st.dev; ino[i] = st.ino;
  }
  return [{ type, mode, size, mtime, dev, ino, codes }, [type.buffer, mode.buffer, size.buffer, mtime.buffer, dev.buffer, ino.buffer]];
}
// The folder walked is opened once (O_NOFOLLOW) and checked: the kernel's name for it is 'dir'
// (no component on the way turned into a link) and, with 'expect', it is the very folder its
// parent's lstat saw (device and inode). Its names are read and lstat'ed through the descriptor
// (/proc/self/fd/N, as fs/dirfd.ts): a folder swapped for a link to the outside since it was
// statted cannot lead the walk there, and the files found out there would pass the read's check.
const WALK_DIR_FLAGS = fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW;
function openWalked(dir, expect) {
  const fd = fs.openSync(dir, WALK_DIR_FLAGS);
  try {
    let ok = fs.readlinkSync('/proc/self/fd/' + fd) === path.resolve(dir);
    if (ok && expect) { const st = fs.fstatSync(fd); ok = st.dev === expect.dev && st.ino === expect.ino; }
    if (!ok) throw Object.assign(new Error('the folder changed since it was walked'), { code: 'ECHANGED' });
    return fd;
  } catch (e) { fs.closeSync(fd); throw e; }
}
function walkdir({ id, dir, expect }) {
  const fd = openWalked(dir, expect);
  try {
    const via = '/proc/self/fd/' + fd;
    const h = fs.opendirSync(via, { bufferSize: ${FOLDER_READ} });
    const names = [];
    try { for (let d = h.readSync(); d !== null; d = h.readSync()) names.push(d.name); } finally { h.closeSync(); }
    names.sort();
    const [first, transfer] = lstatList(via, names.length > ${WALK_FIRST} ? names.slice(0, ${WALK_FIRST}) : names);
    return [{ id, joined: names.join('\0'), n: names.length, first }, transfer];
  } finally { fs.closeSync(fd); }
}
function walkstat({ id, dir, expect, joined, n }) {
  const fd = openWalked(dir, expect);
  try {
    const [stats, transfer] = lstatList('/proc/self/fd/' + fd, n === 0 ? [] : joined.split('\0'));
    return [{ id, stats }, transfer];
  } finally { fs.closeSync(fd); }
}
parentPort.on('message', (msg) => {
  let out;
  try {
    out = msg.op === 'list' ? list(msg) : msg.op === 'walkdir' ? walkdir(msg) : msg.op === 'walkstat' ? walkstat(msg) : msg.op === 'batch' ? batch(msg) : msg.op === 'write' ? write(msg) : msg.op === 'lstat' ? lstats(msg) : msg.real === undefined ? stats(msg) : read(msg);
  } catch (e) { out = [fail(msg.id, e), []]; }
  parentPort.postMessage(out[0], out[1]);
});
`;

/** Stats of a list of names, by their position in the list. */
export type StatPart = Omit<DirStats, 'names'>;
/** A file part read by a worker, or `changed` when the file is no longer the one resolved. */
type ReadPart = { bytes: Uint8Array } | { changed: true };
type Reply<T> = ({ id: number } & T) | { id: number; error: { code?: string; message: string; syscall?: string } };

/** A message before the answer (a folder's names, a part at a time). */
type Part = { id: number; part: true } & object;

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  onPart?: (m: never) => void;
}

class PoolWorker {
  readonly worker: Worker;
  readonly pending = new Map<number, Pending>();
  constructor(nice: number, onExit: (w: PoolWorker) => void) {
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { nice } });
    this.worker.unref();
    this.worker.on('message', (m: Reply<object> | Part) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      if ('part' in m) return p.onPart?.(m as never);
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

/** Up to `size` workers at `nice`, started on demand; a dead one is replaced at the next call. */
class Pool {
  readonly workers: PoolWorker[] = [];
  /** Stop the workers as soon as none has work (`retire`). */
  private retiring = false;
  constructor(
    /** Workers at most: a function, as this process's share of the box is set after import (cluster/budget.ts). */
    private readonly sizeOf: () => number,
    readonly nice: number,
  ) {}

  get size(): number {
    return this.sizeOf();
  }

  private spawn(): PoolWorker {
    const w = new PoolWorker(this.nice, (dead) => {
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

  ask<T>(w: PoolWorker, msg: object, onPart?: (m: never) => void): Promise<T> {
    const id = ++seq;
    const answer = new Promise<T>((resolve, reject) => {
      w.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, onPart });
      w.worker.postMessage({ ...msg, id });
    });
    const settled = () => this.retiring && this.retire();
    answer.then(settled, settled);
    return answer;
  }

  /** Stops the workers now if none has work, else once none has (work in flight finishes). */
  retire(): void {
    this.retiring = this.workers.some((w) => w.pending.size > 0);
    if (!this.retiring) void this.close();
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.splice(0).map((w) => w.worker.terminate()));
  }
}

const POOL_SIZE = 2;
/** POOL_SIZE for the whole box: with `--workers N` each request process has its part (at least one). */
const poolSize = () => shareOf(POOL_SIZE);
const statPool = new Pool(poolSize, WORKER_NICE);
/**
 * Folders are read by a worker of their own at the main thread's priority, as libuv's threads read
 * them for fs.readdir: a listing waits for the whole folder before its first piece.
 */
const listPool = new Pool(() => 1, 0);
// Small reads allocate only what they answer: their workers stay.
const readPool = new Pool(poolSize, WORKER_NICE);

function askStats(w: PoolWorker, dir: string, root: string, names: string[]): Promise<StatPart> {
  // One string instead of an array of 100,000: far cheaper to pass between threads. NUL never
  // occurs in a file name.
  return statPool.ask<StatPart>(w, { dir, root, joined: names.join('\0'), n: names.length });
}

/** Big folders are split between the workers (the stats are the cost, S85 benchmark). */
const SPLIT_AT = 4096;

/**
 * The entries of the folder `dir` (a real path), read by a worker. Errors reject with the errno
 * code.
 */
export async function readFolder(dir: string): Promise<FolderNames> {
  const names: string[] = [];
  const types: number[] = [];
  const onPart = (m: { names: string[]; types: number[] }) => {
    const at = names.length;
    names.push(...m.names);
    for (let k = at; k < names.length; k++) types.push(DIRENT.file);
    for (let k = 0; k < m.types.length; k += 2) types[at + m.types[k]!] = m.types[k + 1]!;
  };
  await listPool.ask(listPool.pick(1)[0]!, { op: 'list', dir }, onPart as (m: never) => void);
  return { names, types };
}

/**
 * One readdir plus one lstat per entry of `dir` (a real folder path inside `root`), links resolved
 * and judged against `root`. Errors of the readdir reject with the errno code.
 */
export async function statDirectory(dir: string, root: string): Promise<DirStats> {
  return statNames(dir, root, (await readFolder(dir)).names);
}

/**
 * The stats of `names` (a readdir of `dir`), as `statDirectory`. The workers are asked at once:
 * the caller may work on the names while they stat.
 */
export async function statNames(dir: string, root: string, names: string[]): Promise<DirStats> {
  const n = names.length;
  if (n < SPLIT_AT) return { names, ...(await askStats(statPool.pick(1)[0]!, dir, root, names)) };
  const workers = statPool.pick(poolSize());
  const per = Math.ceil(n / workers.length);
  const parts = await Promise.all(workers.map((w, k) => askStats(w, dir, root, names.slice(k * per, (k + 1) * per))));
  const out: DirStats = {
    names,
    kind: new Uint8Array(n),
    size: new Float64Array(n),
    sec: new Float64Array(n),
    nsec: new Uint32Array(n),
    mode: new Uint32Array(n),
    created: new Float64Array(n),
    real: {},
  };
  parts.forEach((p, k) => {
    const at = k * per;
    out.kind.set(p.kind, at);
    out.size.set(p.size, at);
    out.sec.set(p.sec, at);
    out.nsec.set(p.nsec, at);
    out.mode.set(p.mode, at);
    out.created.set(p.created, at);
    for (const [i, r] of Object.entries(p.real)) out.real[at + Number(i)] = r;
  });
  return out;
}

/** `lstatNames`' answer, by position in the names asked. */
export interface LstatPart {
  /** 1 when the entry was lstat'ed, 0 when it vanished or could not be read. */
  ok: Uint8Array;
  /** st_mode of the entry itself (a link's own). */
  mode: Uint32Array;
  size: Float64Array;
  /** Modification time in whole ms (`Math.floor(mtimeMs)`). */
  mtime: Float64Array;
  ino: Float64Array;
}

/**
 * The file index's stats: one worker at the main thread's priority, as libuv's threads ran its
 * lstat calls before. At nice 10 (the listings' stat workers) a cold build of a million entries
 * took 573 s instead of ~150 s on a machine loaded 15 times over: the build's stats got ~1 % of a
 * core. One worker, not libuv's four threads, competes with the event loop.
 */
const indexPool = new Pool(() => 1, 0);

/**
 * One lstat per name of `dir` (a real folder path; names from its readdir, never holding a slash),
 * in the index's worker (the file index's build: a million lstat calls as libuv round trips were
 * a callback each on the event loop). Links are not followed.
 */
export async function lstatNames(dir: string, names: string[]): Promise<LstatPart> {
  return indexPool.ask<LstatPart>(indexPool.pick(1)[0]!, { op: 'lstat', dir, joined: names.join('\0'), n: names.length });
}

/**
 * The stats of several lists of names of `dir`, all asked at once and shared out between the
 * workers in turn, so that they arrive about in list order (a listing streamed as it is statted).
 * Every promise already has a handler: a caller that stops awaiting leaves no unhandled rejection.
 */
export function statBatches(dir: string, root: string, batches: string[][]): Promise<StatPart>[] {
  if (batches.length === 0) return [];
  const workers = statPool.pick(Math.min(poolSize(), batches.length));
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

/** A small file for `readBatch`: as the walker found it. */
export interface BatchFile {
  real: string;
  /** Bytes to read at most (the walker's size). */
  size: number;
  dev: number;
  ino: number;
  /** ZIP: deflate it (not for types that are compressed already). */
  deflate?: boolean;
}

/** One file of a batch: read (`body`), no longer the file walked (`changed`), or an errno `code`. */
export type BatchResult =
  | { body: Buffer; size: number; crc: number; deflated: boolean }
  | { changed: true }
  | { code: string };

interface BatchReply {
  status: Uint8Array;
  size: Float64Array;
  length: Float64Array;
  crc: Float64Array;
  deflated: Uint8Array;
  codes: Record<number, string>;
  data: Uint8Array;
}

/**
 * Archive downloads use both cores: batches of files go to two workers at the main thread's
 * priority (a download is a request someone waits for), started on demand.
 */
const batchPool = new Pool(poolSize, 0);

/**
 * Reads a batch of small regular files (paths the walker produced) in one worker round trip, each
 * checked to be the file walked (same device and inode, not a link) and read up to its `size`.
 * With `zipLevel` (a zlib level) each also gets its CRC-32 and, where asked and smaller, a raw
 * deflate body (`deflated`); without it `body` is the bytes, crc 0.
 */
export async function readBatch(files: BatchFile[], zipLevel: number | null): Promise<BatchResult[]> {
  const msg = { op: 'batch', files, level: zipLevel };
  const r = await batchPool.ask<BatchReply>(batchPool.pick(1)[0]!, msg);
  const data = Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength);
  const out: BatchResult[] = [];
  let at = 0;
  for (let i = 0; i < files.length; i++) {
    if (r.status[i] === 1) out.push({ changed: true });
    else if (r.status[i] === 2) out.push({ code: r.codes[i] ?? 'EIO' });
    else {
      const len = r.length[i]!;
      out.push({ body: data.subarray(at, at + len), size: r.size[i]!, crc: r.crc[i]!, deflated: r.deflated[i] === 1 });
      at += len;
    }
  }
  return out;
}

/** A small file for `writeBatch`: where it goes and what the archive's directory says of it. */
export interface WriteFile {
  /** A path through a staging folder's descriptor (fs/dirfd.ts viaFd). */
  path: string;
  /** 0 stored, 8 deflated (raw). */
  method: 0 | 8;
  /** Bytes it unpacks to, and their CRC-32. */
  size: number;
  crc: number;
  /** Modification time in seconds, or null. */
  mtime: number | null;
  /** Its body's bytes in the batch's data. */
  length: number;
}

/** How a batch went: all written, or the first file that failed and why. */
export type WriteOutcome =
  | { failed: -1 }
  | { failed: number; kind: 'damaged' | 'size' | 'crc' }
  | { failed: number; kind: 'errno'; code?: string; message: string };

/**
 * Extraction writes small files on both cores: batches go to two workers (with `--workers N`,
 * this process's part) at the main thread's priority (the user waits for the job), started on demand; one round trip per batch instead of
 * open, write, utimes and close on the libuv pool per file.
 */
const writePool = new Pool(poolSize, 0);

/** Unpacks and writes a batch of small files in one worker round trip (see `write` in the worker). */
export async function writeBatch(files: WriteFile[], data: Buffer, mode: number): Promise<WriteOutcome> {
  const msg = { op: 'write', files, data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), mode };
  return writePool.ask<WriteOutcome>(writePool.pick(1)[0]!, msg);
}

/**
 * Stops the listing workers (folder reads, stats) once they have no work, and with them their V8
 * heaps, where big listings leave garbage until the worker's next collection (release.ts calls it
 * after big listings). The next listing starts them again.
 */
export function retireListingWorkers(): void {
  statPool.retire();
  listPool.retire();
}

/** The listing workers running now (tests). */
export function listingWorkers(): number {
  return statPool.workers.length + listPool.workers.length;
}

/** lstat results of a folder's entries, by position (see `lstatList` in the worker). */
export interface WalkStats {
  /** 0 gone, 1 file, 2 folder, 3 link, 4 other, 5 unreadable (errno in `codes`). */
  type: Uint8Array;
  mode: Uint32Array;
  size: Float64Array;
  /** mtimeMs as Stats has it. */
  mtime: Float64Array;
  dev: Float64Array;
  ino: Float64Array;
  codes: Record<number, string>;
}

/** The archive walk's worker: one, at the main thread's priority (a download someone waits for). */
const walkPool = new Pool(() => 1, 0);

/** The device and inode a walked folder must still have (its parent's lstat, or the resolver's stat). */
export interface WalkedFolder {
  dev: number;
  ino: number;
}

/**
 * A folder's entry names (sorted by code units) and the lstat of the first WALK_FIRST of them, in
 * one worker round trip (the archive walk: one lstat per file as a libuv round trip was the largest
 * cost on the event loop). `dir` must be a real path (no link on the way) and, with `expect`, still
 * that folder: otherwise, and on errors of the folder's read, it rejects with an errno code
 * (ECHANGED for a folder swapped since).
 */
export async function walkFolder(dir: string, expect?: WalkedFolder): Promise<{ names: string[]; first: WalkStats }> {
  const w = walkPool.pick(1)[0]!;
  const msg = { op: 'walkdir', dir, expect: expect && { dev: expect.dev, ino: expect.ino } };
  const r = await walkPool.ask<{ joined: string; n: number; first: WalkStats }>(w, msg);
  return { names: r.n === 0 ? [] : r.joined.split('\0'), first: r.first };
}

/** The lstat of more `names` of `dir` (after `walkFolder`'s first part; same checks of the folder). */
export async function walkStats(dir: string, names: string[], expect?: WalkedFolder): Promise<WalkStats> {
  const w = walkPool.pick(1)[0]!;
  const msg = { op: 'walkstat', dir, expect: expect && { dev: expect.dev, ino: expect.ino }, joined: names.join('\0'), n: names.length };
  const r = await walkPool.ask<{ stats: WalkStats }>(w, msg);
  return r.stats;
}

/** Stops the workers (tests and shutdown; they are unref'd and never hold the process). */
export async function closeWorkerPools(): Promise<void> {
  await Promise.all([statPool.close(), readPool.close(), listPool.close(), indexPool.close(), batchPool.close(), writePool.close(), walkPool.close()]);
}
