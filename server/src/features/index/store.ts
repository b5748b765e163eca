/**
 * The only SQL about the file index (migration 013), for both engines. SQLite runs prepared
 * better-sqlite3 statements in short transactions (a batch of rows at a time, so a build never
 * holds the event loop long); PostgreSQL runs the same work through Kysely.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { sql, type Kysely } from 'kysely';
import type SQLite from 'better-sqlite3';
import type { Db } from '../../db/index.js';
import type { Database, FileIndexTable } from '../../db/schema.js';

export type IndexRow = FileIndexTable;
export type RowFields = Pick<IndexRow, 'is_dir' | 'is_link' | 'size' | 'mtime' | 'inode'>;
export interface HitRow {
  id: number;
  path: string;
  name: string;
  is_dir: number;
  is_link: number;
}

/** A change another process made (`IndexStore.pushChanges`), for the maintainer to apply. */
export interface QueuedChange {
  id: number;
  path: string;
  deep: boolean;
}

/** The lease's one row (migration 016). */
const LEASE = 'maintainer';

/** A build's many writes under way (`IndexStore.bulk`): `end` puts things back as they were. */
export interface Bulk {
  end(): Promise<void>;
  /** Checkpoints the helper finished so far (tests). */
  readonly checkpoints: number;
}

export interface IndexStore {
  /** Writes run synchronously on the event loop (SQLite): the build sizes them by time. */
  readonly blocking?: boolean;
  /** Prepares for a build's many writes (SQLite: checkpoints off the event loop); end it after. */
  bulk?(): Bulk;
  state(): Promise<Record<string, string>>;
  setState(values: Record<string, string>): Promise<void>;
  /** Removes every row (a new build). */
  clear(): Promise<void>;
  maxId(): Promise<number>;
  count(): Promise<number>;
  insert(rows: readonly IndexRow[]): Promise<void>;
  get(path: string): Promise<IndexRow | undefined>;
  children(parent: number): Promise<IndexRow[]>;
  update(id: number, fields: RowFields & { tree_size?: number }): Promise<void>;
  setTreeSizes(pairs: readonly (readonly [number, number])[]): Promise<void>;
  /** Adds `delta` to the tree size of each row named (the ancestors of a change). */
  addTreeSize(paths: readonly string[], delta: number): Promise<void>;
  /** Removes the row at `path` and every row below it. */
  deleteSubtree(path: string): Promise<void>;
  /**
   * Up to `limit` rows strictly below `prefix` ("" = the root) with an id above `after`, by id;
   * with `terms`, only rows whose lower-cased name may contain one of them (each at least 3
   * characters; the caller checks the exact rule).
   */
  search(prefix: string, terms: readonly string[] | null, after: number, limit: number): Promise<HitRow[]>;
  /** Folders by id after `after` (reconciliation). */
  folders(after: number, limit: number): Promise<IndexRow[]>;
  /**
   * Takes or renews the maintainer's lease for `ttlMs` (the database's clock): true when
   * `holder` holds it now — it was free, expired, or already `holder`'s. One statement, so two
   * processes asking at once never both get it.
   */
  claimLease(holder: string, ttlMs: number): Promise<boolean>;
  /** Gives the lease up if `holder` holds it (a graceful stop: the next process need not wait). */
  releaseLease(holder: string): Promise<void>;
  /** Queues changes for the maintainer; returns their ids. */
  pushChanges(changes: readonly { path: string; deep: boolean }[]): Promise<number[]>;
  /** The oldest `limit` queued changes. */
  takeChanges(limit: number): Promise<QueuedChange[]>;
  /** Removes applied changes. */
  deleteChanges(ids: readonly number[]): Promise<void>;
  /** Those of `ids` still queued (not applied yet). */
  queued(ids: readonly number[]): Promise<number[]>;
  /** The highest id queued so far (0 when none is queued). */
  lastChange(): Promise<number>;
  /** Some change with an id up to `id` is still queued. */
  queuedUpTo(id: number): Promise<boolean>;
}

/** Bounds of the rows strictly below `prefix`: path ≥ lo and path < hi ('0' follows '/'). */
function below(prefix: string): [string, string] {
  return [`${prefix}/`, `${prefix}0`];
}

const COLUMNS = 'id, parent, path, name, is_dir, is_link, size, tree_size, mtime, inode';

function ftsPhrase(terms: readonly string[]): string {
  return terms.map((t) => `"${t.replaceAll('"', '""')}"`).join(' OR ');
}

/** How often the build's checkpoint helper copies the WAL into the database file. */
const CHECKPOINT_EVERY_MS = 250;

/**
 * The build's checkpoint helper: a worker thread with a connection of its own to the same file,
 * running PASSIVE checkpoints (they neither wait for nor block a reader or writer) when asked.
 * It only checkpoints: it reads and writes no row.
 */
const CHECKPOINTER_SOURCE = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, { fileMustExist: true, timeout: 0 });
parentPort.on('message', (m) => {
  if (m === 'close') { db.close(); parentPort.close(); return; }
  let ok = true;
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch { ok = false; }
  parentPort.postMessage(ok);
});
`;

/**
 * SQLite copies the WAL into the database file (and syncs it) in the commit that takes the WAL
 * past `wal_autocheckpoint` pages (1,000 by default), on the event loop. A cold build of a million
 * entries crosses that mark every few hundred rows: in a test of 100,000 rows in 64-row
 * transactions at load 12 the automatic checkpoints made the writes 1.5× slower (180 against
 * 119 µs a row) and the slowest transactions twice as slow (p99 88 against 45 ms). During a build
 * the server's connection does not checkpoint; a helper thread does, every CHECKPOINT_EVERY_MS.
 * `end` waits for a last checkpoint and restores the connection's setting. If the helper cannot
 * start or fails, the connection checkpoints by itself again at once.
 */
function sqliteBulk(h: SQLite.Database): Bulk {
  const before = Number(h.pragma('wal_autocheckpoint', { simple: true }));
  let checkpoints = 0;
  if (h.memory || before <= 0) return { end: async () => undefined, checkpoints };
  let worker: Worker | undefined;
  let timer: NodeJS.Timeout | undefined;
  let waiting: (() => void) | undefined;
  let busy = false;
  const restore = () => {
    clearInterval(timer);
    timer = undefined;
    if (h.open) h.pragma(`wal_autocheckpoint = ${before}`);
  };
  try {
    worker = new Worker(CHECKPOINTER_SOURCE, {
      eval: true,
      workerData: { module: createRequire(import.meta.url).resolve('better-sqlite3'), file: h.name },
    });
  } catch {
    return { end: async () => undefined, checkpoints };
  }
  worker.unref();
  const gone = () => {
    restore();
    worker = undefined;
    busy = false;
    waiting?.();
  };
  worker.on('error', gone);
  worker.on('exit', gone);
  worker.on('message', (ok: boolean) => {
    busy = false;
    if (ok) checkpoints++;
    waiting?.();
  });
  h.pragma('wal_autocheckpoint = 0');
  const ask = () => {
    if (busy || !worker) return;
    busy = true;
    worker.postMessage('checkpoint');
  };
  timer = setInterval(ask, CHECKPOINT_EVERY_MS);
  timer.unref();
  return {
    get checkpoints() {
      return checkpoints;
    },
    async end() {
      if (!timer) return;
      clearInterval(timer);
      // The last checkpoint, so that the connection's next commit does not find a long WAL.
      while (worker && busy) await new Promise<void>((r) => (waiting = r));
      ask();
      while (worker && busy) await new Promise<void>((r) => (waiting = r));
      waiting = undefined;
      restore();
      const w = worker;
      worker = undefined;
      if (w) {
        w.removeAllListeners();
        w.on('error', () => undefined);
        w.postMessage('close');
      }
    },
  };
}

/** The database's clock in Unix ms (SQLite: the host's; one host shares one SQLite file). */
const SQLITE_NOW = "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)";

function sqliteStore(h: SQLite.Database): IndexStore {
  const st = {
    state: h.prepare('SELECT key, value FROM file_index_state'),
    setState: h.prepare('INSERT INTO file_index_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
    maxId: h.prepare('SELECT coalesce(max(id), 0) AS m FROM file_index'),
    count: h.prepare('SELECT count(*) AS n FROM file_index'),
    insert: h.prepare(`INSERT OR REPLACE INTO file_index (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    get: h.prepare(`SELECT ${COLUMNS} FROM file_index WHERE path = ?`),
    children: h.prepare(`SELECT ${COLUMNS} FROM file_index WHERE parent = ?`),
    update: h.prepare('UPDATE file_index SET is_dir = ?, is_link = ?, size = ?, mtime = ?, inode = ?, tree_size = coalesce(?, tree_size) WHERE id = ?'),
    treeSize: h.prepare('UPDATE file_index SET tree_size = ? WHERE id = ?'),
    addTree: h.prepare('UPDATE file_index SET tree_size = tree_size + ? WHERE path = ?'),
    delOne: h.prepare('DELETE FROM file_index WHERE path = ?'),
    delBelow: h.prepare('DELETE FROM file_index WHERE path >= ? AND path < ?'),
    scan: h.prepare('SELECT id, path, name, is_dir, is_link FROM file_index WHERE path >= ? AND path < ? AND id > ? ORDER BY id LIMIT ?'),
    fts: h.prepare(
      'SELECT f.id, f.path, f.name, f.is_dir, f.is_link FROM file_index_names n JOIN file_index f ON f.id = n.rowid WHERE file_index_names MATCH ? AND n.rowid > ? AND f.path >= ? AND f.path < ? ORDER BY n.rowid LIMIT ?',
    ),
    folders: h.prepare(`SELECT ${COLUMNS} FROM file_index WHERE is_dir = 1 AND id > ? ORDER BY id LIMIT ?`),
    claim: h.prepare(`INSERT INTO file_index_lease (name, holder, expires_at) VALUES ('${LEASE}', ?, ${SQLITE_NOW} + ?)
      ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
      WHERE file_index_lease.holder = excluded.holder OR file_index_lease.expires_at <= ${SQLITE_NOW}
      RETURNING holder`),
    release: h.prepare(`DELETE FROM file_index_lease WHERE name = '${LEASE}' AND holder = ?`),
    push: h.prepare('INSERT INTO file_index_changes (path, deep) VALUES (?, ?)'),
    take: h.prepare('SELECT id, path, deep FROM file_index_changes ORDER BY id LIMIT ?'),
    delChange: h.prepare('DELETE FROM file_index_changes WHERE id = ?'),
    hasChange: h.prepare('SELECT 1 FROM file_index_changes WHERE id = ?'),
    lastChange: h.prepare('SELECT coalesce(max(id), 0) AS m FROM file_index_changes'),
    upTo: h.prepare('SELECT 1 FROM file_index_changes WHERE id <= ? LIMIT 1'),
  };
  const push = h.transaction((changes: readonly { path: string; deep: boolean }[]) =>
    changes.map((c) => Number(st.push.run(c.path, c.deep ? 1 : 0).lastInsertRowid)),
  );
  const delChanges = h.transaction((ids: readonly number[]) => {
    for (const id of ids) st.delChange.run(id);
  });
  const insertAll = h.transaction((rows: readonly IndexRow[]) => {
    for (const r of rows) st.insert.run(r.id, r.parent, r.path, r.name, r.is_dir, r.is_link, r.size, r.tree_size, r.mtime, r.inode);
  });
  const treeSizes = h.transaction((pairs: readonly (readonly [number, number])[]) => {
    for (const [id, size] of pairs) st.treeSize.run(size, id);
  });
  const addTree = h.transaction((paths: readonly string[], delta: number) => {
    for (const p of paths) st.addTree.run(delta, p);
  });
  const del = h.transaction((p: string) => {
    st.delOne.run(p);
    st.delBelow.run(...below(p));
  });
  const setState = h.transaction((values: Record<string, string>) => {
    for (const [k, v] of Object.entries(values)) st.setState.run(k, v);
  });
  return {
    blocking: true,
    bulk: () => sqliteBulk(h),
    state: async () => Object.fromEntries((st.state.all() as { key: string; value: string }[]).map((r) => [r.key, r.value])),
    setState: async (v) => void setState(v),
    clear: async () => {
      // The FTS table is emptied with its content (one statement each, not a trigger per row).
      h.exec("DELETE FROM file_index; INSERT INTO file_index_names(file_index_names) VALUES ('delete-all')");
    },
    maxId: async () => (st.maxId.get() as { m: number }).m,
    count: async () => (st.count.get() as { n: number }).n,
    insert: async (rows) => void insertAll(rows),
    get: async (p) => st.get.get(p) as IndexRow | undefined,
    children: async (id) => st.children.all(id) as IndexRow[],
    update: async (id, f) => void st.update.run(f.is_dir, f.is_link, f.size, f.mtime, f.inode, f.tree_size ?? null, id),
    setTreeSizes: async (pairs) => void treeSizes(pairs),
    addTreeSize: async (paths, delta) => void (delta !== 0 && addTree(paths, delta)),
    deleteSubtree: async (p) => void del(p),
    search: async (prefix, terms, after, limit) => {
      const [lo, hi] = below(prefix);
      if (terms) return st.fts.all(ftsPhrase(terms), after, lo, hi, limit) as HitRow[];
      return st.scan.all(lo, hi, after, limit) as HitRow[];
    },
    folders: async (after, limit) => st.folders.all(after, limit) as IndexRow[],
    claimLease: async (holder, ttlMs) => st.claim.get(holder, Math.round(ttlMs)) !== undefined,
    releaseLease: async (holder) => void st.release.run(holder),
    pushChanges: async (changes) => push(changes),
    takeChanges: async (limit) =>
      (st.take.all(limit) as { id: number; path: unknown; deep: unknown }[]).map((r) => ({ id: Number(r.id), path: String(r.path), deep: Number(r.deep) === 1 })),
    deleteChanges: async (ids) => void delChanges(ids),
    queued: async (ids) => ids.filter((id) => st.hasChange.get(id) !== undefined),
    lastChange: async () => Number((st.lastChange.get() as { m: number }).m),
    queuedUpTo: async (id) => st.upTo.get(id) !== undefined,
  };
}

const likeEscape = (t: string) => `%${t.replace(/[\\%_]/g, '\\$&')}%`;

const PG_NOW = sql`(extract(epoch FROM clock_timestamp()) * 1000)::bigint`;

function pgStore(k: Kysely<Database>): IndexStore {
  const rowsOf = async <R>(q: ReturnType<typeof sql<R>>) => (await q.execute(k)).rows;
  return {
    state: async () => Object.fromEntries((await k.selectFrom('file_index_state').selectAll().execute()).map((r) => [r.key, r.value])),
    setState: async (values) => {
      for (const [key, value] of Object.entries(values))
        await k.insertInto('file_index_state').values({ key, value }).onConflict((c) => c.column('key').doUpdateSet({ value })).execute();
    },
    clear: async () => void (await sql`TRUNCATE file_index`.execute(k)),
    maxId: async () => Number((await rowsOf(sql<{ m: number }>`SELECT coalesce(max(id), 0) AS m FROM file_index`))[0]?.m ?? 0),
    count: async () => Number((await rowsOf(sql<{ n: number }>`SELECT count(*) AS n FROM file_index`))[0]?.n ?? 0),
    insert: async (rows) => {
      if (rows.length === 0) return;
      await k
        .insertInto('file_index')
        .values([...rows])
        .onConflict((c) =>
          c.column('path').doUpdateSet((eb) => ({
            id: eb.ref('excluded.id'),
            parent: eb.ref('excluded.parent'),
            is_dir: eb.ref('excluded.is_dir'),
            is_link: eb.ref('excluded.is_link'),
            size: eb.ref('excluded.size'),
            tree_size: eb.ref('excluded.tree_size'),
            mtime: eb.ref('excluded.mtime'),
            inode: eb.ref('excluded.inode'),
          })),
        )
        .execute();
    },
    get: async (p) => k.selectFrom('file_index').selectAll().where('path', '=', p).executeTakeFirst(),
    children: async (id) => k.selectFrom('file_index').selectAll().where('parent', '=', id).execute(),
    update: async (id, f) => {
      await k
        .updateTable('file_index')
        .set({ is_dir: f.is_dir, is_link: f.is_link, size: f.size, mtime: f.mtime, inode: f.inode, ...(f.tree_size === undefined ? {} : { tree_size: f.tree_size }) })
        .where('id', '=', id)
        .execute();
    },
    setTreeSizes: async (pairs) => {
      for (let i = 0; i < pairs.length; i += 1000) {
        const part = pairs.slice(i, i + 1000);
        const ids = part.map((p) => p[0]);
        const sizes = part.map((p) => p[1]);
        await sql`UPDATE file_index f SET tree_size = v.s FROM unnest(${ids}::bigint[], ${sizes}::bigint[]) AS v(i, s) WHERE f.id = v.i`.execute(k);
      }
    },
    addTreeSize: async (paths, delta) => {
      if (delta === 0 || paths.length === 0) return;
      await sql`UPDATE file_index SET tree_size = tree_size + ${delta} WHERE path = ANY(${[...paths]}::text[])`.execute(k);
    },
    deleteSubtree: async (p) => {
      const [lo, hi] = below(p);
      await sql`DELETE FROM file_index WHERE path = ${p} OR (path COLLATE "C" >= ${lo} AND path COLLATE "C" < ${hi})`.execute(k);
    },
    search: async (prefix, terms, after, limit) => {
      const [lo, hi] = below(prefix);
      const names = terms ? sql`AND (${sql.join(terms.map((t) => sql`lower(name) LIKE ${likeEscape(t)} ESCAPE '\\'`), sql` OR `)})` : sql``;
      return rowsOf(
        sql<HitRow>`SELECT id, path, name, is_dir, is_link FROM file_index
          WHERE path COLLATE "C" >= ${lo} AND path COLLATE "C" < ${hi} AND id > ${after} ${names} ORDER BY id LIMIT ${limit}`,
      );
    },
    folders: async (after, limit) => k.selectFrom('file_index').selectAll().where('is_dir', '=', 1).where('id', '>', after).orderBy('id').limit(limit).execute(),
    // The database's clock, not the hosts': the processes of several hosts compare one time.
    claimLease: async (holder, ttlMs) =>
      (
        await rowsOf(sql<{ holder: string }>`INSERT INTO file_index_lease (name, holder, expires_at)
          VALUES (${LEASE}, ${holder}, ${PG_NOW} + ${Math.round(ttlMs)})
          ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
          WHERE file_index_lease.holder = excluded.holder OR file_index_lease.expires_at <= ${PG_NOW}
          RETURNING holder`)
      ).length > 0,
    releaseLease: async (holder) => void (await k.deleteFrom('file_index_lease').where('name', '=', LEASE).where('holder', '=', holder).execute()),
    // In parts: a statement takes at most 65,535 parameters.
    pushChanges: async (changes) => {
      const ids: number[] = [];
      for (let i = 0; i < changes.length; i += 1000) {
        const rows = await k
          .insertInto('file_index_changes')
          .values(changes.slice(i, i + 1000).map((c) => ({ path: c.path, deep: c.deep ? 1 : 0 })))
          .returning('id')
          .execute();
        ids.push(...rows.map((r) => Number(r.id)));
      }
      return ids;
    },
    takeChanges: async (limit) =>
      (await k.selectFrom('file_index_changes').select(['id', 'path', 'deep']).orderBy('id').limit(limit).execute()).map((r) => ({
        id: Number(r.id),
        path: String(r.path),
        deep: Number(r.deep) === 1,
      })),
    deleteChanges: async (ids) => {
      for (let i = 0; i < ids.length; i += 1000) await k.deleteFrom('file_index_changes').where('id', 'in', ids.slice(i, i + 1000)).execute();
    },
    queued: async (ids) => {
      const out: number[] = [];
      for (let i = 0; i < ids.length; i += 1000) {
        const rows = await k.selectFrom('file_index_changes').select('id').where('id', 'in', ids.slice(i, i + 1000)).execute();
        out.push(...rows.map((r) => Number(r.id)));
      }
      return out;
    },
    lastChange: async () => Number((await rowsOf(sql<{ m: number }>`SELECT coalesce(max(id), 0) AS m FROM file_index_changes`))[0]?.m ?? 0),
    queuedUpTo: async (id) => (await rowsOf(sql`SELECT 1 FROM file_index_changes WHERE id <= ${id} LIMIT 1`)).length > 0,
  };
}

export function createIndexStore(db: Db): IndexStore {
  return db.sqlite ? sqliteStore(db.sqlite) : pgStore(db.kysely);
}
