/**
 * Several processes on one database with the file index on (docs/deployment.md "Several
 * instances", docs/api.md §24): one maintains it (a lease in the database), the others read it;
 * writes through a reader reach the maintainer through the database; a stopped or stalled
 * maintainer is replaced. Two servers in this process stand for two processes. SQLite, and
 * PostgreSQL with COFFER_TEST_PG_URL.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppOptions } from '../src/services.js';
import { folderSize, search, within } from './index-support.js';
import { startServer, type TestServer } from './harness.js';


const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));




/** A second server on the first one's root and database (another process, another host). */
const second = (first: TestServer, options: Partial<AppOptions> = {}) =>
  startServer({ root: first.root, database: first.config.database, disableIndex: false }, options);

/** Stops a server without dropping its database or root (the other one still uses them). */
async function halt(srv: TestServer): Promise<void> {
  await srv.app.close();
  await srv.deps.shared.close();
  await srv.deps.db.close();
}

const maintainers = (...all: TestServer[]) => all.filter((s) => s.deps.index.role === 'maintainer');

describe('two processes on one database', () => {
  let a: TestServer;
  let b: TestServer;
  let tokenB: string;
  beforeAll(async () => {
    a = await startServer({ disableIndex: false });
    await within(10_000, () => a.deps.index.status === 'ready');
    await a.deps.index.watcherStarted();
    b = await second(a);
    tokenB = await b.login();
    await within(10_000, () => b.deps.index.status === 'ready');
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('one maintains the index; the other builds and watches nothing', async () => {
    expect(maintainers(a, b)).toEqual([a]);
    expect(b.deps.index.role).toBe('reader');
    await b.deps.index.watcherStarted();
    expect(b.deps.index.watching).toBe(false);
    expect(a.deps.index.watching).toBe(true);
  });

  it("an outside write shows in the reader's search and folder sizes, exact (not applied twice)", async () => {
    await mkdir(path.join(a.root, 'out/deep'), { recursive: true });
    await writeFile(path.join(a.root, 'out/deep/zebra-one.txt'), 'x'.repeat(1000));
    await within(3000, async () => (await search(b, tokenB, 'zebra')).includes('out/deep/zebra-one.txt'));
    await within(3000, async () => (await folderSize(b, tokenB, '/', 'out')) === 1000);
    await writeFile(path.join(a.root, 'out/deep/zebra-one.txt'), 'x'.repeat(400));
    await within(3000, async () => (await folderSize(b, tokenB, '/', 'out')) === 400);
    await sleep(600);
    expect(await folderSize(b, tokenB, '/', 'out')).toBe(400);
    expect(await folderSize(b, tokenB, '/out', 'deep')).toBe(400);
  });

  it('a write through the reader shows at once in its own search and folder sizes', async () => {
    const post = (p: string, body: string) => b.fetch(`/api/resources${p}?override=false`, { method: 'POST', token: tokenB, body });
    expect((await post('/own/', '')).status).toBe(200);
    expect((await post('/own/kiwi-one.txt', 'x'.repeat(10))).status).toBe(200);
    expect(await search(b, tokenB, 'kiwi')).toEqual(['own/kiwi-one.txt']);
    expect(await folderSize(b, tokenB, '/', 'own')).toBe(10);
    expect((await b.fetch('/api/resources/own/kiwi-one.txt', { method: 'PUT', token: tokenB, body: 'x'.repeat(25) })).status).toBe(200);
    expect(await folderSize(b, tokenB, '/', 'own')).toBe(25);
    expect((await b.fetch('/api/resources/own/kiwi-one.txt', { method: 'DELETE', token: tokenB })).status).toBe(204);
    expect(await search(b, tokenB, 'kiwi')).toEqual([]);
    expect(await folderSize(b, tokenB, '/', 'own')).toBe(0);
  });

  it('GET /api/index answers the same from both, naming the role', async () => {
    const tokenA = await a.login();
    const pa = (await (await a.fetch('/api/index', { token: tokenA })).json()) as { status: string; entries: number; role?: string };
    const pb = (await (await b.fetch('/api/index', { token: tokenB })).json()) as { status: string; entries: number; role?: string };
    expect(pb).toMatchObject({ status: 'ready', role: 'reader', entries: pa.entries });
    expect(pa).toMatchObject({ status: 'ready', role: 'maintainer' });
  });
});

describe("a maintainer that does not see the reader's writes (another host on a network file system)", () => {
  it("the reader's writes reach it through the database, and show at once in both", async () => {
    const a = await startServer({ disableIndex: false }, { indexWatch: false });
    let b: TestServer | undefined;
    try {
      await within(10_000, () => a.deps.index.status === 'ready');
      // Another process: it hears none of the second server's writes (fs/changes.ts is per process).
      a.deps.index.detachWrites();
      b = await second(a, { indexWatch: false });
      const tokenA = await a.login();
      const tokenB = await b.login();
      expect(b.deps.index.role).toBe('reader');
      const post = (p: string, body: string) => b!.fetch(`/api/resources${p}?override=false`, { method: 'POST', token: tokenB, body });
      expect((await post('/far/', '')).status).toBe(200);
      expect((await post('/far/inner/olive-one.txt', 'x'.repeat(33))).status).toBe(200);
      expect(await search(b, tokenB, 'olive')).toEqual(['far/inner/olive-one.txt']);
      expect(await folderSize(b, tokenB, '/', 'far')).toBe(33);
      expect(await search(a, tokenA, 'olive')).toEqual(['far/inner/olive-one.txt']);
      expect(await folderSize(a, tokenA, '/far', 'inner')).toBe(33);
      expect((await b.fetch('/api/resources/far/inner?action=rename&destination=%2Ffar%2Fouter', { method: 'PATCH', token: tokenB })).status).toBe(200);
      expect(await search(b, tokenB, 'olive')).toEqual(['far/outer/olive-one.txt']);
      expect(await folderSize(b, tokenB, '/far', 'outer')).toBe(33);
      // The quota's exact measure from the reader sees them too.
      const u = await b.createUser({ scope: '/far', quota: 1000 });
      const tokenU = await b.login(u.username, u.password);
      expect(((await (await b.fetch('/api/usage/', { token: tokenU })).json()) as { quotaUsed: number }).quotaUsed).toBe(33);
    } finally {
      await b?.close();
      await a.close();
    }
  });
});

describe('three processes: a write through one reader', () => {
  it("shows at once in the other reader's search and folder sizes", async () => {
    const a = await startServer({ disableIndex: false }, { indexWatch: false });
    const readers: TestServer[] = [];
    try {
      await within(10_000, () => a.deps.index.status === 'ready');
      a.deps.index.detachWrites();
      for (let i = 0; i < 2; i++) readers.push(await second(a, { indexWatch: false }));
      const [b, c] = readers as [TestServer, TestServer];
      // Each stands for a process of its own: the writes below are b's alone.
      c.deps.index.detachWrites();
      await within(5000, () => b.deps.index.status === 'ready' && c.deps.index.status === 'ready');
      expect([b.deps.index.role, c.deps.index.role]).toEqual(['reader', 'reader']);
      const tokenB = await b.login();
      const tokenC = await c.login();
      for (let i = 1; i <= 3; i++) {
        expect((await b.fetch(`/api/resources/trio/lime-${i}.txt?override=false`, { method: 'POST', token: tokenB, body: 'x'.repeat(10) })).status).toBe(200);
        expect(await folderSize(c, tokenC, '/', 'trio')).toBe(10 * i);
        expect(await search(c, tokenC, 'lime')).toHaveLength(i);
      }
    } finally {
      for (const r of readers.reverse()) await r.close();
      await a.close();
    }
  });
});

describe('an entry the database cannot index, written through a reader', () => {
  it("leaves the reader's quota measuring the scope on disk (PostgreSQL takes no path over ~2,700 bytes in its unique index)", async () => {
    const a = await startServer({ disableIndex: false }, { indexWatch: false });
    let b: TestServer | undefined;
    try {
      await within(10_000, () => a.deps.index.status === 'ready');
      a.deps.index.detachWrites();
      b = await second(a, { indexWatch: false });
      await within(5000, () => b!.deps.index.status === 'ready');
      await mkdir(path.join(a.root, 'deep'));
      const u = await b.createUser({ scope: '/deep', quota: 10_000 });
      const token = await b.login(u.username, u.password);
      const long = Array.from({ length: 12 }, () => randomBytes(120).toString('hex')).join('/');
      expect((await b.fetch(`/api/resources/${long}/`, { method: 'POST', token })).status).toBe(200);
      expect((await b.fetch(`/api/resources/${long}/big.bin`, { method: 'POST', token, body: Buffer.alloc(8000) })).status).toBe(200);
      const usage = async () => ((await (await b!.fetch('/api/usage/', { token })).json()) as { quotaUsed: number }).quotaUsed;
      expect(await usage()).toBe(8000);
      expect((await b.fetch('/api/resources/small.bin', { method: 'POST', token, body: Buffer.alloc(100) })).status).toBe(200);
      expect(await usage()).toBe(8100);
      expect((await b.fetch('/api/resources/more.bin', { method: 'POST', token, body: Buffer.alloc(3000) })).status).toBe(507);
    } finally {
      await b?.close();
      await a.close();
    }
  });
});

describe('failover', () => {
  const lease: Partial<AppOptions> = { indexLeaseMs: 2000, indexRenewMs: 200 };

  it('a stopped maintainer is replaced, and the new one follows outside changes', async () => {
    const a = await startServer({ disableIndex: false }, lease);
    let b: TestServer | undefined;
    try {
      await within(10_000, () => a.deps.index.status === 'ready');
      b = await second(a, lease);
      const token = await b.login();
      expect(b.deps.index.role).toBe('reader');
      await halt(a);
      await within(5000, () => b!.deps.index.role === 'maintainer');
      await b.deps.index.watcherStarted();
      expect(b.deps.index.watching).toBe(true);
      await mkdir(path.join(a.root, 'later'));
      await writeFile(path.join(a.root, 'later/mango.txt'), 'x'.repeat(70));
      await within(3000, async () => (await search(b!, token, 'mango')).includes('later/mango.txt'));
      await within(3000, async () => (await folderSize(b!, token, '/', 'later')) === 70);
    } finally {
      await b?.close();
      await a.close().catch(() => undefined);
    }
  });

  it('a maintainer whose lease was taken (it stalled) stops maintaining; the lease is taken again after expiry', async () => {
    const a = await startServer({ disableIndex: false }, lease);
    let b: TestServer | undefined;
    try {
      await within(10_000, () => a.deps.index.status === 'ready');
      await a.deps.index.watcherStarted();
      b = await second(a, lease);
      const token = await b.login();
      expect(a.deps.index.watching).toBe(true);
      // Another process took the lease while this one stalled (it expired unrenewed).
      await sql`UPDATE file_index_lease SET holder = 'ghost', expires_at = ${Date.now() + 1500}`.execute(a.deps.db.kysely);
      await within(1000, () => a.deps.index.role === 'reader');
      expect(a.deps.index.watching).toBe(false);
      expect(b.deps.index.role).toBe('reader');
      // The ghost never renews: one of the two takes over after expiry, and follows changes.
      await within(5000, () => maintainers(a, b!).length === 1);
      const now = maintainers(a, b)[0]!;
      await now.deps.index.watcherStarted();
      expect(now.deps.index.watching).toBe(true);
      await writeFile(path.join(a.root, 'after-ghost-peach.txt'), 'x');
      await within(3000, async () => (await search(b!, token, 'peach')).includes('after-ghost-peach.txt'));
    } finally {
      await b?.close();
      await a.close().catch(() => undefined);
    }
  });
});

describe('hostile rows in the change queue', () => {
  it('are dropped, never indexed (paths with .., absolute, NUL, outside the root)', async () => {
    const a = await startServer({ disableIndex: false }, { indexWatch: false });
    try {
      await within(10_000, () => a.deps.index.status === 'ready');
      const outside = path.join(path.dirname(a.root), 'outside-secret');
      await mkdir(outside, { recursive: true });
      await writeFile(path.join(outside, 'secret.txt'), 'x');
      const token = await a.login();
      const rows = ['/../outside-secret', '../outside-secret', '/a/../../outside-secret', outside, 'no-slash', '/a//b', '/a/.', 42];
      // PostgreSQL's text takes no NUL: such a row cannot arrive there.
      if (!process.env.COFFER_TEST_PG_URL) rows.push('/x\0y');
      for (const p of rows) {
        await sql`INSERT INTO file_index_changes (path, deep) VALUES (${String(p)}, 1)`.execute(a.deps.db.kysely);
      }
      await within(3000, async () => Number((await sql<{ n: number }>`SELECT count(*) AS n FROM file_index_changes`.execute(a.deps.db.kysely)).rows[0]!.n) === 0);
      expect(await search(a, token, 'secret')).toEqual([]);
      expect(await a.deps.index.search(outside, null)).toBeNull();
    } finally {
      await a.close();
      await rm(path.join(path.dirname(a.root), 'outside-secret'), { recursive: true, force: true });
    }
  });
});
