/**
 * The file index (docs/api.md §24): every entry below the server root in the database, so that
 * search answers without walking and folders know their recursive size.
 *
 * - Built in the background at the first start (and again after an interrupted build), breadth
 *   first, a batch of rows per short transaction; progress in the log, /metrics and
 *   GET /api/index. Until it is ready, search walks as before and listings carry no folder sizes.
 * - Kept fresh by Coffer's own writes (fs/changes.ts, applied before the next search or listing
 *   reads the index), by the watcher (fs/watch.ts) for changes behind Coffer's back, and by a
 *   reconciliation at start and every `indexReconcileInterval`, which re-reads only the folders
 *   whose modification time changed (and so also repairs what an overflowed watcher lost).
 * - Every change of the index runs in one queue, one at a time: the build, the watcher's and
 *   the writes' paths, the reconciliation.
 * - Several processes on one database (`--workers N`, several instances): one of them maintains
 *   the index — it holds a lease in the database, renewed every `renewMs` and lost `leaseMs` after
 *   its last renewal — and is the only one that builds, watches, reconciles and applies changes.
 *   The others are readers: they answer search and folder sizes from the index once its stored
 *   state is ready, and send their own writes to the maintainer through the database's change
 *   queue (a read after a write waits until the maintainer applied it). A reader takes the lease
 *   when it expires; a maintainer that could not renew it stops maintaining at once.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { indexable, realRoot, scanEntry, scanFolder, type ScanEntry } from '../../fs/index-scan.js';
import { onWritten } from '../../fs/changes.js';
import { watchTree, type Watch } from '../../fs/watch.js';
import type { IndexRow, IndexStore } from './store.js';

export type IndexStatus = 'disabled' | 'building' | 'ready';
/** Whether this process maintains the index or only reads it (several processes on one database). */
export type IndexRole = 'maintainer' | 'reader';

export interface IndexProgress {
  status: IndexStatus;
  /** Entries in the index (counted as they are written during a build). */
  entries: number;
  /** Build: folders read of those found so far (a lower bound of the work; 0–100). */
  percent: number;
  /** Unix ms of the last finished build or reconciliation (0 = none yet). */
  updatedAt: number;
}

export interface FolderSizes {
  /** Recursive size of the folder in bytes. */
  size: number;
  /** Each direct child by name: a folder's recursive size, a file's size. */
  children: Map<string, number>;
}

/** What the search reads: an entry below the searched folder. */
export interface IndexHit {
  /** Path relative to the searched folder, "/"-separated. */
  rel: string;
  name: string;
  isDir: boolean;
  isLink: boolean;
}

type Log = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;

export interface IndexOptions {
  store: IndexStore;
  /** The server root as configured. */
  root: string;
  enabled: boolean;
  /** Reconciliation period in ms (0 = only at start and after watcher errors). */
  reconcileMs: number;
  log?: Log;
  /** The watcher (default on; tests turn it off to lose events on purpose). */
  watch?: boolean;
  /**
   * Rows per write at most while building. SQLite's parts are sized to about WRITE_BUDGET_MS each
   * below that (each is a transaction on the event loop); PostgreSQL's are this many.
   */
  batchRows?: number;
  /** Progress callback for /metrics. */
  onProgress?: (p: IndexProgress) => void;
  /** The maintainer's lease: how long it lasts after a renewal (ms; default LEASE_MS). */
  leaseMs?: number;
  /** How often the maintainer renews it, and a reader tries to take it (ms; default RENEW_MS). */
  renewMs?: number;
  /** How often the maintainer reads the change queue (ms; default POLL_MS). */
  pollMs?: number;
  /** How long an answer waits at most for its writes to be queued (ms; default QUEUED_WAIT_MS). */
  queuedWaitMs?: number;
}

const ROOT_ID = 1;
const BATCH_ROWS = 500;
const FOLDERS_AT_ONCE = 4;
const LOG_EVERY_MS = 5000;
const SEARCH_PAGE = 2000;
/** How long a search or a listing waits for announced changes to be applied. */
const READ_WAIT_MS = 1000;
/** The maintainer's lease lasts this long after each renewal: a dead one is replaced after it. */
export const LEASE_MS = 30_000;
/** The maintainer renews its lease, and readers try to take it, this often. */
export const RENEW_MS = 10_000;
/** The maintainer reads the change queue this often. */
export const POLL_MS = 300;
/** A reader reads the index's stored state (ready or not, progress) at most this often. */
const STATE_MS = 2000;
/** Queued changes the maintainer takes at a time. */
const TAKE_CHANGES = 500;
/**
 * How long a reader's answer waits at most for its writes to be queued (app.ts onSend): a database
 * that does not answer (PostgreSQL unreachable: the pool has no timeout) must not hold every answer.
 */
const QUEUED_WAIT_MS = 5000;
/** How often a reader asks whether the maintainer has applied its changes. */
const QUEUED_POLL_MS = 25;
/** Paths that could not be indexed the maintainer stores for the readers; more count as the root. */
const MAX_FAILED_STORED = 100;

/** The stored list of paths that could not be indexed; anything unreadable counts as the root. */
function parseFailed(value: string | undefined): string[] {
  if (value === undefined) return [];
  try {
    const list: unknown = JSON.parse(value);
    if (Array.isArray(list) && list.every(queueablePath)) return list;
  } catch {
    // below
  }
  return [''];
}

/**
 * A path the change queue may carry: "" (the root) or "/"-separated names below it, none of them
 * empty, "." or "..", no NUL. Rows come from the database: anything else is dropped unapplied.
 */
export function queueablePath(rel: unknown): rel is string {
  if (typeof rel !== 'string') return false;
  if (rel === '') return true;
  if (!rel.startsWith('/') || rel.includes('\0')) return false;
  return rel
    .slice(1)
    .split('/')
    .every((n) => n !== '' && n !== '.' && n !== '..');
}

const parentOf = (rel: string) => rel.slice(0, rel.lastIndexOf('/'));
/** The rows on the way from the root down to `rel`, `rel` excluded ("" first). */
function ancestorsOf(rel: string): string[] {
  const out = [''];
  for (let i = rel.indexOf('/', 1); i > 0; i = rel.indexOf('/', i + 1)) out.push(rel.slice(0, i));
  return rel === '' ? [] : out;
}

const fieldsOf = (e: ScanEntry) => ({
  is_dir: e.isDir ? 1 : 0,
  is_link: e.isLink ? 1 : 0,
  size: e.size,
  mtime: e.mtime,
  inode: e.inode,
});
const yieldLoop = () => new Promise<void>((r) => setImmediate(r));

/**
 * How long one SQLite write of the build may hold the event loop (ms, aimed at). A write of 500
 * rows into the table and its trigram name index took up to tens of ms on a busy machine:
 * /health's p99 during a cold build of a million entries was 51.7 ms on the quiet machine.
 */
export const WRITE_BUDGET_MS = 4;
/** Rows per SQLite write at least (a write of one row costs about the commit alone). */
const MIN_PART = 16;

/**
 * Writes `items` in parts, the event loop turning between them. With `blocking` (SQLite: each part
 * is one synchronous transaction) the parts are sized as they go so that each takes about
 * WRITE_BUDGET_MS: the time of a full part scales the next (at most doubling, between MIN_PART
 * and `maxRows`). Otherwise (PostgreSQL: the event loop is free while a write waits) every part
 * has `maxRows` items. One pacer per kind of write: its size carries over between calls.
 */
export function writePacer(maxRows: number, blocking: boolean, budgetMs = WRITE_BUDGET_MS) {
  let n = blocking ? Math.min(maxRows, MIN_PART * 4) : maxRows;
  return {
    get partSize() {
      return n;
    },
    async write<T>(items: readonly T[], writePart: (part: readonly T[]) => Promise<void>): Promise<void> {
      for (let i = 0; i < items.length; ) {
        const part = items.slice(i, i + n);
        const t0 = performance.now();
        await writePart(part);
        i += part.length;
        if (blocking && part.length === n) {
          const ms = Math.max(performance.now() - t0, 0.01);
          n = Math.max(Math.min(MIN_PART, maxRows), Math.min(maxRows, 2 * n, Math.floor((n * budgetMs) / ms)));
        }
        await yieldLoop();
      }
    },
  };
}

/** Tree order of a search walk: parents first, siblings by name (code units). */
export function treeOrder(a: string, b: string): number {
  const sa = a.split('/');
  const sb = b.split('/');
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    if (sa[i] !== sb[i]) return sa[i]! < sb[i]! ? -1 : 1;
  }
  return sa.length - sb.length;
}

export function createIndexService(opts: IndexOptions) {
  const { store } = opts;
  let log = opts.log;
  const batchRows = opts.batchRows ?? BATCH_ROWS;
  const inserts = writePacer(batchRows, store.blocking === true);
  const treeWrites = writePacer(batchRows * 4, store.blocking === true);
  const leaseMs = opts.leaseMs ?? LEASE_MS;
  const renewMs = opts.renewMs ?? RENEW_MS;
  const pollMs = opts.pollMs ?? POLL_MS;
  let status: IndexStatus = opts.enabled ? 'building' : 'disabled';
  let root = '';
  let nextId = ROOT_ID + 1;
  let stopped = false;
  const progress = { entries: 0, foldersDone: 0, foldersKnown: 1, updatedAt: 0 };
  let watch: Watch | undefined;
  let watching: Promise<void> | undefined;
  let offWrites: (() => void) | undefined;
  /** The reconciliation's period (maintainer). */
  let timer: NodeJS.Timeout | undefined;
  /** Renewing or taking the lease; reading the change queue (maintainer) or the stored state (reader). */
  let leaseTimer: NodeJS.Timeout | undefined;
  let pollTimer: NodeJS.Timeout | undefined;
  /** This process in the lease (random: a restarted process is another holder). */
  const holderId = randomUUID();
  let role: IndexRole = 'reader';
  /** Counts the turns of role: work started for one turn (a watcher's start) sees when it is over. */
  let term = 0;
  /** When the lease was last renewed (performance.now(), taken before the renewal was asked: the lease lasts at least that long). */
  let renewedAt = 0;
  let leaseTick: Promise<void> | undefined;
  /** Reader: when the stored state was last read, and the build's percent stored by the maintainer. */
  let stateReadAt = 0;
  let storedPercent = 0;
  /** Reader: its writes not yet queued in the database (relative path → deep)... */
  const outbox = new Map<string, boolean>();
  /**
   * The last batch of the outbox scheduled for the queue: it resolves once every write announced
   * before it was scheduled is queued (or failed to be). `batchOpen`: it has not taken the
   * outbox yet, so a write announced now joins it.
   */
  let sending: Promise<void> = Promise.resolve();
  let batchOpen = false;
  /** Batches scheduled and not finished. */
  let batches = 0;
  /** ...and those queued and not yet applied by the maintainer (id → relative path). */
  const sent = new Map<number, string>();
  let consuming: Promise<void> | undefined;
  /** This process maintains the index now (and is not stopping). */
  const maintaining = () => !stopped && role === 'maintainer';
  /** The one queue of index changes. */
  let queue: Promise<unknown> = Promise.resolve();
  /** Paths announced and not yet applied: relative path → deep. */
  const pending = new Map<string, boolean>();
  /** The announced paths the drain is applying now (taken out of `pending`). */
  let applying: ReadonlyMap<string, boolean> = new Map();
  let draining: Promise<void> | undefined;
  /** The drain's rounds begun and finished, and who waits for the end of the next one. */
  let roundsBegun = 0;
  let roundsDone = 0;
  let roundWaiters: (() => void)[] = [];
  const endRound = () => {
    const waiters = roundWaiters;
    roundWaiters = [];
    waiters.forEach((w) => w());
  };
  let reconcileWanted = false;
  /**
   * Paths whose last sync failed (a row the database refused: PostgreSQL's unique index takes no
   * path longer than about 2,700 bytes), so the index misses something at or below them; tried
   * again at the next change and reconciliation.
   */
  const failed = new Set<string>();
  /** Reader: the maintainer's `failed`, as it stored it (`[""]`: too many, the whole root). */
  let storedFailed: string[] = [];

  /** `syncPath`, its failure recorded instead of stopping the caller's other paths. */
  async function trySync(rel: string, deep: boolean): Promise<void> {
    const before = failed.size;
    try {
      await syncPath(rel, deep);
      failed.delete(rel);
    } catch (err) {
      failed.add(rel);
      log?.warn({ err }, 'file index: an entry could not be indexed (sizes below it are measured on disk)');
    }
    if (failed.size !== before) await storeFailed();
  }

  /** Maintainer: `failed` for the readers' exact folder sizes (quotas), at most MAX_FAILED_STORED paths. */
  async function storeFailed(): Promise<void> {
    const list = failed.size > MAX_FAILED_STORED ? [''] : [...failed];
    await store.setState({ failed: JSON.stringify(list) }).catch((err: unknown) => log?.warn({ err }, 'file index: its state could not be stored'));
  }

  const snapshot = (): IndexProgress => ({
    status,
    entries: progress.entries,
    percent:
      status === 'ready'
        ? 100
        : status === 'disabled'
          ? 0
          : role === 'reader'
            ? Math.min(99, storedPercent)
            : Math.min(99, Math.floor((100 * progress.foldersDone) / Math.max(1, progress.foldersKnown))),
    updatedAt: progress.updatedAt,
  });
  const report = () => opts.onProgress?.(snapshot());

  function enqueue<T>(work: () => Promise<T>): Promise<T> {
    const run = queue.then(work);
    queue = run.catch((err: unknown) => log?.error({ err }, 'file index update failed'));
    return run;
  }

  const relOf = (real: string): string | null => {
    if (!root) return null;
    if (real === root) return '';
    if (!real.startsWith(root === '/' ? '/' : root + '/')) return null;
    return root === '/' ? real : real.slice(root.length);
  };
  const realOf = (rel: string) => root + rel;

  /**
   * Inserts everything below the folder row `top` (not `top` itself), breadth first, and sets
   * the tree sizes of the folders it inserted. Returns the total size below `top`.
   */
  async function scanBelow(top: { id: number; rel: string }, counting: boolean): Promise<number> {
    const folderIds: number[] = [top.id];
    const folderParent: number[] = [-1];
    const folderSum: number[] = [0];
    const todo: { idx: number; rel: string }[] = [{ idx: 0, rel: top.rel }];
    let rows: IndexRow[] = [];
    const flush = async () => {
      if (rows.length === 0) return;
      const out = rows;
      rows = [];
      await inserts.write(out, (part) => store.insert(part));
      if (counting) progress.entries += out.length;
    };
    const readOne = async (f: { idx: number; rel: string }) => {
      // A folder added while the watcher runs is watched before it is read (fs/watch.ts, covers).
      watch?.cover(realOf(f.rel));
      const entries = (await scanFolder(realOf(f.rel))) ?? [];
      const parentId = folderIds[f.idx]!;
      for (const e of entries) {
        const rel = `${f.rel}/${e.name}`;
        const id = nextId++;
        rows.push({
          id,
          parent: parentId,
          path: rel,
          name: e.name,
          ...fieldsOf(e),
          tree_size: e.isDir ? 0 : e.size,
        });
        if (e.isDir) {
          folderIds.push(id);
          folderParent.push(f.idx);
          folderSum.push(0);
          todo.push({ idx: folderIds.length - 1, rel });
          if (counting) progress.foldersKnown++;
        } else folderSum[f.idx]! += e.size;
      }
      if (counting) progress.foldersDone++;
      if (rows.length >= batchRows) await flush();
    };
    let lastLog = Date.now();
    while (todo.length > 0 && maintaining()) {
      const part = todo.splice(0, FOLDERS_AT_ONCE);
      await Promise.all(part.map(readOne));
      if (counting && Date.now() - lastLog >= LOG_EVERY_MS) {
        lastLog = Date.now();
        const p = snapshot();
        log?.info({ entries: p.entries, percent: p.percent }, 'file index building');
        // For the readers' GET /api/index and /metrics.
        await store.setState({ entries: String(p.entries), percent: String(p.percent) });
        report();
      }
    }
    await flush();
    // Children were found after their parents: from the last to the first, each adds to its parent.
    for (let i = folderIds.length - 1; i > 0; i--) folderSum[folderParent[i]!]! += folderSum[i]!;
    const pairs: [number, number][] = [];
    for (let i = 1; i < folderIds.length; i++) pairs.push([folderIds[i]!, folderSum[i]!]);
    await treeWrites.write(pairs, (part) => store.setTreeSizes(part));
    return folderSum[0]!;
  }

  async function build(): Promise<void> {
    const started = Date.now();
    log?.info({ root }, 'file index build started');
    await store.setState({ status: 'building', root, entries: '0', percent: '0' });
    await store.clear();
    nextId = ROOT_ID + 1;
    progress.entries = 0;
    progress.foldersDone = 0;
    progress.foldersKnown = 1;
    const top = await scanEntry(root);
    await store.insert([
      { id: ROOT_ID, parent: 0, path: '', name: '', ...fieldsOf(top!), is_dir: 1, is_link: 0, tree_size: 0 },
    ]);
    progress.entries = 1;
    const bulk = store.bulk?.();
    let total: number;
    try {
      total = await scanBelow({ id: ROOT_ID, rel: '' }, true);
    } finally {
      await bulk?.end();
    }
    if (!maintaining()) return;
    await store.setTreeSizes([[ROOT_ID, total]]);
    progress.updatedAt = Date.now();
    await store.setState({ status: 'ready', root, builtAt: String(progress.updatedAt), updatedAt: String(progress.updatedAt) });
    status = 'ready';
    log?.info({ entries: progress.entries, ms: Date.now() - started }, 'file index ready');
    report();
  }

  /** Brings one row (and, for a folder, its children; `deep`: the whole subtree) in line with the disk. */
  async function syncPath(rel: string, deep: boolean): Promise<void> {
    if (!indexable(root, realOf(rel))) return;
    const row = await store.get(rel);
    const entry = await scanEntry(realOf(rel));
    if (rel === '') {
      if (row && entry) await syncFolder(row, entry, deep);
      return;
    }
    if (!entry) {
      if (row) await removeRow(row);
      return;
    }
    const parent = await store.get(parentOf(rel));
    if (!parent || parent.is_dir !== 1) {
      // The parent is not indexed yet (it was made and filled before its own event came).
      return syncPath(parentOf(rel), true);
    }
    if (row && row.is_dir === (entry.isDir ? 1 : 0)) {
      if (row.is_dir) return syncFolder(row, entry, deep);
      await store.update(row.id, { ...fieldsOf(entry), tree_size: entry.size });
      await store.addTreeSize(ancestorsOf(rel), entry.size - row.tree_size);
      return;
    }
    if (row) await removeRow(row);
    await addEntry(parent.id, rel, entry);
  }

  async function removeRow(row: IndexRow): Promise<void> {
    if (row.is_dir) watch?.uncover(realOf(row.path));
    await store.deleteSubtree(row.path);
    await store.addTreeSize(ancestorsOf(row.path), -row.tree_size);
  }

  async function addEntry(parentId: number, rel: string, entry: ScanEntry): Promise<void> {
    const id = nextId++;
    await store.insert([
      {
        id,
        parent: parentId,
        path: rel,
        name: entry.name,
        ...fieldsOf(entry),
        tree_size: entry.isDir ? 0 : entry.size,
      },
    ]);
    let size = entry.size;
    if (entry.isDir) {
      size = await scanBelow({ id, rel }, false);
      await store.setTreeSizes([[id, size]]);
    }
    await store.addTreeSize(ancestorsOf(rel), size);
  }

  /** A folder's direct children against the disk; `deep` also descends into the folders it keeps. */
  async function syncFolder(row: IndexRow, entry: ScanEntry, deep: boolean): Promise<void> {
    // Another folder than the one indexed at this name (removed and replaced at once, which the
    // watcher reports as a change, not a creation): watched as an added folder is, before it is
    // read (fs/watch.ts, covers); a cover of the old one watches the old folder.
    if (row.path !== '' && Number(row.inode) !== entry.inode) watch?.renew(realOf(row.path));
    const onDisk = await scanFolder(realOf(row.path));
    if (!onDisk) return;
    const known = new Map((await store.children(row.id)).map((c) => [c.name, c]));
    for (const e of onDisk) {
      const rel = `${row.path}/${e.name}`;
      const old = known.get(e.name);
      known.delete(e.name);
      if (!old) {
        await addEntry(row.id, rel, e);
      } else if (old.is_dir !== (e.isDir ? 1 : 0)) {
        await removeRow(old);
        await addEntry(row.id, rel, e);
      } else if (old.is_dir) {
        // A folder whose time changed has changed children: read too (its time is stored only then).
        if (deep || old.mtime !== e.mtime || old.inode !== e.inode) await syncFolder(old, e, deep);
      } else if (
        old.size !== e.size ||
        old.mtime !== e.mtime ||
        old.inode !== e.inode ||
        old.is_link !== (e.isLink ? 1 : 0)
      ) {
        await store.update(old.id, { ...fieldsOf(e), tree_size: e.size });
        await store.addTreeSize(ancestorsOf(rel), e.size - old.tree_size);
      }
    }
    for (const gone of known.values()) await removeRow(gone);
    await store.update(row.id, fieldsOf(entry));
  }

  /** Every indexed folder whose modification time changed is read again (and new folders in full). */
  async function reconcile(): Promise<{ folders: number; changed: number }> {
    const started = Date.now();
    let folders = 0;
    let changed = 0;
    for (let after = 0; maintaining();) {
      const page = await store.folders(after, 1000);
      if (page.length === 0) break;
      after = page[page.length - 1]!.id;
      for (const f of page) {
        folders++;
        const now = await scanEntry(realOf(f.path));
        if (now && now.isDir && now.mtime === f.mtime && now.inode === f.inode) continue;
        // Gone, replaced or changed: its row and children are brought in line (or removed).
        const still = await store.get(f.path);
        if (!still) continue; // removed with an ancestor meanwhile
        changed++;
        await trySync(f.path, false);
      }
      await yieldLoop();
    }
    progress.updatedAt = Date.now();
    await store.setState({ updatedAt: String(progress.updatedAt) });
    if (changed) log?.info({ folders, changed, ms: Date.now() - started }, 'file index reconciled');
    report();
    return { folders, changed };
  }

  function announce(real: string, deep: boolean): void {
    const rel = relOf(real);
    if (rel === null || status === 'disabled') return;
    if (role === 'maintainer') {
      pending.set(rel, (pending.get(rel) ?? false) || deep);
      void drain();
      return;
    }
    outbox.set(rel, (outbox.get(rel) ?? false) || deep);
    void send();
  }

  /**
   * Reader: writes the outbox into the database's change queue, for the maintainer. One batch at a
   * time, each taking what the outbox holds when it starts: a wait for the writes announced until
   * now ends after at most two batches, however many writes keep coming meanwhile.
   */
  function send(): Promise<void> {
    if (batchOpen) return sending;
    batchOpen = true;
    batches++;
    sending = sending.then(async () => {
      batchOpen = false;
      const changes = [...outbox].map(([path, deep]) => ({ path, deep }));
      outbox.clear();
      try {
        if (changes.length === 0) return;
        const ids = await store.pushChanges(changes);
        ids.forEach((id, i) => sent.set(id, changes[i]!.path));
      } catch (err) {
        log?.warn({ err }, 'file index: a change could not be queued for the maintainer (the next reconciliation finds it)');
      } finally {
        batches--;
      }
    });
    return sending;
  }

  /**
   * Reader: resolves once every change queued until now — its own and the other readers' — is
   * applied by the maintainer (it deleted their rows), or after `ms`, or when this process stops.
   */
  async function queueApplied(ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    await sending;
    const upTo = await store.lastChange();
    while (!stopped && (await store.queuedUpTo(upTo)) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, QUEUED_POLL_MS));
    }
    if (sent.size === 0) return;
    const still = new Set(await store.queued([...sent.keys()]));
    for (const id of [...sent.keys()]) if (!still.has(id)) sent.delete(id);
  }

  /**
   * Maintainer: applies the queued changes of the other processes through the one queue, then
   * deletes their rows (a reader waiting for them reads then). A row holding anything but a
   * relative path below the root is dropped unapplied.
   */
  function consume(): Promise<void> {
    if (!maintaining()) return Promise.resolve();
    consuming ??= consumeOnce().finally(() => (consuming = undefined));
    return consuming;
  }

  async function consumeOnce(): Promise<void> {
    try {
      const rows = await store.takeChanges(TAKE_CHANGES);
      if (rows.length === 0) return;
      for (const r of rows) {
        if (queueablePath(r.path)) pending.set(r.path, (pending.get(r.path) ?? false) || r.deep);
        else log?.warn('file index: a queued change that is not a path below the root was dropped');
      }
      await appliedNow();
      // Applied, or recorded as failed and tried again at the next change and reconciliation.
      // A maintainer that lost the lease meanwhile leaves them to the next one.
      if (maintaining()) await store.deleteChanges(rows.map((r) => r.id));
    } catch (err) {
      log?.warn({ err }, 'file index: the change queue could not be read');
    }
  }

  /** Maintainer: resolves once `pending` is applied (or this process stopped maintaining). */
  async function drained(): Promise<void> {
    while (draining || (pending.size > 0 && maintaining())) await (draining ?? drain());
  }

  /**
   * Maintainer: resolves once what `pending` holds now is applied (or this process stopped
   * maintaining) — not behind the changes announced meanwhile, which may keep coming.
   */
  async function appliedNow(): Promise<void> {
    const upTo = roundsBegun + 1;
    while (roundsDone < upTo && maintaining()) {
      if (!draining) {
        if (pending.size === 0) return;
        void drain();
      }
      await new Promise<void>((r) => roundWaiters.push(r));
    }
  }

  function drain(): Promise<void> {
    draining ??= enqueue(async () => {
      while (pending.size > 0 && maintaining()) {
        roundsBegun++;
        const paths = [...pending].sort((a, b) => treeOrder(a[0], b[0]));
        pending.clear();
        applying = new Map(paths);
        for (const [rel, deep] of paths) await trySync(rel, deep);
        roundsDone++;
        endRound();
      }
    }).finally(() => {
      draining = undefined;
      applying = new Map();
      endRound();
    });
    return draining;
  }

  /** Some announced change at, below or above `rel` is not in the index yet. */
  function unsettledAt(rel: string): boolean {
    const touches = (p: string) => p === '' || rel === '' || p === rel || p.startsWith(rel + '/') || rel.startsWith(p + '/');
    for (const p of pending.keys()) if (touches(p)) return true;
    for (const p of applying.keys()) if (touches(p)) return true;
    for (const p of failed) if (touches(p)) return true;
    if (role === 'reader') for (const p of storedFailed) if (touches(p)) return true;
    for (const p of outbox.keys()) if (touches(p)) return true;
    for (const p of sent.values()) if (touches(p)) return true;
    return false;
  }

  async function startWatcher(turn: number): Promise<void> {
    if (turn !== term || !maintaining()) return;
    try {
      const w = await watchTree(
        root,
        (paths) => paths.forEach((p) => announce(p, false)),
        (err) => void service.watchFailed(err),
      );
      // Stopped, or no longer the maintainer (or again, in a later turn that starts its own).
      if (turn !== term || !maintaining()) return void (await w.close());
      watch = w;
      // What changed before the watcher was up (during the build, or since the start's
      // reconciliation began) is found by one more reconciliation, queued after them.
      void scheduleReconcile();
    } catch (err) {
      log?.warn({ err }, 'no file-system watcher: the file index follows outside changes at reconciliations only');
    }
  }

  function scheduleReconcile(): Promise<unknown> {
    if (reconcileWanted) return queue;
    reconcileWanted = true;
    return enqueue(async () => {
      reconcileWanted = false;
      if (status === 'ready' && maintaining()) await reconcile();
    });
  }

  /**
   * Reader: the index's state as the maintainer stored it (ready or not, progress), read at most
   * every STATE_MS unless `force`d.
   */
  async function readState(force = false): Promise<void> {
    if (role !== 'reader' || status === 'disabled' || !root) return;
    if (!force && Date.now() - stateReadAt < STATE_MS) return;
    stateReadAt = Date.now();
    try {
      const s = await store.state();
      if (role !== 'reader') return;
      status = s.status === 'ready' && s.root === root ? 'ready' : 'building';
      storedFailed = parseFailed(s.failed);
      progress.updatedAt = Number(s.updatedAt ?? s.builtAt ?? 0) || 0;
      if (status === 'building') {
        progress.entries = Number(s.entries ?? 0) || 0;
        storedPercent = Number(s.percent ?? 0) || 0;
      }
    } catch (err) {
      log?.warn({ err }, 'file index: its state could not be read');
    }
    report();
  }

  /**
   * Becomes the maintainer (the lease was taken): as a start of the only process — a build when
   * the stored index is not ready, else a reconciliation (it finds what changed while nobody
   * maintained it) — then the watcher, the periodic reconciliation and the change queue.
   */
  async function promote(): Promise<void> {
    const state = await store.state();
    if (stopped) return;
    const ready = state.status === 'ready' && state.root === root;
    role = 'maintainer';
    const turn = ++term;
    log?.info('file index: this process maintains the index');
    // The paths the last maintainer could not index: tried again at their next change and
    // reconciliation, and meanwhile measured on disk by quotas, as that maintainer had them.
    for (const p of ready ? parseFailed(state.failed) : []) if (p !== '') failed.add(p);
    // After any work of an earlier turn: the ids go on from the highest in the table.
    const first = enqueue(async () => {
      if (!ready) return build();
      nextId = (await store.maxId()) + 1;
      progress.entries = await store.count();
      status = 'ready';
      report();
      if (maintaining()) await reconcile();
    });
    // In the background, after the build: the watcher's start on a big tree (a watch per folder,
    // its own record of the tree) takes a while and its memory would add to the build's; what
    // changes meanwhile is found by the reconciliation that follows it.
    if (opts.watch !== false) {
      watching = (ready ? Promise.resolve() : first.then(() => undefined, () => undefined)).then(() => startWatcher(turn));
    }
    if (opts.reconcileMs > 0) {
      timer = setInterval(() => void scheduleReconcile(), opts.reconcileMs);
      timer.unref();
    }
    void consume();
  }

  /**
   * Stops maintaining at once (the lease was taken by another process after this one failed to
   * renew it): the watcher and the periodic reconciliation stop, the queued work ends at its next
   * step, and this process's unapplied writes go to the change queue for the new maintainer.
   */
  async function demote(): Promise<void> {
    role = 'reader';
    term++;
    log?.warn('file index: the lease was lost (this process stalled, or lost the database): it only reads the index now');
    clearInterval(timer);
    for (const [rel, deep] of [...applying, ...pending]) outbox.set(rel, (outbox.get(rel) ?? false) || deep);
    pending.clear();
    void send();
    const w = watch;
    watch = undefined;
    await w?.close().catch(() => undefined);
    await readState(true);
  }

  /** Renews the lease (maintainer) or tries to take it (reader); changes the role when that changes. */
  function tickLease(): Promise<void> {
    leaseTick ??= (async () => {
      if (stopped) return;
      const asked = performance.now();
      let held: boolean;
      let timer: NodeJS.Timeout | undefined;
      try {
        // A claim that does not come back (a hung connection: the pool has no timeout) counts as
        // failed once the lease may have expired: another process may hold it by then.
        const wait = role === 'maintainer' ? Math.max(0, renewedAt + leaseMs - asked) : leaseMs;
        const late = new Promise<never>((_, fail) => (timer = setTimeout(() => fail(new Error('no answer from the database')), wait)));
        held = await Promise.race([store.claimLease(holderId, leaseMs), late]);
        if (held) renewedAt = asked;
      } catch (err) {
        log?.warn({ err }, 'file index: the lease could not be renewed or taken');
        // Not known: a maintainer goes on until its lease may have expired.
        held = role === 'maintainer' && performance.now() - renewedAt < leaseMs;
      } finally {
        clearTimeout(timer);
      }
      if (stopped) return;
      if (held && role === 'reader') await promote();
      else if (!held && role === 'maintainer') await demote();
    })()
      // A failed start as maintainer (the database unreachable) is tried again at the next tick.
      .catch((err: unknown) => log?.error({ err }, 'file index: the role could not be changed'))
      .finally(() => (leaseTick = undefined));
    return leaseTick;
  }

  const service = {
    /** Starts the index: a build or a reconciliation in the background, the watcher, the write hook. */
    async start(): Promise<void> {
      if (!opts.enabled) return;
      const r = await realRoot(opts.root);
      if (!r) {
        status = 'disabled';
        log?.warn({ root: opts.root }, 'the root does not exist: no file index');
        return;
      }
      root = r;
      offWrites = onWritten(announce);
      await readState(true);
      // Every process competes for the lease; the one that holds it maintains the index.
      await tickLease();
      leaseTimer = setInterval(() => void tickLease(), renewMs);
      leaseTimer.unref();
      pollTimer = setInterval(() => void (role === 'maintainer' ? consume() : readState()), pollMs);
      pollTimer.unref();
      report();
    },
    async stop(): Promise<void> {
      stopped = true;
      clearInterval(timer);
      clearInterval(leaseTimer);
      clearInterval(pollTimer);
      offWrites?.();
      await leaseTick;
      await watching;
      await watch?.close().catch(() => undefined);
      await queue;
      await sending;
      // The next process takes the lease at once instead of after its expiry.
      if (root) await store.releaseLease(holderId).catch(() => undefined);
    },
    /** The watcher lost events (its queue overflowed, or it failed): reconcile with the disk. */
    watchFailed(err: Error): Promise<unknown> {
      log?.warn({ err }, 'file watcher error: reconciling the file index with the disk');
      return scheduleReconcile();
    },
    /** Runs a reconciliation now (after any queued work) and resolves when it is done. */
    reconcile: () => (status === 'ready' && maintaining() ? enqueue(reconcile) : Promise.resolve({ folders: 0, changed: 0 })),
    get status(): IndexStatus {
      return status;
    },
    /** Whether this process maintains the index or reads it (several processes on one database). */
    get role(): IndexRole {
      return role;
    },
    /** This process's watcher is up (the maintainer's only). */
    get watching(): boolean {
      return watch !== undefined;
    },
    progress: snapshot,
    /** The progress with the entries counted in the database once the index is ready (writes change it). */
    async progressNow(): Promise<IndexProgress> {
      await readState();
      if (status === 'ready') progress.entries = await store.count();
      return snapshot();
    },
    /** Resolves once the watcher is up (or failed to start). */
    watcherStarted: (): Promise<void> => watching ?? Promise.resolve(),
    /** Folders watched on their own (fs/watch.ts, covers). */
    covers: (): number => watch?.covers ?? 0,
    /**
     * `settled`, but at most `ms`: a read (search, sizes) waits for the writes just announced, yet
     * never behind a long queue (thousands of outside changes at once): it then answers with what
     * the index has.
     */
    async settledWithin(ms: number): Promise<void> {
      if (role === 'reader') return queueApplied(ms);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.settled(), new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
      clearTimeout(timer);
    },
    /**
     * Resolves once the changes announced so far are in the index (the build does not count). A
     * reader's: once every change queued until now is applied by the maintainer (their writes,
     * then this read), but at most READ_WAIT_MS (there may be no maintainer for a while).
     */
    async settled(): Promise<void> {
      if (role === 'reader') return queueApplied(READ_WAIT_MS);
      // The maintainer first applies what the readers queued until now.
      if (consuming) await consuming;
      await consume();
      await drained();
    },
    /**
     * Resolves once this process's writes are in the database's change queue (a reader's; at
     * once otherwise). The app waits for it before answering (app.ts): the client's next request
     * finds them, whichever process answers it. Only the writes announced before (not those of
     * the requests answered meanwhile), and at most `queuedWaitMs`.
     */
    async writesQueued(): Promise<void> {
      if (batches === 0) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([sending, new Promise<void>((r) => (timer = setTimeout(r, opts.queuedWaitMs ?? QUEUED_WAIT_MS)))]);
      clearTimeout(timer);
    },
    /** The announced-write hook, for callers outside fs/ (tests). */
    announce,
    /**
     * Stops hearing the writes announced in this process (tests: two servers in one process
     * stand for two processes, and each must hear only its own writes).
     */
    detachWrites(): void {
      offWrites?.();
      offWrites = undefined;
    },
    /**
     * Entries below the real folder `dir` whose lower-cased name may contain one of `terms`
     * (each lower-cased; null = every entry), in tree order; null when the index cannot answer
     * (not ready, or `dir` is not below the indexed root).
     */
    async search(dir: string, terms: readonly string[] | null): Promise<IndexHit[] | null> {
      await readState();
      if (status !== 'ready') return null;
      const prefix = relOf(dir);
      if (prefix === null) return null;
      // No name holds NUL, and neither engine takes it in a query (FTS5 ends the string there,
      // PostgreSQL refuses it in text): a term holding one matches nothing and is not asked.
      const possible = terms?.filter((t) => !t.includes('\0')) ?? null;
      if (terms && terms.length > 0 && possible!.length === 0) return [];
      await this.settledWithin(READ_WAIT_MS);
      // Trigrams need 3 characters: a shorter term reads every name below the folder.
      const usable = possible && possible.length > 0 && possible.every((t) => [...t].length >= 3) ? possible : null;
      const hits: IndexHit[] = [];
      for (let after = 0; ;) {
        const page = await store.search(prefix, usable, after, SEARCH_PAGE);
        for (const r of page)
          hits.push({
            rel: r.path.slice(prefix.length + 1),
            name: r.name,
            isDir: r.is_dir === 1,
            isLink: r.is_link === 1,
          });
        if (page.length < SEARCH_PAGE) break;
        after = page[page.length - 1]!.id;
      }
      return hits.sort((a, b) => treeOrder(a.rel, b.rel));
    },
    /**
     * The recursive size of the real folder `dir` and of each of its direct children (for
     * listings, the info prompt, quotas and a disk-usage picture); null when the index cannot
     * answer (disabled, building, or `dir` not an indexed folder). With `exact` (quotas), also
     * null while changes announced at or below `dir` are still being applied after the wait (a
     * large extraction takes seconds to index: its bytes would be missing), or when one of them
     * could not be indexed.
     */
    async folderSizes(dir: string, opts: { exact?: boolean } = {}): Promise<FolderSizes | null> {
      await readState();
      if (status !== 'ready') return null;
      const rel = relOf(dir);
      if (rel === null) return null;
      await this.settledWithin(READ_WAIT_MS);
      // A reader learns of the paths the maintainer could not index (its writes' too) from the
      // store, and of a build begun since its last read (the rows come in, their sizes last).
      if (opts.exact) await readState(true);
      if (opts.exact && (status !== 'ready' || unsettledAt(rel))) return null;
      const row = await store.get(rel);
      if (!row || row.is_dir !== 1) return null;
      const children = new Map((await store.children(row.id)).map((c) => [c.name, Number(c.tree_size)]));
      return { size: Number(row.tree_size), children };
    },
    /** The app's logger, set once the app exists (services are built before it). */
    useLogger(l: Log): void {
      log ??= l;
    },
    /** The root's real path ('' before start). */
    get root(): string {
      return root;
    },
  };
  return service;
}

export type IndexService = ReturnType<typeof createIndexService>;
