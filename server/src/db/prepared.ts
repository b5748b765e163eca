/**
 * Hot queries built once. Kysely compiles a query every time it runs, and its SQLite driver
 * prepares the statement again each time; for the few queries run on every request (the session
 * and user behind a token, the settings record) that was most of the database time. A prepared
 * query is built with Kysely once (so the SQL stays dialect-correct and typed), then runs as a
 * better-sqlite3 statement prepared once (SQLite) or as the compiled query with new parameter
 * values (PostgreSQL, through Kysely's executor).
 */
import type { Compilable, CompiledQuery } from 'kysely';
import type SQLite from 'better-sqlite3';
import type { Db } from './index.js';

export type PreparedQuery<R> = (parameters: readonly unknown[]) => Promise<R[]>;

/**
 * `query` is built with placeholder values; each call passes the real ones, in the order the
 * builder took them. For SELECTs only.
 */
export function prepareQuery<R>(db: Db, query: Compilable<R>): PreparedQuery<R> {
  const compiled: CompiledQuery<R> = query.compile();
  const sqlite = db.sqlite;
  if (sqlite) {
    let stmt: SQLite.Statement | undefined;
    return (parameters) => {
      stmt ??= sqlite.prepare(compiled.sql);
      return Promise.resolve(stmt.all(...parameters) as R[]);
    };
  }
  return async (parameters) => (await db.kysely.executeQuery<R>({ ...compiled, parameters })).rows;
}
