/**
 * The file index stays fresh (docs/api.md §24): Coffer's own writes at once, outside changes
 * within 2 s (the watcher), changes made while the server was stopped at the next start, lost
 * watcher events (an overflowed queue) by the reconciliation; folder sizes follow; the trash's
 * items leave the index and come back with a restore. SQLite, and PostgreSQL with
 * COFFER_TEST_PG_URL.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tarStream from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { folderSize, search, within } from './index-support.js';
import { startServer, type TestServer } from './harness.js';


async function waitReady(srv: TestServer): Promise<void> {
  for (let i = 0; i < 400 && srv.deps.index.status !== 'ready'; i++) await new Promise((r) => setTimeout(r, 25));
  expect(srv.deps.index.status).toBe('ready');
}




describe('outside changes (the watcher)', () => {
  let srv: TestServer;
  let token: string;
  beforeAll(async () => {
    srv = await startServer({ disableIndex: false });
    token = await srv.login();
    await waitReady(srv);
    await srv.deps.index.watcherStarted();
  });
  afterAll(() => srv?.close());

  it('sees a created, renamed and deleted file in search and folder sizes within 2 s', async () => {
    await mkdir(path.join(srv.root, 'outside/deep'), { recursive: true });
    await writeFile(path.join(srv.root, 'outside/deep/zebra-alpha.txt'), 'x'.repeat(1000));
    await within(2000, async () => (await search(srv, token, 'zebra')).includes('outside/deep/zebra-alpha.txt'));
    await within(2000, async () => (await folderSize(srv, token, '/', 'outside')) === 1000);

    await rename(path.join(srv.root, 'outside/deep/zebra-alpha.txt'), path.join(srv.root, 'outside/zebra-beta.txt'));
    await within(2000, async () => {
      const hits = await search(srv, token, 'zebra');
      return hits.length === 1 && hits[0] === 'outside/zebra-beta.txt';
    });
    await writeFile(path.join(srv.root, 'outside/zebra-beta.txt'), 'x'.repeat(300));
    await within(2000, async () => (await folderSize(srv, token, '/', 'outside')) === 300);

    await rm(path.join(srv.root, 'outside'), { recursive: true });
    await within(2000, async () => (await search(srv, token, 'zebra')).length === 0);
  });

  // The watcher library watches a folder made under a watched one, not the folders already made
  // inside it by then; the index covers those itself (fs/watch.ts). Before: never seen.
  it('follows the folders made with their parents at once (mkdir -p) and a tree moved in', async () => {
    mkdirSync(path.join(srv.root, 'made/bravo/cherry/damson'), { recursive: true });
    await within(5000, async () => (await search(srv, token, 'damson')).includes('made/bravo/cherry/damson'));
    await writeFile(path.join(srv.root, 'made/bravo/cherry/plum-one.txt'), 'x');
    await writeFile(path.join(srv.root, 'made/bravo/cherry/damson/plum-two.txt'), 'x');
    await within(2000, async () => (await search(srv, token, 'plum')).join() === 'made/bravo/cherry/damson/plum-two.txt,made/bravo/cherry/plum-one.txt');
    await rm(path.join(srv.root, 'made/bravo/cherry/damson/plum-two.txt'));
    await within(2000, async () => (await search(srv, token, 'plum')).join() === 'made/bravo/cherry/plum-one.txt');

    const stage = await mkdtemp(path.join(path.dirname(srv.root), 'stage-'));
    mkdirSync(path.join(stage, 'tree/elder/fig'), { recursive: true });
    await rename(path.join(stage, 'tree'), path.join(srv.root, 'moved'));
    await within(5000, async () => (await search(srv, token, 'fig')).includes('moved/elder/fig'));
    await writeFile(path.join(srv.root, 'moved/elder/fig/plum-three.txt'), 'x'.repeat(70));
    await within(2000, async () => (await search(srv, token, 'plum-three')).join() === 'moved/elder/fig/plum-three.txt');
    await within(2000, async () => (await folderSize(srv, token, '/', 'moved')) === 70);
    const covers = srv.deps.index.covers();
    await rm(path.join(srv.root, 'moved/elder'), { recursive: true });
    await within(2000, async () => (await search(srv, token, 'plum-three')).length === 0);
    // The folders that left the index are watched no more (the file's folder's removal may come
    // first, through a cover, and its parent's later, through the library).
    await within(2000, async () => srv.deps.index.covers() <= covers - 2);
  });

  // Removed and replaced by another tree at once, the folder is reported changed, not made: the
  // folders of the new tree are read as changed ones. Before: not watched below the top.
  it('follows a folder replaced at once by another tree (rm -r and mv together)', async () => {
    mkdirSync(path.join(srv.root, 'swap/inner'), { recursive: true });
    await within(5000, async () => (await search(srv, token, 'inner')).includes('swap/inner'));
    const stage = await mkdtemp(path.join(path.dirname(srv.root), 'stage-'));
    mkdirSync(path.join(stage, 'tree/inner/deeper'), { recursive: true });
    rmSync(path.join(srv.root, 'swap'), { recursive: true });
    renameSync(path.join(stage, 'tree'), path.join(srv.root, 'swap'));
    await within(5000, async () => (await search(srv, token, 'deeper')).includes('swap/inner/deeper'));
    await writeFile(path.join(srv.root, 'swap/inner/plum-four.txt'), 'x');
    await within(2000, async () => (await search(srv, token, 'plum-four')).join() === 'swap/inner/plum-four.txt');
    const covers = srv.deps.index.covers();
    await rm(path.join(srv.root, 'swap'), { recursive: true });
    await within(2000, async () => (await search(srv, token, 'plum-four')).length === 0);
    await within(2000, async () => srv.deps.index.covers() < covers);
  });

  it('answers GET /api/index to admins only', async () => {
    expect((await srv.fetch('/api/index')).status).toBe(401);
    const u = await srv.createUser({ perm: { admin: false } });
    expect((await srv.fetch('/api/index', { token: await srv.login(u.username, u.password) })).status).toBe(403);
    const res = await srv.fetch('/api/index', { token });
    expect(res.status).toBe(200);
    const p = (await res.json()) as { status: string; entries: number; percent: number; updatedAt: string };
    expect(p.status).toBe('ready');
    expect(p.percent).toBe(100);
    expect(p.entries).toBeGreaterThanOrEqual(1);
    const metrics = await (await srv.fetch('/metrics')).text();
    expect(metrics).toMatch(/coffer_index_ready\{[^}]*\} 1/);
  });
});

describe("Coffer's own writes (no watcher: they alone update the index)", () => {
  let srv: TestServer;
  let token: string;
  beforeAll(async () => {
    srv = await startServer({ disableIndex: false }, { indexWatch: false });
    token = await srv.login();
    await waitReady(srv);
  });
  afterAll(() => srv?.close());

  const post = (p: string, body: string) => srv.fetch(`/api/resources${p}?override=false`, { method: 'POST', token, body });

  it('upload, folder, save, rename, copy, delete and restore show at once in search and sizes', async () => {
    expect((await post('/own/', '')).status).toBe(200);
    expect((await post('/own/kiwi-one.txt', 'x'.repeat(10))).status).toBe(200);
    expect(await search(srv, token, 'kiwi')).toEqual(['own/kiwi-one.txt']);
    expect(await folderSize(srv, token, '/', 'own')).toBe(10);

    expect((await srv.fetch('/api/resources/own/kiwi-one.txt', { method: 'PUT', token, body: 'x'.repeat(25) })).status).toBe(200);
    expect(await folderSize(srv, token, '/', 'own')).toBe(25);

    expect((await srv.fetch('/api/resources/own/kiwi-one.txt?action=rename&destination=%2Fown%2Fsub%2Fkiwi-two.txt', { method: 'PATCH', token })).status).toBe(200);
    expect(await search(srv, token, 'kiwi')).toEqual(['own/sub/kiwi-two.txt']);

    expect((await srv.fetch('/api/resources/own?action=copy&destination=%2Fown-copy', { method: 'PATCH', token })).status).toBe(200);
    expect(await search(srv, token, 'kiwi')).toEqual(['own/sub/kiwi-two.txt', 'own-copy/sub/kiwi-two.txt']);
    expect(await folderSize(srv, token, '/', 'own-copy')).toBe(25);

    // The trash lives in the data dir: a trashed item leaves the index, a restored one comes back.
    expect((await srv.fetch('/api/resources/own-copy', { method: 'DELETE', token })).status).toBe(204);
    expect(await search(srv, token, 'kiwi')).toEqual(['own/sub/kiwi-two.txt']);
    expect(await folderSize(srv, token, '/', 'own-copy')).toBeUndefined();
    const trash = (await (await srv.fetch('/api/trash', { token })).json()) as { items: { id: string }[] };
    expect(trash.items).toHaveLength(1);
    expect((await srv.fetch(`/api/trash/${trash.items[0]!.id}/restore`, { method: 'POST', token, json: {} })).status).toBe(200);
    expect(await search(srv, token, 'kiwi')).toEqual(['own/sub/kiwi-two.txt', 'own-copy/sub/kiwi-two.txt']);
    expect(await folderSize(srv, token, '/', 'own-copy')).toBe(25);
  });

  it('an extraction into a folder re-reads the folders it placed into, not the whole tree below it', async () => {
    // The tree read by the index once it is complete (the folders' times stored final).
    await mkdir(path.join(srv.root, 'ex/keep'), { recursive: true });
    await mkdir(path.join(srv.root, 'ex/other/sub'), { recursive: true });
    await writeFile(path.join(srv.root, 'ex/keep/old.txt'), 'x'.repeat(4));
    await writeFile(path.join(srv.root, 'ex/other/sub/o.txt'), 'y');
    srv.deps.index.announce(await realpath(path.join(srv.root, 'ex')), true);
    expect(await search(srv, token, 'plum')).toEqual([]);
    expect(await folderSize(srv, token, '/', 'ex')).toBe(5);
    // Behind Coffer's back, deep in a folder the archive does not touch (no watcher here): a
    // re-read of the destination's whole tree (a cheap job making the index walk a big folder,
    // the root for an admin, at every extraction) would find it.
    await writeFile(path.join(srv.root, 'ex/other/sub/plum-hidden.txt'), 'z'.repeat(7));
    const pack = tarStream.pack();
    const chunks: Buffer[] = [];
    pack.on('data', (c: Buffer) => chunks.push(c));
    const ended = new Promise((r) => pack.on('end', r));
    for (const [name, data] of [['keep/plum-new.txt', 'n'.repeat(5)], ['fresh/a/plum-deep.txt', 'd'.repeat(3)], ['plum-top.txt', 't'.repeat(2)], ['keep/old.txt', 'o'.repeat(6)]] as const) {
      pack.entry({ name, size: data.length }, Buffer.from(data));
    }
    pack.finalize();
    await ended;
    await mkdir(path.join(srv.root, 'ex-src'));
    await writeFile(path.join(srv.root, 'ex-src/a.tar'), Buffer.concat(chunks));
    const res = await srv.fetch('/api/extract/ex-src/a.tar', { method: 'POST', token, json: { destination: '/ex', conflict: 'overwrite' } });
    expect(res.status, await res.clone().text()).toBe(202);
    const job = (await res.json()) as { id: string };
    await expect.poll(async () => ((await (await srv.fetch(`/api/jobs/${job.id}`, { token })).json()) as { state: string }).state, { timeout: 20_000 }).toBe('done');
    // What it placed, merged into existing folders and replacing a file, is in the index at once.
    expect((await search(srv, token, 'plum')).sort()).toEqual(['ex/fresh/a/plum-deep.txt', 'ex/keep/plum-new.txt', 'ex/plum-top.txt']);
    expect(await folderSize(srv, token, '/ex', 'keep')).toBe(11);
    expect(await folderSize(srv, token, '/ex', 'fresh')).toBe(3);
    expect(await folderSize(srv, token, '/', 'ex')).toBe(11 + 3 + 2 + 1);
  });

  it('an overflowed watcher is repaired by the reconciliation', async () => {
    // Changes the watcher never reports (it is off here: the events are lost, as in an overflow).
    await mkdir(path.join(srv.root, 'lost/inner'), { recursive: true });
    await writeFile(path.join(srv.root, 'lost/inner/mango.txt'), 'x'.repeat(40));
    await rm(path.join(srv.root, 'own/sub/kiwi-two.txt'));
    await new Promise((r) => setTimeout(r, 300));
    expect(await search(srv, token, 'mango')).toEqual([]);
    await srv.deps.index.watchFailed(new Error('Event queue overflow'));
    expect(await search(srv, token, 'mango')).toEqual(['lost/inner/mango.txt']);
    expect(await search(srv, token, 'kiwi')).toEqual(['own-copy/sub/kiwi-two.txt']);
    expect(await folderSize(srv, token, '/', 'lost')).toBe(40);
    expect(await folderSize(srv, token, '/', 'own')).toBe(0);
  });
});

describe('changes made while the server was stopped', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'coffer-index-restart-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('are found at the next start', async () => {
    const root = path.join(dir, 'root');
    await mkdir(path.join(root, 'keep/a'), { recursive: true });
    await writeFile(path.join(root, 'keep/a/plum-old.txt'), 'x'.repeat(7));
    const first = await startServer({ root, disableIndex: false });
    await waitReady(first);
    const database = first.config.database;
    // Stopped without dropping its database (close() would drop a PostgreSQL one).
    await first.app.close();
    await first.deps.db.close();

    await writeFile(path.join(root, 'keep/a/plum-new.txt'), 'x'.repeat(5));
    await rm(path.join(root, 'keep/a/plum-old.txt'));
    await mkdir(path.join(root, 'keep/b/c'), { recursive: true });
    await writeFile(path.join(root, 'keep/b/c/plum-deep.txt'), 'x'.repeat(11));

    const second = await startServer({ root, database, disableIndex: false }, { indexWatch: false });
    try {
      await waitReady(second);
      const token = await second.login();
      // No watcher here: only the start's reconciliation can find them.
      await within(5000, async () => (await search(second, token, 'plum')).join() === 'keep/a/plum-new.txt,keep/b/c/plum-deep.txt');
      expect(await folderSize(second, token, '/', 'keep')).toBe(16);
    } finally {
      await second.close();
      await first.close().catch(() => undefined);
    }
  });
});

describe('an entry the database cannot index', () => {
  it('leaves the quota measuring the scope on disk (PostgreSQL takes no path over ~2,700 bytes in its unique index)', async () => {
    const srv = await startServer({ disableIndex: false }, { indexWatch: false });
    try {
      await waitReady(srv);
      await mkdir(path.join(srv.root, 'deep'));
      const u = await srv.createUser({ scope: '/deep', quota: 10_000 });
      const token = await srv.login(u.username, u.password);
      // 12 folders of 240 random characters (PostgreSQL compresses index rows): about 2,900 bytes.
      const long = Array.from({ length: 12 }, () => randomBytes(120).toString('hex')).join('/');
      expect((await srv.fetch(`/api/resources/${long}/`, { method: 'POST', token })).status).toBe(200);
      expect((await srv.fetch(`/api/resources/${long}/big.bin`, { method: 'POST', token, body: Buffer.alloc(8000) })).status).toBe(200);
      const usage = async () => ((await (await srv.fetch('/api/usage/', { token })).json()) as { quotaUsed: number }).quotaUsed;
      expect(await usage()).toBe(8000);
      // A later write measures again (the index took it): the 8,000 bytes still count.
      expect((await srv.fetch('/api/resources/small.bin', { method: 'POST', token, body: Buffer.alloc(100) })).status).toBe(200);
      expect(await usage()).toBe(8100);
      expect((await srv.fetch('/api/resources/more.bin', { method: 'POST', token, body: Buffer.alloc(3000) })).status).toBe(507);
    } finally {
      await srv.close();
    }
  });
});
