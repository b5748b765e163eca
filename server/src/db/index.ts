import { chmod, mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql, type Compilable, type Migration, type MigrationProvider } from 'kysely';
import pg from 'pg';
import * as m001 from './migrations/001-initial.js';
import * as m002 from './migrations/002-shares.js';
import * as m003 from './migrations/003-uploads.js';
import * as m004 from './migrations/004-upload-writer.js';
import * as m005 from './migrations/005-signin.js';
import * as m006 from './migrations/006-share-legacy-token.js';
import * as m007 from './migrations/007-jobs.js';
import * as m008 from './migrations/008-second-factor.js';
import * as m009 from './migrations/009-webdav.js';
import * as m010 from './migrations/010-trash.js';
import * as m011 from './migrations/011-upload-shares.js';
import * as m012 from './migrations/012-passkeys.js';
import * as m013 from './migrations/013-file-index.js';
import * as m014 from './migrations/014-quota.js';
import * as m015 from './migrations/015-signin-origin.js';
import * as m016 from './migrations/016-index-lease.js';
import type { Database } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';
export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  /** The SQLite handle under `kysely` (SQLite only), for statements prepared once (db/prepared.ts). */
  sqlite?: SQLite.Database;
  close(): Promise<void>;
}

// int8 (bigint) columns hold Unix times; they fit in a JS number.
pg.types.setTypeParser(20, (v) => Number(v));

/** Versioned migrations, in order. A new one is appended, never edited once released. */
const MIGRATIONS: Record<string, { up(db: Kysely<unknown>, d: Dialect): Promise<void>; down?(db: Kysely<unknown>): Promise<void> }> = {
  '001-initial': m001,
  '002-shares': m002,
  '003-uploads': m003,
  '004-upload-writer': m004,
  '005-signin': m005,
  '006-share-legacy-token': m006,
  '007-jobs': m007,
  '008-second-factor': m008,
  '009-webdav': m009,
  '010-trash': m010,
  '011-upload-shares': m011,
  '012-passkeys': m012,
  '013-file-index': m013,
  '014-quota': m014,
  '015-signin-origin': m015,
  '016-index-lease': m016,
};

const BUSY_TIMEOUT_MS = 5000;
/** Key of the PostgreSQL advisory lock around the first-run setup (any constant; Kysely's migration lock uses another). */
const SETUP_LOCK_KEY = 0x436f66666572; // "Coffer"

export function isPostgresUrl(database: string): boolean {
  return /^postgres(ql)?:\/\//i.test(database);
}

/** A BoltDB file (File Browser's database) has this magic after its first page header. */
const BOLT_MAGIC = 0xed0cdaed;

/** File Browser's `-d filebrowser.db` given to Coffer: a clear refusal rather than SQLite's "file is not a database". */
async function refuseFileBrowserDb(file: string): Promise<void> {
  const head = Buffer.alloc(20);
  try {
    const fh = await open(file, 'r');
    try {
      await fh.read(head, 0, 20, 0);
    } finally {
      await fh.close();
    }
  } catch {
    return; // missing or unreadable: SQLite says what is wrong
  }
  if (head.readUInt32LE(16) === BOLT_MAGIC) {
    throw new Error(
      `${file} is File Browser's database, which Coffer does not serve from: import it once with "coffer import filebrowser ${file} -d coffer.db" (docs/migrating-from-filebrowser.md), then start with -d coffer.db`,
    );
  }
}

/** Opens the database (creating the SQLite file 0600) and brings its schema up to date. */
export async function openDb(database: string): Promise<Db> {
  let db: Db;
  if (isPostgresUrl(database)) {
    const pool = new pg.Pool({ connectionString: database, max: 10 });
    // An idle pooled connection that the server ends (restart, failover, an admin's terminate)
    // emits 'error' on the pool; unhandled, that would crash the process. The pool drops the
    // client, and the next query opens a fresh one or fails with a proper error of its own.
    pool.on('error', (err) => process.emitWarning(`PostgreSQL connection lost: ${err.message}`));
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    db = { kysely, dialect: 'postgres', close: () => kysely.destroy() };
  } else {
    const file = path.resolve(database);
    await refuseFileBrowserDb(file);
    await mkdir(path.dirname(file), { recursive: true });
    // Another instance on the same file holds the write lock for a moment at most (its first start,
    // a write): wait for it rather than fail with SQLITE_BUSY. Set before the switch to WAL, which
    // needs the lock too.
    const sqlite = new SQLite(file, { timeout: BUSY_TIMEOUT_MS });
    await chmod(file, 0o600).catch(() => undefined); // S54
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
    db = { kysely, dialect: 'sqlite', sqlite, close: () => kysely.destroy() };
  }
  await migrate(db);
  return db;
}

/**
 * Runs `work` in one transaction that holds the database's setup lock, so that instances starting
 * together on one database do their first-run steps one after the other, each seeing what the one
 * before it committed. `work` gets the Db to use inside (on PostgreSQL a transaction).
 * PostgreSQL: a transaction-level advisory lock, released with the commit or rollback. SQLite:
 * BEGIN IMMEDIATE takes the file's write lock at once (waiting up to the busy timeout for
 * another process), where a deferred transaction that reads first could fail to write later.
 */
export async function inSetupLock<T>(db: Db, work: (db: Db) => Promise<T>): Promise<T> {
  const { sqlite } = db;
  if (!sqlite) {
    return db.kysely.transaction().execute(async (trx) => {
      await sql`SELECT pg_advisory_xact_lock(${sql.lit(SETUP_LOCK_KEY)})`.execute(trx);
      return work({ ...db, kysely: trx });
    });
  }
  // Kysely's SQLite driver runs every query on this one handle, so the queries of `work` run
  // inside the transaction (nothing else uses the handle while an instance starts).
  sqlite.exec('BEGIN IMMEDIATE');
  try {
    const result = await work(db);
    sqlite.exec('COMMIT');
    return result;
  } catch (err) {
    if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
    throw err;
  }
}

/**
 * A check-then-write that must be one step (is it free? take it), written once for both engines: a
 * generator that yields each query and gets its rows back, and returns its result.
 */
export type KeyedWork<T> = (k: Kysely<Database>) => Generator<Compilable<unknown>, T, unknown[]>;

/**
 * Runs `work` in one transaction that no other caller with the same `key` runs beside, on this
 * instance or another on the same database. PostgreSQL: a transaction-level advisory lock on
 * `key`. SQLite: the queries run synchronously, with nothing of this process between them, in
 * BEGIN IMMEDIATE, which takes the file's write lock at once and so also excludes other processes
 * (a wait for it is bounded by the busy timeout); Kysely's one connection is held meanwhile, so no
 * transaction of another request is open on the handle.
 */
export async function inKeyedTransaction<T>(db: Db, key: number, work: KeyedWork<T>): Promise<T> {
  const { sqlite } = db;
  if (!sqlite) {
    return db.kysely.transaction().execute(async (trx) => {
      await sql`SELECT pg_advisory_xact_lock(${sql.lit(key)})`.execute(trx);
      const steps = work(trx);
      for (let step = steps.next(); ; ) {
        if (step.done) return step.value;
        step = steps.next((await trx.executeQuery(step.value.compile())).rows);
      }
    });
  }
  return db.kysely.connection().execute(async () =>
    sqlite
      .transaction(() => {
        const steps = work(db.kysely);
        for (let step = steps.next(); ; ) {
          if (step.done) return step.value;
          const q = step.value.compile();
          const stmt: SQLite.Statement = sqlite.prepare(q.sql);
          step = steps.next(stmt.reader ? (stmt.all(...q.parameters) as unknown[]) : (stmt.run(...q.parameters), []));
        }
      })
      .immediate(),
  );
}

/**
 * Brings the schema up to date. Safe when several instances start together: on PostgreSQL Kysely's
 * migrator holds an advisory lock and runs the migrations in a transaction; on SQLite it does
 * neither, so they run under the setup lock (one transaction: a failed migration leaves nothing).
 */
export async function migrate(db: Db): Promise<void> {
  if (db.sqlite) return inSetupLock(db, runMigrations);
  return runMigrations(db);
}

async function runMigrations(db: Db): Promise<void> {
  const provider: MigrationProvider = {
    getMigrations: () =>
      Promise.resolve(
        Object.fromEntries(
          Object.entries(MIGRATIONS).map(([name, mod]): [string, Migration] => [
            name,
            { up: (k) => mod.up(k, db.dialect), down: mod.down ? (k) => mod.down!(k) : undefined },
          ]),
        ),
      ),
  };
  const migrator = new Migrator({ db: db.kysely, provider, migrationTableName: 'coffer_migrations', migrationLockTableName: 'coffer_migrations_lock' });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
}
