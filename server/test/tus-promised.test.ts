/**
 * The tus quota promise (docs/api.md §3.8): the whole lengths of the unfinished uploads whose
 * target lies in a folder, summed by the database — an exact prefix of whole path segments, on
 * SQLite, on PostgreSQL, and on a PostgreSQL database in SQL_ASCII (a cluster made under the C
 * locale), where the server counts bytes, not characters.
 * Runs on SQLite, and on PostgreSQL with COFFER_TEST_PG_URL.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../src/db/index.js';
import { createUploadRepository } from '../src/features/tus/repository.js';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function sqliteDb(): Promise<Db> {
  const dir = await mkdtemp(path.join(tmpdir(), 'coffer-promised-'));
  const db = await openDb(path.join(dir, 'coffer.db'));
  cleanups.push(async () => {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  });
  return db;
}

async function pgDb(admin: string, encoding: string): Promise<Db> {
  const name = `coffer_p_${randomBytes(6).toString('hex')}`;
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  await c.query(`CREATE DATABASE ${name} ENCODING '${encoding}' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0`);
  await c.end();
  const u = new URL(admin);
  u.pathname = `/${name}`;
  const db = await openDb(u.toString());
  cleanups.push(async () => {
    await db.close();
    const d = new pg.Client({ connectionString: admin });
    await d.connect();
    await d.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await d.end();
  });
  return db;
}

const admin = process.env.COFFER_TEST_PG_URL;
const engines: [string, () => Promise<Db>][] = admin
  ? [
      ['PostgreSQL (UTF8)', () => pgDb(admin, 'UTF8')],
      ['PostgreSQL (SQL_ASCII)', () => pgDb(admin, 'SQL_ASCII')],
    ]
  : [['SQLite', sqliteDb]];

/** Every upload touched since `t` (with bytes or not). */
const at = (t: number) => ({ sending: t, empty: t });

describe.each(engines)('promisedUnder on %s', (_name, open) => {
  it('sums the unexpired uploads below the folder, by exact whole segments', async () => {
    const db = await open();
    const repo = createUploadRepository(db);
    let n = 0;
    const add = (target: string, length: number, updatedAt = 1000, override = false) =>
      repo.insert({
        id: String(++n).padStart(32, '0'),
        target,
        virtualPath: '/x',
        userId: 1,
        sessionJti: '',
        length,
        offset: 0,
        override,
        createdAt: updatedAt,
        updatedAt,
        writer: null,
        shareHash: null,
      });
    const root = '/srv/Émoji-😀';
    await add(`${root}/a`, 100);
    await add(`${root}/deep/b`, 20);
    await add(`${root}/old`, 5000, 10);
    await add('/srv/émoji-😀/c', 1000);
    await add('/srv/Émoji-😀x/d', 3000);
    await add('/srv/Émoji-😁/e', 7000);
    await add('/srv/a%_/f', 1);
    await add('/srv/abc/g', 2);
    expect(await repo.promisedUnder(root, at(100))).toBe(120);
    expect(await repo.promisedUnder(root, at(0))).toBe(5120);
    expect(await repo.promisedUnder(`${root}/`, at(100))).toBe(120);
    expect(await repo.promisedUnder(root, at(100), String(1).padStart(32, '0'))).toBe(20);
    // LIKE's wildcards are plain characters here.
    expect(await repo.promisedUnder('/srv/a%_', at(100))).toBe(1);
    expect(await repo.promisedUnder('/srv/a%', at(100))).toBe(0);
    expect(await repo.promisedUnder('/srv', at(100))).toBe(11123);
    expect(await repo.promisedUnder('/', at(100))).toBe(11123);
    expect(await repo.promisedUnder('/nothing', at(100))).toBe(0);
    // The ones that replace a file, with their targets.
    await add(`${root}/over`, 40, 1000, true);
    expect(await repo.promisedUnder(root, at(100))).toBe(160);
    expect(await repo.replacingUnder(root, at(100))).toEqual([{ target: `${root}/over`, length: 40 }]);
    expect(await repo.replacingUnder('/srv/abc', at(100))).toEqual([]);
  });

  it('counts an upload made with headers alone for a shorter time than one that has bytes', async () => {
    const db = await open();
    const repo = createUploadRepository(db);
    let n = 0;
    const add = (length: number, offset: number, updatedAt: number) =>
      repo.insert({
        id: String(++n).padStart(32, '0'),
        target: `/srv/s/${n}`,
        virtualPath: '/x',
        userId: 1,
        sessionJti: '',
        length,
        offset,
        override: false,
        createdAt: updatedAt,
        updatedAt,
        writer: null,
        shareHash: null,
      });
    await add(100, 0, 300); // headers alone, made at 300
    await add(20, 5, 300); // has bytes, last touched at 300
    await add(3, 0, 600); // headers alone, made at 600
    expect(await repo.promisedUnder('/srv/s', { sending: 100, empty: 500 })).toBe(23);
    expect(await repo.promisedUnder('/srv/s', { sending: 100, empty: 200 })).toBe(123);
    expect(await repo.promisedUnder('/srv/s', { sending: 400, empty: 200 })).toBe(3);
  });
});
