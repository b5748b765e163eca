/**
 * Crash safety of the trash (docs/api.md §22): a trash stopped between its steps — as a kill -9
 * would stop it — is repaired by the reconciliation of the next start, either way: nothing lost,
 * nothing listed twice.
 */
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../db/index.js';
import { openTrashArea } from '../../fs/trash-area.js';
import { resolvePath } from '../../fs/resolve.js';
import type { UserRecord } from '../users/repository.js';
import { createTrashService, UNSETTLED_GRACE_MS } from './service.js';

const user = {
  id: 1,
  username: 'u',
  scope: '/',
  rules: [],
  hideDotfiles: false,
  perm: { admin: false, execute: false, create: true, rename: true, modify: true, delete: true, share: false, download: true },
} as unknown as UserRecord;

let dir: string;
let root: string;
let db: Db;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'coffer-trash-unit-'));
  root = path.join(dir, 'root');
  await mkdir(root);
  db = await openDb(path.join(dir, 'db.sqlite'));
});
afterEach(async () => {
  await db.close();
  await rm(dir, { recursive: true, force: true });
});

async function service(opts: { stopAt?: 'recorded' | 'moved'; later?: boolean } = {}) {
  const shift = opts.later ? UNSETTLED_GRACE_MS + 1 : 0;
  return createTrashService({
    db,
    area: await openTrashArea(path.join(dir, 'data')),
    users: { byId: async () => undefined },
    serverRoot: root,
    retentionDays: 30,
    now: () => Date.now() + shift,
    // Never resolves: the process "dies" at this point, with whatever it did so far.
    step: (name) => (name === opts.stopAt ? new Promise<void>(() => undefined) : Promise.resolve()),
  });
}

async function resolved(rel: string) {
  return resolvePath(user, rel, { serverRoot: root, globalRules: [], mustExist: true });
}

async function rowCount(): Promise<number> {
  return (await db.kysely.selectFrom('trash').select('id').execute()).length;
}

describe('trash crash safety', () => {
  it('a stop after the record, before the rename: the item stays in place and the record goes', async () => {
    await writeFile(path.join(root, 'a.txt'), 'a');
    const crashed = await service({ stopAt: 'recorded' });
    void crashed.trash(user, await resolved('/a.txt'), []);
    await expect.poll(rowCount).toBe(1);
    const next = await service({ later: true });
    expect(await next.reconcile()).toEqual({ settled: 0, dropped: 1, adopted: 0 });
    expect(await rowCount()).toBe(0);
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a');
    expect(await next.list(user, { all: false, globalRules: [] })).toEqual([]);
  });

  it('a stop after the rename, before the record is settled: the item is listed once, restorable', async () => {
    await mkdir(path.join(root, 'f'));
    await writeFile(path.join(root, 'f/b.txt'), 'bb');
    const crashed = await service({ stopAt: 'moved' });
    void crashed.trash(user, await resolved('/f'), []);
    await expect.poll(async () => (await readdir(root)).length).toBe(0);
    // Not yet listed: the step is unsettled.
    expect(await crashed.list(user, { all: false, globalRules: [] })).toEqual([]);
    const next = await service({ later: true });
    expect(await next.reconcile()).toEqual({ settled: 1, dropped: 0, adopted: 0 });
    await next.settle();
    const items = await next.list(user, { all: false, globalRules: [] });
    expect(items.map((i) => [i.path, i.isDir, i.size])).toEqual([['/f', true, 2]]);
    expect(await next.restore(user, items[0]!.id, { conflict: 'fail', globalRules: [] })).toBe('/f');
    expect(await readFile(path.join(root, 'f/b.txt'), 'utf8')).toBe('bb');
  });

  it('leaves a step younger than the grace alone (another instance may be in it)', async () => {
    await writeFile(path.join(root, 'c.txt'), 'c');
    const crashed = await service({ stopAt: 'recorded' });
    void crashed.trash(user, await resolved('/c.txt'), []);
    await expect.poll(rowCount).toBe(1);
    expect(await (await service()).reconcile()).toEqual({ settled: 0, dropped: 0, adopted: 0 });
    expect(await rowCount()).toBe(1);
  });

  it('a failed rename leaves no record behind', async () => {
    await writeFile(path.join(root, 'd.txt'), 'd');
    const p = await resolved('/d.txt');
    await rm(path.join(root, 'd.txt'));
    await expect((await service()).trash(user, p, [])).rejects.toThrow();
    expect(await rowCount()).toBe(0);
  });
});
