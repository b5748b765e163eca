/**
 * The trash over real HTTP (docs/api.md §21): delete → trash → restore / delete for good / empty,
 * permissions, scopes, hostile ids and paths, shares, usage, retention and the repair at start.
 * Runs on PostgreSQL too when COFFER_TEST_PG_URL is set.
 */
import { lstat, readdir, readFile, rename, stat, symlink, mkdir, rm } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TrashItem, TrashList } from '@coffer/protocol';
import { buildApp } from '../src/app.js';
import { createDeps } from '../src/services.js';
import { UNSETTLED_GRACE_MS } from '../src/features/trash/service.js';
import { startServer, useServer, type TestServer } from './harness.js';
import { davRaw } from './webdav-helpers.js';
import { denyPath, member, put, rawRequest, type Member } from './resources-support.js';

const exists = (p: string) => lstat(p).then(() => true, () => false);

async function del(srv: TestServer, u: Member, p: string): Promise<void> {
  const res = await srv.fetch(`/api/resources${p}`, { method: 'DELETE', token: u.token });
  expect(res.status).toBe(204);
}

async function trashOf(srv: TestServer, token: string, all = false): Promise<TrashItem[]> {
  const res = await srv.fetch(`/api/trash${all ? '?all=true' : ''}`, { token });
  expect(res.status).toBe(200);
  return ((await res.json()) as TrashList).items;
}

async function only(srv: TestServer, u: Member, name: string): Promise<TrashItem> {
  const hits = (await trashOf(srv, u.token)).filter((i) => i.name === name);
  expect(hits).toHaveLength(1);
  return hits[0]!;
}

const restore = (srv: TestServer, token: string, id: string, query = '') =>
  srv.fetch(`/api/trash/${id}/restore${query}`, { method: 'POST', token });
const purge = (srv: TestServer, token: string, id: string) => srv.fetch(`/api/trash/${id}`, { method: 'DELETE', token });
const trashDir = (srv: TestServer) => path.join(path.dirname(srv.root), 'coffer-data', 'trash');

describe('trash API', () => {
  const srv = useServer();

  it('answers 401 without a token on every route', async () => {
    const id = '0'.repeat(32);
    expect((await srv.fetch('/api/trash')).status).toBe(401);
    expect((await srv.fetch(`/api/trash/${id}/restore`, { method: 'POST' })).status).toBe(401);
    expect((await srv.fetch(`/api/trash/${id}`, { method: 'DELETE' })).status).toBe(401);
    expect((await srv.fetch('/api/trash', { method: 'DELETE' })).status).toBe(401);
  });

  it('moves a deleted file into the trash by a rename and gives the same file back', async () => {
    const u = await member(srv.get());
    const file = await put(u.dir, 'docs/a.txt', 'hello');
    const ino = (await stat(file)).ino;
    await del(srv.get(), u, '/docs/a.txt');
    expect(await exists(file)).toBe(false);
    const listing = (await (await srv.fetch('/api/resources/docs/', { token: u.token })).json()) as { items: unknown[] };
    expect(listing.items).toEqual([]);
    const item = await only(srv.get(), u, 'a.txt');
    expect(item).toMatchObject({ path: '/docs/a.txt', scope: u.scope, isDir: false, size: 5 });
    expect(Date.parse(item.expiresAt) - Date.parse(item.deletedAt)).toBe(30 * 24 * 3600 * 1000);
    // In the data dir, by its id, the same inode (a rename, not a copy).
    expect((await stat(path.join(trashDir(srv.get()), item.id))).ino).toBe(ino);
    const res = await restore(srv.get(), u.token, item.id);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ path: '/docs/a.txt' });
    expect((await stat(file)).ino).toBe(ino);
    expect(await trashOf(srv.get(), u.token)).toEqual([]);
  });

  it('trashes a folder whole, measures it, and restores it with missing parents made again', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'p/q/f/one.txt', '1234');
    await put(u.dir, 'p/q/f/sub/two.txt', '123456');
    await del(srv.get(), u, '/p/q/f');
    await rm(path.join(u.dir, 'p'), { recursive: true });
    await srv.deps.trash.settle();
    const item = await only(srv.get(), u, 'f');
    expect(item).toMatchObject({ isDir: true, size: 10 });
    const usage = (await (await srv.fetch('/api/usage/', { token: u.token })).json()) as { trash: number };
    expect(usage.trash).toBe(10);
    expect((await restore(srv.get(), u.token, item.id)).status).toBe(200);
    expect(await readFile(path.join(u.dir, 'p/q/f/sub/two.txt'), 'utf8')).toBe('123456');
  });

  it('keeps trashed items out of search and archives', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'k/needle-one.txt', 'x');
    await put(u.dir, 'k/keep.txt', 'y');
    await del(srv.get(), u, '/k/needle-one.txt');
    const found = await (await srv.fetch('/api/search/?query=needle', { token: u.token })).text();
    expect(found).toBe('');
    const zip = await srv.fetch('/api/raw/k/?algo=zip', { token: u.token });
    expect(zip.status).toBe(200);
    const bytes = Buffer.from(await zip.arrayBuffer()).toString('latin1');
    expect(bytes).toContain('keep.txt');
    expect(bytes).not.toContain('needle-one.txt');
  });

  it('restores under a free name when the old one is taken, or answers 409 with conflict=fail', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'c.txt', 'old');
    await del(srv.get(), u, '/c.txt');
    await put(u.dir, 'c.txt', 'new');
    const item = await only(srv.get(), u, 'c.txt');
    expect((await restore(srv.get(), u.token, item.id, '?conflict=fail')).status).toBe(409);
    expect((await restore(srv.get(), u.token, item.id, '?conflict=other')).status).toBe(400);
    const res = await restore(srv.get(), u.token, item.id);
    expect(await res.json()).toEqual({ path: '/c(1).txt' });
    expect(await readFile(path.join(u.dir, 'c.txt'), 'utf8')).toBe('new');
    expect(await readFile(path.join(u.dir, 'c(1).txt'), 'utf8')).toBe('old');
  });

  it('deletes one item for good and empties the trash', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'x.txt', 'x');
    await put(u.dir, 'y/z.txt', 'z');
    await put(u.dir, 'w.txt', 'w');
    for (const p of ['/x.txt', '/y', '/w.txt']) await del(srv.get(), u, p);
    const x = await only(srv.get(), u, 'x.txt');
    expect((await purge(srv.get(), u.token, x.id)).status).toBe(204);
    expect(await exists(path.join(trashDir(srv.get()), x.id))).toBe(false);
    expect((await purge(srv.get(), u.token, x.id)).status).toBe(404);
    const ids = (await trashOf(srv.get(), u.token)).map((i) => i.id);
    const res = await srv.fetch('/api/trash', { method: 'DELETE', token: u.token });
    expect(await res.json()).toEqual({ removed: 2 });
    for (const id of ids) expect(await exists(path.join(trashDir(srv.get()), id))).toBe(false);
    expect(await trashOf(srv.get(), u.token)).toEqual([]);
  });

  it('needs create to restore and delete to remove; only an admin sees or empties every trash', async () => {
    const owner = await member(srv.get());
    await put(owner.dir, 'perm.txt', 'p');
    await del(srv.get(), owner, '/perm.txt');
    const item = await only(srv.get(), owner, 'perm.txt');
    const noCreate = await member(srv.get(), { scope: owner.scope, perm: { create: false } });
    const noDelete = await member(srv.get(), { scope: owner.scope, perm: { delete: false } });
    expect((await trashOf(srv.get(), noCreate.token)).map((i) => i.id)).toContain(item.id);
    expect((await restore(srv.get(), noCreate.token, item.id)).status).toBe(403);
    expect((await purge(srv.get(), noDelete.token, item.id)).status).toBe(403);
    expect((await srv.fetch('/api/trash', { method: 'DELETE', token: noDelete.token })).status).toBe(403);
    expect((await srv.fetch('/api/trash?all=true', { token: owner.token })).status).toBe(403);
    expect((await srv.fetch('/api/trash?all=true', { method: 'DELETE', token: owner.token })).status).toBe(403);
    const admin = await srv.login();
    const all = await trashOf(srv.get(), admin, true);
    expect(all.find((i) => i.id === item.id)).toMatchObject({ scope: owner.scope, path: '/perm.txt' });
    // The admin's scope is the root: another scope's item is restored into that scope.
    expect(await (await restore(srv.get(), admin, item.id)).json()).toEqual({ path: '/perm.txt' });
    expect(await readFile(path.join(owner.dir, 'perm.txt'), 'utf8')).toBe('p');
  });

  it("answers 404 for another scope's items and for items a rule hides, 400 for ids that are not ids", async () => {
    const a = await member(srv.get());
    const b = await member(srv.get());
    await put(a.dir, 'secret/s.txt', 's');
    await del(srv.get(), a, '/secret/s.txt');
    const item = await only(srv.get(), a, 's.txt');
    expect(await trashOf(srv.get(), b.token)).toEqual([]);
    expect((await restore(srv.get(), b.token, item.id)).status).toBe(404);
    expect((await purge(srv.get(), b.token, item.id)).status).toBe(404);
    expect((await srv.fetch('/api/trash', { method: 'DELETE', token: b.token })).status).toBe(200);
    const ruled = await member(srv.get(), { scope: a.scope, rules: [denyPath('/secret')] });
    expect(await trashOf(srv.get(), ruled.token)).toEqual([]);
    expect((await restore(srv.get(), ruled.token, item.id)).status).toBe(404);
    expect((await purge(srv.get(), ruled.token, item.id)).status).toBe(404);
    // Sent byte for byte (fetch would resolve the dots).
    for (const bad of ['..', '%2e%2e', '..%2F..%2Fetc', item.id.toUpperCase(), item.id + '0', `${item.id.slice(0, 31)}%00`]) {
      expect((await rawRequest(srv.get(), `/api/trash/${bad}/restore`, { method: 'POST', token: a.token })).status).toBe(400);
      expect((await rawRequest(srv.get(), `/api/trash/${bad}`, { method: 'DELETE', token: a.token })).status).toBe(400);
    }
    expect(await exists(path.join(trashDir(srv.get()), item.id))).toBe(true);
  });

  it('lets no one restore or purge a folder holding entries a rule denies them (S7: a move cannot leave part behind)', async () => {
    const a = await member(srv.get());
    const ruled = await member(srv.get(), { scope: a.scope, rules: [denyPath('/proj/secret')] });
    await put(a.dir, 'proj/secret/key.txt', 'private');
    await put(a.dir, 'proj/open.txt', 'open');
    await del(srv.get(), a, '/proj');
    const item = await only(srv.get(), ruled, 'proj');
    // The name taken again: a restore as /proj(1) would put the denied file out of the rule's reach.
    await put(a.dir, 'proj/new.txt', 'new');
    expect((await restore(srv.get(), ruled.token, item.id)).status).toBe(403);
    expect((await srv.fetch('/api/raw/proj(1)/secret/key.txt', { token: ruled.token })).status).toBe(404);
    expect((await purge(srv.get(), ruled.token, item.id)).status).toBe(403);
    expect((await srv.fetch('/api/trash', { method: 'DELETE', token: ruled.token })).status).toBe(200);
    expect(await exists(path.join(trashDir(srv.get()), item.id, 'secret', 'key.txt'))).toBe(true);
    // The user without the rule still can.
    expect(await (await restore(srv.get(), a.token, item.id)).json()).toEqual({ path: '/proj(1)' });
  });

  it('refuses to restore through a folder that became a link leading out of the scope', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'box/in.txt', 'i');
    await del(srv.get(), u, '/box/in.txt');
    const item = await only(srv.get(), u, 'in.txt');
    await rm(path.join(u.dir, 'box'), { recursive: true });
    const outside = path.join(srv.root, 'outside-restore');
    await mkdir(outside, { recursive: true });
    await symlink(outside, path.join(u.dir, 'box'));
    expect((await restore(srv.get(), u.token, item.id)).status).toBe(403);
    expect(await readdir(outside)).toEqual([]);
    expect(await only(srv.get(), u, 'in.txt')).toMatchObject({ id: item.id });
  });

  it('trashes a link as a link: restore gives the link back, removal never touches its target', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'target/t.txt', 't');
    await symlink('target', path.join(u.dir, 'ln'));
    await del(srv.get(), u, '/ln');
    expect(await readFile(path.join(u.dir, 'target/t.txt'), 'utf8')).toBe('t');
    const item = await only(srv.get(), u, 'ln');
    expect(item).toMatchObject({ isDir: false, size: 0 });
    expect((await restore(srv.get(), u.token, item.id)).status).toBe(200);
    expect((await lstat(path.join(u.dir, 'ln'))).isSymbolicLink()).toBe(true);
    await del(srv.get(), u, '/ln');
    expect((await purge(srv.get(), u.token, (await only(srv.get(), u, 'ln')).id)).status).toBe(204);
    expect(await readFile(path.join(u.dir, 'target/t.txt'), 'utf8')).toBe('t');
  });

  it('leaves denied and hidden descendants in place and trashes the rest (S7)', async () => {
    const u = await member(srv.get(), { rules: [denyPath('/d/secret')], hideDotfiles: true });
    await put(u.dir, 'd/a.txt', 'a');
    await put(u.dir, 'd/secret/s.txt', 's');
    await put(u.dir, 'd/sub/.env', 'e');
    await put(u.dir, 'd/sub/b.txt', 'b');
    await del(srv.get(), u, '/d');
    expect(await exists(path.join(u.dir, 'd/a.txt'))).toBe(false);
    expect(await exists(path.join(u.dir, 'd/sub/b.txt'))).toBe(false);
    expect(await readFile(path.join(u.dir, 'd/secret/s.txt'), 'utf8')).toBe('s');
    expect(await readFile(path.join(u.dir, 'd/sub/.env'), 'utf8')).toBe('e');
    const item = await only(srv.get(), u, 'd');
    expect(await readdir(path.join(trashDir(srv.get()), item.id))).toEqual(['a.txt', 'sub']);
    // The folder is still there (it holds what stayed): the restored part comes back beside it.
    expect(await (await restore(srv.get(), u.token, item.id)).json()).toEqual({ path: '/d(1)' });
    expect(await readFile(path.join(u.dir, 'd(1)/sub/b.txt'), 'utf8')).toBe('b');
  });

  it('stops a share into a trashed item until it is restored', async () => {
    const u = await member(srv.get(), { perm: { share: true, download: true } });
    await put(u.dir, 'shared/s.txt', 'share me');
    const share = (await (await srv.fetch('/api/share/shared/s.txt', { method: 'POST', token: u.token, json: {} })).json()) as { hash: string };
    expect((await srv.fetch(`/api/public/dl/${share.hash}`)).status).toBe(200);
    await del(srv.get(), u, '/shared');
    expect((await srv.fetch(`/api/public/dl/${share.hash}`)).status).toBe(404);
    expect((await restore(srv.get(), u.token, (await only(srv.get(), u, 'shared')).id)).status).toBe(200);
    const back = await srv.fetch(`/api/public/dl/${share.hash}`);
    expect(back.status).toBe(200);
    expect(await back.text()).toBe('share me');
  });

  it('drops the shares of an item deleted for good (purge, empty, sweep): no stale link waits for a reused inode', async () => {
    const u = await member(srv.get(), { perm: { share: true, download: true } });
    const hashes: string[] = [];
    for (const name of ['one', 'two']) {
      await put(u.dir, `gone-${name}/s.txt`, name);
      hashes.push(((await (await srv.fetch(`/api/share/gone-${name}/s.txt`, { method: 'POST', token: u.token, json: {} })).json()) as { hash: string }).hash);
      await del(srv.get(), u, `/gone-${name}`);
    }
    const listed = async () => ((await (await srv.fetch('/api/shares', { token: u.token })).json()) as { hash: string }[]).map((s) => s.hash);
    expect(await listed()).toEqual(expect.arrayContaining(hashes));
    expect((await purge(srv.get(), u.token, (await only(srv.get(), u, 'gone-one')).id)).status).toBe(204);
    expect(await listed()).not.toContain(hashes[0]);
    expect((await srv.fetch('/api/trash', { method: 'DELETE', token: u.token })).status).toBe(200);
    expect(await listed()).not.toContain(hashes[1]);
  });

  it('takes a WebDAV delete into the trash too', async () => {
    const scope = `/home/dav-${Date.now().toString(36)}`;
    const dir = path.join(srv.root, scope);
    await put(dir, 'dav/f.txt', 'over dav');
    const user = await srv.createUser({ scope });
    const basic = `Basic ${Buffer.from(`${user.username}:${user.password}`).toString('base64')}`;
    const res = await srv.fetch('/dav/dav', { method: 'DELETE', headers: { Authorization: basic } });
    expect(res.status).toBe(204);
    expect(await exists(path.join(dir, 'dav'))).toBe(false);
    const token = await srv.login(user.username, user.password);
    const item = (await trashOf(srv.get(), token)).find((i) => i.name === 'dav');
    expect(item).toMatchObject({ path: '/dav', isDir: true });
    expect((await restore(srv.get(), token, item!.id)).status).toBe(200);
    expect(await readFile(path.join(dir, 'dav/f.txt'), 'utf8')).toBe('over dav');
  });

  it('removes items past the retention when the sweeper runs', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'old.txt', 'o');
    await put(u.dir, 'new.txt', 'n');
    await del(srv.get(), u, '/old.txt');
    await del(srv.get(), u, '/new.txt');
    const old = await only(srv.get(), u, 'old.txt');
    await srv.deps.db.kysely.updateTable('trash').set({ deleted_at: Date.now() - 31 * 24 * 3600 * 1000 }).where('id', '=', old.id).execute();
    expect(await srv.deps.trash.sweep()).toBe(1);
    expect((await trashOf(srv.get(), u.token)).map((i) => i.name)).toEqual(['new.txt']);
    expect(await exists(path.join(trashDir(srv.get()), old.id))).toBe(false);
  });
});

describe('trash off (--trash-days 0)', () => {
  const srv = useServer({ trashDays: 0 });
  it('deletes at once, as without a trash', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'gone.txt', 'g');
    await del(srv.get(), u, '/gone.txt');
    expect(await exists(path.join(u.dir, 'gone.txt'))).toBe(false);
    const res = await srv.fetch('/api/trash', { token: u.token });
    expect(await res.json()).toEqual({ retentionDays: 0, items: [] });
    expect(await exists(trashDir(srv.get()))).toBe(false);
  });
});

describe('repair at start', () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  it('settles or drops the records of steps a crash interrupted, and adopts items without a record', async () => {
    const first = await startServer();
    servers.push(first);
    const u = await member(first);
    await put(u.dir, 'stayed.txt', 'never moved');
    await put(u.dir, 'moved.txt', 'moved');
    await put(u.dir, 'restored.txt', 'back');
    const dir = trashDir(first);
    await mkdir(dir, { recursive: true });
    const long = Date.now() - UNSETTLED_GRACE_MS - 1000;
    const row = (id: string, p: string, state: 'moving' | 'restoring' | 'purging') => ({
      id, scope: u.scope, path: p, is_dir: 0, size: 1, deleted_at: long, deleted_by: u.id, state, updated_at: long,
    });
    const ids = { stayed: 'a'.repeat(32), moved: 'b'.repeat(32), restored: 'c'.repeat(32), purging: 'd'.repeat(32), orphan: 'e'.repeat(32) };
    // Killed after the record, before the rename: the item is in place.
    await first.deps.db.kysely.insertInto('trash').values(row(ids.stayed, '/stayed.txt', 'moving')).execute();
    // Killed after the rename, before the record was settled.
    await first.deps.db.kysely.insertInto('trash').values(row(ids.moved, '/moved.txt', 'moving')).execute();
    await rename(path.join(u.dir, 'moved.txt'), path.join(dir, ids.moved));
    // Killed after a restore's rename, before its record went.
    await first.deps.db.kysely.insertInto('trash').values(row(ids.restored, '/restored.txt', 'restoring')).execute();
    // Killed in the middle of a removal.
    await first.deps.db.kysely.insertInto('trash').values(row(ids.purging, '/p.txt', 'purging')).execute();
    await put(dir, ids.purging + '/half.txt', 'h');
    // An item on disk without any record.
    await put(dir, ids.orphan, 'orphan');
    await first.app.close();

    const { deps } = await createDeps(first.config, { failureDelayMs: 0 });
    const app = await buildApp(deps, { logger: false });
    await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      await deps.trash.settle();
      const rows = await deps.db.kysely.selectFrom('trash').select(['id', 'state', 'scope', 'path']).orderBy('id').execute();
      expect(rows).toEqual([
        { id: ids.moved, state: 'trashed', scope: u.scope, path: '/moved.txt' },
        { id: ids.orphan, state: 'trashed', scope: '/', path: `/${ids.orphan}` },
      ]);
      expect(await readFile(path.join(u.dir, 'stayed.txt'), 'utf8')).toBe('never moved');
      expect(await readFile(path.join(u.dir, 'restored.txt'), 'utf8')).toBe('back');
      expect(await exists(path.join(dir, ids.purging))).toBe(false);
      expect(await readFile(path.join(dir, ids.orphan), 'utf8')).toBe('orphan');
    } finally {
      await app.close();
      await deps.db.close();
    }
  });
});

describe('a retention past the last date (--trash-days 100000000)', () => {
  const srv = useServer({ trashDays: 100_000_000 });
  it('lists the trash with the last representable expiry instead of failing', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'kept.txt', 'k');
    await del(srv.get(), u, '/kept.txt');
    expect((await only(srv.get(), u, 'kept.txt')).expiresAt).toBe(new Date(8.64e15).toISOString());
  });
});

describe('a data dir on another filesystem than the root', () => {
  // /dev/shm is a tmpfs, the test root is not: trashing copies instead of renaming.
  const dataDir = path.join('/dev/shm', `coffer-trash-${process.pid}-${Date.now().toString(36)}`);
  const srv = useServer({ dataDir });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('answers 409, not 500, for a FIFO or a socket that cannot be copied there, and leaves it in place', async () => {
    const u = await member(srv.get());
    await mkdir(u.dir, { recursive: true });
    const fifo = path.join(u.dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const sock = path.join(u.dir, 'sock');
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(sock, resolve));
    try {
      await put(u.dir, 'withpipe/a.txt', 'a');
      execFileSync('mkfifo', [path.join(u.dir, 'withpipe/p')]);
      for (const p of ['/pipe', '/sock', '/withpipe']) {
        const res = await srv.fetch(`/api/resources${p}`, { method: 'DELETE', token: u.token });
        expect(res.status, p).toBe(409);
        expect(await res.text(), p).not.toContain(u.dir);
      }
      expect((await lstat(fifo)).isFIFO()).toBe(true);
      expect((await lstat(sock)).isSocket()).toBe(true);
      expect(await readFile(path.join(u.dir, 'withpipe/a.txt'), 'utf8')).toBe('a');
      expect(await trashOf(srv.get(), u.token)).toEqual([]);
      // A plain file still goes (by a copy).
      await put(u.dir, 'plain.txt', 'p');
      await del(srv.get(), u, '/plain.txt');
      expect((await only(srv.get(), u, 'plain.txt')).size).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('restore and WebDAV locks', () => {
  const srv = useServer();
  const lockBody =
    '<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>';

  it('answers 423 when a WebDAV lock covers the place the item goes back to, and keeps it in the trash', async () => {
    const scope = `/home/lk-${Date.now().toString(36)}`;
    const dir = path.join(srv.root, scope);
    await put(dir, 'docs/a.txt', 'a');
    await put(dir, 'deep/sub/b.txt', 'b');
    const user = await srv.createUser({ scope });
    const auth = { username: user.username, password: user.password };
    const token = await srv.login(user.username, user.password);
    for (const p of ['/docs/a.txt', '/deep/sub/b.txt']) {
      expect((await srv.fetch(`/api/resources${p}`, { method: 'DELETE', token })).status).toBe(204);
    }
    const items = await trashOf(srv.get(), token);
    const a = items.find((i) => i.name === 'a.txt')!;
    const b = items.find((i) => i.name === 'b.txt')!;
    // The folder it goes into is locked (depth 0): adding a member needs the lock's token.
    const docs = await davRaw(srv.get(), 'LOCK', '/dav/docs/', { auth, body: lockBody, headers: { depth: '0' } });
    expect(docs.status).toBe(200);
    // An ancestor is locked with depth infinity.
    const deep = await davRaw(srv.get(), 'LOCK', '/dav/deep/', { auth, body: lockBody, headers: { depth: 'infinity' } });
    expect(deep.status).toBe(200);
    for (const item of [a, b]) {
      const res = await restore(srv.get(), token, item.id);
      expect(res.status, item.name).toBe(423);
      expect(await res.text()).not.toContain(dir);
    }
    expect(await exists(path.join(dir, 'docs/a.txt'))).toBe(false);
    expect(await exists(path.join(dir, 'deep/sub/b.txt'))).toBe(false);
    expect((await trashOf(srv.get(), token)).map((i) => i.id).sort()).toEqual([a.id, b.id].sort());
    // Unlocked, they come back.
    for (const [url, lock] of [['/dav/docs/', docs], ['/dav/deep/', deep]] as const) {
      expect((await davRaw(srv.get(), 'UNLOCK', url, { auth, headers: { 'lock-token': String(lock.headers['lock-token']) } })).status).toBe(204);
    }
    expect((await restore(srv.get(), token, a.id)).status).toBe(200);
    expect((await restore(srv.get(), token, b.id)).status).toBe(200);
    expect(await readFile(path.join(dir, 'deep/sub/b.txt'), 'utf8')).toBe('b');
  });

  it('answers 423 when the folders it makes again would join a folder locked with depth 0', async () => {
    const scope = `/home/lk0-${Date.now().toString(36)}`;
    const dir = path.join(srv.root, scope);
    await put(dir, 'top/mid/c.txt', 'c');
    const user = await srv.createUser({ scope });
    const auth = { username: user.username, password: user.password };
    const token = await srv.login(user.username, user.password);
    expect((await srv.fetch('/api/resources/top/mid/c.txt', { method: 'DELETE', token })).status).toBe(204);
    // The folder it was in is gone; restoring makes /top/mid again, a new member of /top.
    await rm(path.join(dir, 'top/mid'), { recursive: true });
    const top = await davRaw(srv.get(), 'LOCK', '/dav/top/', { auth, body: lockBody, headers: { depth: '0' } });
    expect(top.status).toBe(200);
    const item = (await trashOf(srv.get(), token)).find((i) => i.name === 'c.txt')!;
    expect((await restore(srv.get(), token, item.id)).status).toBe(423);
    expect(await exists(path.join(dir, 'top/mid'))).toBe(false);
    expect((await davRaw(srv.get(), 'UNLOCK', '/dav/top/', { auth, headers: { 'lock-token': String(top.headers['lock-token']) } })).status).toBe(204);
    expect((await restore(srv.get(), token, item.id)).status).toBe(200);
    expect(await readFile(path.join(dir, 'top/mid/c.txt'), 'utf8')).toBe('c');
  });
});
