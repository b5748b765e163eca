import { lstat, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDb } from '../../db/index.js';
import { indexedSizeSource } from '../quota/size-source.js';
import { createIndexService, queueablePath } from './service.js';
import { createIndexStore, type IndexStore } from './store.js';

describe('folder sizes for quotas', () => {
  it('are not taken from the index while a write below the folder is still being applied', async () => {
    const dir = await realpath(await mkdtemp(path.join(tmpdir(), 'coffer-index-unit-')));
    const root = path.join(dir, 'root');
    const scope = path.join(root, 'scope');
    await mkdir(scope, { recursive: true });
    await writeFile(path.join(scope, 'a'), Buffer.alloc(100));
    const db = await openDb(path.join(dir, 'db.sqlite'));
    const real = createIndexStore(db);
    // Applying the change of /scope/b waits at the gate (a long queue: a big extraction being indexed).
    let hold = false;
    let open = () => undefined as void;
    const gate = new Promise<void>((r) => (open = r));
    const store = { ...real, get: async (p: string) => (hold && p === '/scope/b' && (await gate), real.get(p)) };
    const index = createIndexService({ store, root, enabled: true, reconcileMs: 0, watch: false });
    try {
      await index.start();
      for (let i = 0; i < 400 && index.status !== 'ready'; i++) await new Promise((r) => setTimeout(r, 10));
      expect(index.status).toBe('ready');
      const size = indexedSizeSource(index);
      expect(await size(scope)).toBe(100);
      await writeFile(path.join(scope, 'b'), Buffer.alloc(500));
      hold = true;
      index.announce(path.join(scope, 'b'), false);
      // The index still says 100: the walk answers instead. Other folders still come from it.
      expect(await size(scope)).toBe(600);
      expect((await index.folderSizes(scope))?.size).toBe(100);
      hold = false;
      open();
      await index.settled();
      expect(await size(scope)).toBe(600);
      expect((await index.folderSizes(scope, { exact: true }))?.size).toBe(600);
    } finally {
      open();
      await index.stop();
      await db.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it('are not taken from the index below an entry the database refused, and other changes still go in', async () => {
    const dir = await realpath(await mkdtemp(path.join(tmpdir(), 'coffer-index-unit-')));
    const root = path.join(dir, 'root');
    const scope = path.join(root, 'scope');
    await mkdir(scope, { recursive: true });
    await mkdir(path.join(root, 'zz'));
    await writeFile(path.join(scope, 'a'), Buffer.alloc(100));
    const db = await openDb(path.join(dir, 'db.sqlite'));
    const real = createIndexStore(db);
    // As PostgreSQL refuses a path too long for its unique index.
    const store = {
      ...real,
      insert: async (rows: Parameters<typeof real.insert>[0]) => {
        if (rows.some((r) => r.path === '/scope/big')) throw new Error('index row size exceeds btree maximum');
        return real.insert(rows);
      },
    };
    const index = createIndexService({ store, root, enabled: true, reconcileMs: 0, watch: false });
    try {
      await index.start();
      for (let i = 0; i < 400 && index.status !== 'ready'; i++) await new Promise((r) => setTimeout(r, 10));
      expect(index.status).toBe('ready');
      const size = indexedSizeSource(index);
      await writeFile(path.join(scope, 'big'), Buffer.alloc(5000));
      await writeFile(path.join(root, 'zz', 'c'), Buffer.alloc(7));
      index.announce(path.join(scope, 'big'), false);
      index.announce(path.join(root, 'zz', 'c'), false);
      await index.settled();
      // The index misses big: the scope is walked. The change announced after it is in the index.
      expect((await index.folderSizes(scope))?.size).toBe(100);
      expect(await size(scope)).toBe(5100);
      expect((await index.folderSizes(path.join(root, 'zz'), { exact: true }))?.size).toBe(7);
      await index.reconcile();
      expect(await size(scope)).toBe(5100);
    } finally {
      await index.stop();
      await db.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe('paths in the change queue (rows another process wrote)', () => {
  it('are "" or names below the root, never "..", ".", empty names, NUL, absolute host paths or other types', () => {
    for (const ok of ['', '/a', '/a/b c/d.txt', '/..a', '/a..']) expect(queueablePath(ok)).toBe(true);
    for (const bad of ['/..', '/a/../b', '/a/.', '/a//b', '/a/', 'a', '../x', '/x\0y', null, 42, {}, undefined]) expect(queueablePath(bad)).toBe(false);
  });
});

describe("a reader's answers wait for its writes to be queued (app onSend)", () => {
  /** A reader (another process holds the lease) whose queue inserts go through `push`. */
  async function reader(push: (real: IndexStore['pushChanges']) => IndexStore['pushChanges']) {
    const dir = await realpath(await mkdtemp(path.join(tmpdir(), 'coffer-index-unit-')));
    const root = path.join(dir, 'root');
    await mkdir(root, { recursive: true });
    const db = await openDb(path.join(dir, 'db.sqlite'));
    const real = createIndexStore(db);
    const store: IndexStore = { ...real, claimLease: async () => false, pushChanges: push(real.pushChanges) };
    const index = createIndexService({ store, root, enabled: true, reconcileMs: 0, watch: false, queuedWaitMs: 300 });
    await index.start();
    expect(index.role).toBe('reader');
    return {
      index,
      root,
      close: async () => {
        await index.stop();
        await db.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  }

  it("only for the writes announced before, not behind the other requests' writes that keep coming", async () => {
    const r = await reader((real) => async (changes) => (await new Promise((res) => setTimeout(res, 20)), real(changes)));
    let n = 0;
    let writing = true;
    const writer = (async () => {
      while (writing) {
        r.index.announce(path.join(r.root, `f${n++}`), false);
        await new Promise((res) => setTimeout(res, 2));
      }
    })();
    try {
      await new Promise((res) => setTimeout(res, 50));
      const t0 = Date.now();
      const done = r.index.writesQueued().then(() => Date.now() - t0);
      const waited = await Promise.race([done, new Promise<number>((res) => setTimeout(() => res(Infinity), 2000))]);
      expect(waited).toBeLessThan(1000);
    } finally {
      writing = false;
      await writer;
      await r.close();
    }
  }, 30_000);

  it('at most a bounded time when the database does not answer', async () => {
    let open = () => undefined as void;
    const gate = new Promise<void>((res) => (open = res));
    const r = await reader((real) => async (changes) => (await gate, real(changes)));
    try {
      r.index.announce(path.join(r.root, 'a'), false);
      const t0 = Date.now();
      const waited = await Promise.race([
        r.index.writesQueued().then(() => Date.now() - t0),
        new Promise<number>((res) => setTimeout(() => res(Infinity), 3000)),
      ]);
      expect(waited).toBeLessThan(2000);
    } finally {
      open();
      await r.close();
    }
  }, 30_000);
});

describe("a reader's exact folder sizes (quotas)", () => {
  it('are not taken from an index the maintainer has just begun to build again', async () => {
    const dir = await realpath(await mkdtemp(path.join(tmpdir(), 'coffer-index-unit-')));
    const root = path.join(dir, 'root');
    await mkdir(root, { recursive: true });
    await writeFile(path.join(root, 'a'), Buffer.alloc(100));
    const db = await openDb(path.join(dir, 'db.sqlite'));
    const store = createIndexStore(db);
    const first = createIndexService({ store, root, enabled: true, reconcileMs: 0, watch: false });
    const index = createIndexService({ store: { ...store, claimLease: async () => false }, root, enabled: true, reconcileMs: 0, watch: false });
    try {
      await first.start();
      for (let i = 0; i < 400 && first.status !== 'ready'; i++) await new Promise((r) => setTimeout(r, 10));
      await first.stop();
      await index.start();
      expect(index.role).toBe('reader');
      expect(index.status).toBe('ready');
      expect((await index.folderSizes(root, { exact: true }))?.size).toBe(100);
      // Another maintainer's build begins (its stored root differs, say): the state first, then
      // the rows from the root down, the sizes last. The reader read the state "ready" just now.
      await store.setState({ status: 'building', entries: '0', percent: '0' });
      await store.clear();
      const top = await lstat(root);
      await store.insert([{ id: 1, parent: 0, path: '', name: '', is_dir: 1, is_link: 0, size: top.size, tree_size: 0, mtime: Math.floor(top.mtimeMs), inode: top.ino }]);
      expect(await index.folderSizes(root, { exact: true })).toBeNull();
    } finally {
      await index.stop();
      await db.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe("the maintainer's lease", () => {
  it('is given up when its renewal does not answer (a hung connection), as when it fails', async () => {
    const dir = await realpath(await mkdtemp(path.join(tmpdir(), 'coffer-index-unit-')));
    const root = path.join(dir, 'root');
    await mkdir(root, { recursive: true });
    const db = await openDb(path.join(dir, 'db.sqlite'));
    const real = createIndexStore(db);
    let open = () => undefined as void;
    const gate = new Promise<void>((r) => (open = r));
    let claims = 0;
    // The first claim takes the lease; the renewals never come back (the database's other
    // connections still answer: another process may take the lease once it expired).
    const store: IndexStore = { ...real, claimLease: async (h, ms) => (claims++ === 0 ? real.claimLease(h, ms) : (await gate, false)) };
    const index = createIndexService({ store, root, enabled: true, reconcileMs: 0, watch: false, leaseMs: 400, renewMs: 50 });
    try {
      await index.start();
      expect(index.role).toBe('maintainer');
      for (let i = 0; i < 300 && index.role === 'maintainer'; i++) await new Promise((r) => setTimeout(r, 10));
      expect(index.role).toBe('reader');
    } finally {
      open();
      await index.stop();
      await db.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe('the change queue (writes through readers)', () => {
  it("is applied and emptied while the maintainer's own changes keep coming", async () => {
    const dir = await realpath(await mkdtemp(path.join(tmpdir(), 'coffer-index-unit-')));
    const root = path.join(dir, 'root');
    await mkdir(root, { recursive: true });
    const db = await openDb(path.join(dir, 'db.sqlite'));
    const real = createIndexStore(db);
    // Each of the maintainer's own changes takes a few ms to apply (a busy disk or database).
    const store: IndexStore = { ...real, get: async (p) => (p.startsWith('/own') && (await new Promise((r) => setTimeout(r, 5))), real.get(p)) };
    const index = createIndexService({ store, root, enabled: true, reconcileMs: 0, watch: false, pollMs: 50 });
    let writing = true;
    let writer: Promise<void> = Promise.resolve();
    try {
      await index.start();
      for (let i = 0; i < 400 && index.status !== 'ready'; i++) await new Promise((r) => setTimeout(r, 10));
      expect(index.role).toBe('maintainer');
      writer = (async () => {
        for (let n = 0; writing; n++) {
          index.announce(path.join(root, `own${n}`), false);
          await new Promise((r) => setTimeout(r, 1));
        }
      })();
      await writeFile(path.join(root, 'q'), Buffer.alloc(10));
      const [id] = await real.pushChanges([{ path: '/q', deep: false }]);
      const t0 = Date.now();
      while ((await real.queued([id!])).length > 0 && Date.now() - t0 < 3000) await new Promise((r) => setTimeout(r, 20));
      expect(await real.queued([id!])).toEqual([]);
      expect((await real.get('/q'))?.size).toBe(10);
    } finally {
      writing = false;
      await writer;
      await index.stop();
      await db.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
