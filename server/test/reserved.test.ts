/** Coffer's own files inside the served root are never listed, read, written or archived. */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './harness.js';

describe('the database, data and cache folders inside the root', () => {
  let srv: TestServer;
  let token: string;
  let root: string;
  beforeAll(async () => {
    root = path.join(await mkdtemp(path.join(tmpdir(), 'coffer-reserved-')), 'root');
    await mkdir(root, { recursive: true });
    srv = await startServer({ root, database: path.join(root, 'coffer.db'), cacheDir: path.join(root, 'cache'), dataDir: path.join(root, 'data') });
    token = await srv.login();
    await writeFile(path.join(root, 'visible.txt'), 'hello');
    await mkdir(path.join(root, 'cache'), { recursive: true });
    await symlink(path.join(root, 'coffer.db'), path.join(root, 'link-to-db'));
  });
  afterAll(async () => srv?.close());

  it('leaves them out of the listing', async () => {
    const res = await srv.fetch('/api/resources/', { token });
    expect(res.status).toBe(200);
    const names = ((await res.json()) as { items: { name: string }[] }).items.map((i) => i.name);
    expect(names).toContain('visible.txt');
    for (const own of ['coffer.db', 'coffer.db-wal', 'coffer.db-shm', 'cache', 'data']) expect(names).not.toContain(own);
  });

  it('refuses to read them directly or through a link', async () => {
    for (const p of ['/api/raw/coffer.db', '/api/raw/coffer.db-wal', '/api/resources/coffer.db', '/api/raw/link-to-db', '/api/resources/cache/']) {
      expect((await srv.fetch(p, { token })).status, p).toBe(403);
    }
  });

  it('refuses to overwrite, delete or move onto them', async () => {
    expect((await srv.fetch('/api/resources/coffer.db?override=true', { method: 'POST', token, body: 'x' })).status).toBe(403);
    expect((await srv.fetch('/api/resources/coffer.db', { method: 'DELETE', token })).status).toBe(403);
    const move = await srv.fetch(`/api/resources/visible.txt?action=rename&destination=${encodeURIComponent('/coffer.db')}&override=true`, { method: 'PATCH', token });
    expect(move.status).toBe(403);
    expect(existsSync(path.join(root, 'coffer.db'))).toBe(true);
    expect(existsSync(path.join(root, 'visible.txt'))).toBe(true);
  });

  it('leaves them out of archives and search', async () => {
    const tar = Buffer.from(await (await srv.fetch('/api/raw/?algo=tar', { token })).arrayBuffer());
    expect(tar.includes(Buffer.from('visible.txt'))).toBe(true);
    expect(tar.includes(Buffer.from('coffer.db'))).toBe(false);
    const search = await (await srv.fetch('/api/search/?query=coffer', { token })).text();
    expect(search).not.toContain('coffer.db');
  });

  it('are not brought into an archive or a copy by a link to them inside the root', async () => {
    await mkdir(path.join(root, 'linked'), { recursive: true });
    await writeFile(path.join(root, 'linked', 'mine.txt'), 'mine');
    await symlink(path.join(root, 'coffer.db'), path.join(root, 'linked', 'db-link-zz'));
    await symlink(path.join(root, 'data'), path.join(root, 'linked', 'data-link-zz'));
    const sqlite = Buffer.from('SQLite format 3');
    for (const algo of ['tar', 'zip']) {
      const res = await srv.fetch(`/api/raw/linked/?algo=${algo}`, { token });
      expect(res.status, algo).toBe(200);
      const body = Buffer.from(await res.arrayBuffer());
      expect(body.includes(Buffer.from('mine.txt')), algo).toBe(true);
      expect(body.includes(Buffer.from('db-link-zz')) || body.includes(sqlite), algo).toBe(false);
      expect(body.includes(Buffer.from('data-link-zz')), algo).toBe(false);
    }
    const copy = await srv.fetch(`/api/resources/linked?action=copy&destination=${encodeURIComponent('/linked-copy')}`, { method: 'PATCH', token });
    expect(copy.status).toBe(200);
    expect(existsSync(path.join(root, 'linked-copy', 'mine.txt'))).toBe(true);
    expect(existsSync(path.join(root, 'linked-copy', 'db-link-zz'))).toBe(false);
    // Moving the folder would carry the link along: refused like a folder holding a link out.
    const move = await srv.fetch(`/api/resources/linked?action=rename&destination=${encodeURIComponent('/linked-moved')}`, { method: 'PATCH', token });
    expect(move.status).toBe(403);
    expect(existsSync(path.join(root, 'linked', 'mine.txt'))).toBe(true);
  });
});

describe('a folder holding them', () => {
  let srv: TestServer;
  let token: string;
  let root: string;
  beforeAll(async () => {
    root = path.join(await mkdtemp(path.join(tmpdir(), 'coffer-reserved-')), 'root');
    await mkdir(path.join(root, 'app', 'state'), { recursive: true });
    srv = await startServer({ root, database: path.join(root, 'app', 'state', 'coffer.db') });
    token = await srv.login();
    await writeFile(path.join(root, 'app', 'notes.txt'), 'notes');
  });
  afterAll(async () => srv?.close());

  it('cannot be moved or renamed: the database would lie at a name that is no longer reserved', async () => {
    for (const [from, to] of [['/app', '/moved'], ['/app/state', '/state2']]) {
      const res = await srv.fetch(`/api/resources${from}?action=rename&destination=${encodeURIComponent(to)}`, { method: 'PATCH', token });
      expect(res.status, from).toBe(403);
      expect(existsSync(path.join(root, to.slice(1))), to).toBe(false);
    }
    expect(existsSync(path.join(root, 'app', 'state', 'coffer.db'))).toBe(true);
    expect((await srv.fetch('/api/raw/app/state/coffer.db', { token })).status).toBe(403);
  });

  it('is copied and deleted without them', async () => {
    expect((await srv.fetch(`/api/resources/app?action=copy&destination=${encodeURIComponent('/copy')}`, { method: 'PATCH', token })).status).toBe(200);
    expect(existsSync(path.join(root, 'copy', 'notes.txt'))).toBe(true);
    expect(existsSync(path.join(root, 'copy', 'state', 'coffer.db'))).toBe(false);
    await srv.fetch('/api/resources/app', { method: 'DELETE', token });
    expect(existsSync(path.join(root, 'app', 'state', 'coffer.db'))).toBe(true);
    expect(existsSync(path.join(root, 'app', 'notes.txt'))).toBe(false);
  });
});
