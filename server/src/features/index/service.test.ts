import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDb } from '../../db/index.js';
import { indexedSizeSource } from '../quota/size-source.js';
import { createIndexService, queueablePath } from './service.js';
import { createIndexStore } from './store.js';

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
