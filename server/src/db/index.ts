import { chmod, mkdir } from 'node:fs/promises';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, type Migration, type MigrationProvider } from 'kysely';
import pg from 'pg';
import * as m001 from './migrations/001-initial.js';
import * as m002 from './migrations/002-shares.js';
import * as m003 from './migrations/003-uploads.js';
import * as m004 from './migrations/004-upload-writer.js';
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
};

export function isPostgresUrl(database: string): boolean {
  return /^postgres(ql)?:\/\//i.test(database);
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
    await mkdir(path.dirname(file), { recursive: true });
    const sqlite = new SQLite(file);
    await chmod(file, 0o600).catch(() => undefined); // S54
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
    db = { kysely, dialect: 'sqlite', sqlite, close: () => kysely.destroy() };
  }
  await migrate(db);
  return db;
}

export async function migrate(db: Db): Promise<void> {
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
