import { mkdtemp, realpath, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../db/index.js';
import { createIndexStore, type IndexRow } from './store.js';

const rowsFrom = (from: number, n: number): IndexRow[] =>
  Array.from({ length: n }, (_, k) => {
    const id = from + k;
    const name = `entry-${id}-${'x'.repeat(40)}.dat`;
    return { id, parent: 1, path: `/${name}`, name, is_dir: 0, is_link: 0, size: id, tree_size: id, mtime: 1, inode: id };
  });

let dir = '';
let db: Db | undefined;
afterEach(async () => {
  await db?.close();
  db = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the SQLite index store during a build (bulk)', () => {
  it("moves checkpoints off the server's connection while it lasts, and puts the setting back", async () => {
    dir = await realpath(await mkdtemp(path.join(tmpdir(), 'coffer-index-store-')));
    const file = path.join(dir, 'db.sqlite');
    db = await openDb(file);
    const h = db.sqlite!;
    const store = createIndexStore(db);
    expect(h.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    const bulk = store.bulk!();
    expect(h.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    // About 1,000 pages of WAL: the connection alone would have checkpointed.
    for (let i = 0; i < 20; i++) await store.insert(rowsFrom(2 + i * 500, 500));
    for (let t = 0; t < 100 && bulk.checkpoints === 0; t++) await new Promise((r) => setTimeout(r, 50));
    await bulk.end();
    expect(bulk.checkpoints).toBeGreaterThan(0);
    expect(h.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    // Every row is there and the database file holds them (the WAL was copied in).
    expect(await store.count()).toBe(10_000);
    expect((await stat(file)).size).toBeGreaterThan(1_000_000);
    await bulk.end(); // a second end does nothing
    expect(h.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
  }, 30_000);
});

describe('the maintainer lease and the change queue (several processes on one database)', () => {
  it('gives the lease to one holder until it expires, renews it for that holder, frees it on release', async () => {
    dir = await realpath(await mkdtemp(path.join(tmpdir(), 'coffer-index-store-')));
    db = await openDb(path.join(dir, 'db.sqlite'));
    const store = createIndexStore(db);
    expect(await store.claimLease('one', 300)).toBe(true);
    expect(await store.claimLease('two', 300)).toBe(false);
    expect(await store.claimLease('one', 300)).toBe(true); // renewed
    await new Promise((r) => setTimeout(r, 350));
    expect(await store.claimLease('two', 60_000)).toBe(true); // expired: taken
    expect(await store.claimLease('one', 300)).toBe(false); // the stalled one cannot renew
    await store.releaseLease('one'); // not its lease: nothing happens
    expect(await store.claimLease('three', 300)).toBe(false);
    await store.releaseLease('two');
    expect(await store.claimLease('three', 300)).toBe(true);
  });

  it('queues changes in order and tells which of them are still queued', async () => {
    dir = await realpath(await mkdtemp(path.join(tmpdir(), 'coffer-index-store-')));
    db = await openDb(path.join(dir, 'db.sqlite'));
    const store = createIndexStore(db);
    const ids = await store.pushChanges([
      { path: '/a', deep: false },
      { path: '/b/c', deep: true },
    ]);
    expect(ids).toHaveLength(2);
    expect(await store.takeChanges(10)).toEqual([
      { id: ids[0], path: '/a', deep: false },
      { id: ids[1], path: '/b/c', deep: true },
    ]);
    await store.deleteChanges([ids[0]!]);
    expect(await store.queued(ids)).toEqual([ids[1]]);
    expect(await store.takeChanges(10)).toHaveLength(1);
  });
});
