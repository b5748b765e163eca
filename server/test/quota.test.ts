/**
 * Byte quotas (docs/api.md §3.1 `quota`, §3.8, §11) over real HTTP: every write path refuses with
 * 507 before the bytes land — plain POST (declared and streamed), editor saves, copies, tus (at
 * creation and a quota crossed in the middle of an upload), WebDAV PUT (declared and chunked),
 * upload shares (the owner's scope), extract and compress jobs, trash restores — users sharing a
 * scope share its bytes, the trash counts, the users and settings APIs carry the field.
 * Runs on SQLite, and on PostgreSQL with COFFER_TEST_PG_URL.
 */
import http from 'node:http';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Job, QuotaUse, Usage, User } from '@coffer/protocol';
import tarStream from 'tar-stream';
import { describe, expect, it } from 'vitest';
import { useServer, type TestServer } from './harness.js';
import { basic } from './webdav-helpers.js';
import { newUserData } from './users-support.js';

const TUS = { 'Tus-Resumable': '1.0.0' };
const OCTETS = 'application/offset+octet-stream';
let seq = 0;

interface QuotaUser {
  id: number;
  username: string;
  password: string;
  token: string;
  scope: string;
  dir: string;
}

/** A user with `quota` bytes on a fresh scope (or on `scope`, shared). */
async function quotaUser(srv: TestServer, quota: number, scope?: string): Promise<QuotaUser> {
  const s = scope ?? `/q${++seq}`;
  const dir = path.join(srv.root, s.slice(1));
  await mkdir(dir, { recursive: true });
  const u = await srv.createUser({ scope: s, quota });
  return { id: u.id, username: u.username, password: u.password, token: await srv.login(u.username, u.password), scope: s, dir };
}

async function usage(srv: TestServer, u: QuotaUser): Promise<Usage> {
  const res = await srv.fetch('/api/usage/', { token: u.token });
  expect(res.status).toBe(200);
  return (await res.json()) as Usage;
}

/** Every name in a folder, Coffer's staging files included. */
const names = async (dir: string) => (await readdir(dir)).sort();

/**
 * A request whose body is sent chunked, without a length (the server learns its size only by
 * reading it), piece by piece, on a connection of its own; `end` finishes it and gives the answer.
 * The server may answer 507 and close it before the whole body is sent.
 */
function openChunked(srv: TestServer, method: string, p: string, headers: Record<string, string>) {
  const base = new URL(srv.url);
  let answered!: (r: { status: number; text: string }) => void;
  let failed!: (err: Error) => void;
  const answer = new Promise<{ status: number; text: string }>((resolve, reject) => ((answered = resolve), (failed = reject)));
  const req = http.request(
    {
      host: base.hostname,
      port: base.port,
      method,
      path: base.pathname.replace(/\/$/, '') + p,
      agent: false,
      headers: { ...headers, connection: 'close', 'transfer-encoding': 'chunked' },
    },
    (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => answered({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString() }));
    },
  );
  req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : failed(err)));
  return {
    /** Sends `body` in 16 KiB pieces, waiting for the socket to drain. */
    async send(body: Buffer): Promise<void> {
      for (let at = 0; at < body.length && !req.destroyed; at += 16 * 1024) {
        if (!req.write(body.subarray(at, at + 16 * 1024))) await new Promise((r) => req.once('drain', r));
      }
    },
    end() {
      req.end();
      return answer;
    },
    answer,
  };
}

function chunked(srv: TestServer, method: string, p: string, body: Buffer, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  const req = openChunked(srv, method, p, headers);
  void req.send(body).then(() => req.end());
  return req.answer;
}

function expect507(res: { status: number; text: string }, srv: TestServer) {
  expect(res.status, res.text).toBe(507);
  expect(res.text).toMatch(/quota is full/);
  expect(res.text).not.toContain(srv.root);
}

async function answer(res: Response): Promise<{ status: number; text: string }> {
  return { status: res.status, text: await res.text() };
}

async function waitJob(srv: TestServer, token: string, res: Response): Promise<Job> {
  expect(res.status, await res.clone().text()).toBe(202);
  const id = ((await res.json()) as Job).id;
  let job: Job | undefined;
  await expect
    .poll(async () => (job = (await (await srv.fetch(`/api/jobs/${id}`, { token })).json()) as Job).state, { timeout: 20_000 })
    .toMatch(/done|failed|cancelled/);
  return job!;
}

async function tarOf(entries: { name: string; data: Buffer }[]): Promise<Buffer> {
  const pack = tarStream.pack();
  const chunks: Buffer[] = [];
  pack.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise((r) => pack.on('end', r));
  for (const e of entries) {
    await new Promise<void>((resolve, reject) => pack.entry({ name: e.name, size: e.data.length }, e.data, (err) => (err ? reject(err) : resolve())));
  }
  pack.finalize();
  await done;
  return Buffer.concat(chunks);
}

describe('quotas', () => {
  const srv = useServer({ trashDays: 30 });

  describe('POST and PUT /api/resources', () => {
    it('refuses a declared body that does not fit before writing anything, and takes one that does', async () => {
      const u = await quotaUser(srv, 1000);
      const big = await srv.fetch('/api/resources/big.bin', { method: 'POST', token: u.token, body: Buffer.alloc(1001, 1) });
      expect507(await answer(big), srv);
      expect(await names(u.dir)).toEqual([]);
      const ok = await srv.fetch('/api/resources/ok.bin', { method: 'POST', token: u.token, body: Buffer.alloc(600, 1) });
      expect(ok.status).toBe(200);
      // 600 used: 500 more do not fit, 400 do.
      expect507(await answer(await srv.fetch('/api/resources/b.bin', { method: 'POST', token: u.token, body: Buffer.alloc(500, 1) })), srv);
      expect((await srv.fetch('/api/resources/c.bin', { method: 'POST', token: u.token, body: Buffer.alloc(400, 1) })).status).toBe(200);
      expect(await names(u.dir)).toEqual(['c.bin', 'ok.bin']);
    });

    it('stops a streamed body without a length at the chunk that crosses, leaving nothing behind', async () => {
      const u = await quotaUser(srv, 100 * 1024);
      const res = await chunked(srv, 'POST', '/api/resources/stream.bin', Buffer.alloc(300 * 1024, 2), { 'x-auth': u.token });
      expect507(res, srv);
      expect(await names(u.dir)).toEqual([]);
      const fits = await chunked(srv, 'POST', '/api/resources/small.bin', Buffer.alloc(50 * 1024, 2), { 'x-auth': u.token });
      expect(fits.status, fits.text).toBe(200);
    });

    it('counts a replaced file as freed: override and editor saves of the same size pass, a larger save fails and keeps the old content', async () => {
      const u = await quotaUser(srv, 1000);
      await writeFile(path.join(u.dir, 'doc.txt'), Buffer.alloc(900, 'a'));
      const same = await srv.fetch('/api/resources/doc.txt?override=true', { method: 'POST', token: u.token, body: Buffer.alloc(900, 'b') });
      expect(same.status).toBe(200);
      const save = await srv.fetch('/api/resources/doc.txt', { method: 'PUT', token: u.token, body: Buffer.alloc(950, 'c') });
      expect(save.status).toBe(200);
      const tooBig = await srv.fetch('/api/resources/doc.txt', { method: 'PUT', token: u.token, body: Buffer.alloc(1001, 'd') });
      expect507(await answer(tooBig), srv);
      expect(await readFile(path.join(u.dir, 'doc.txt'), 'utf8')).toBe('c'.repeat(950));
      expect(await names(u.dir)).toEqual(['doc.txt']);
    });

    it('gives the hold of a body back at once when its write fails after the body was read', async () => {
      const u = await quotaUser(srv, 64 * 1024);
      // The name is taken (behind Coffer's back) while the body streams: the write ends in 409.
      const req = openChunked(srv, 'POST', '/api/resources/x.bin', { 'x-auth': u.token });
      await req.send(Buffer.alloc(40 * 1024, 1));
      await new Promise((r) => setTimeout(r, 200));
      await writeFile(path.join(u.dir, 'x.bin'), 'taken');
      expect((await req.end()).status).toBe(409);
      // Its 40 KiB never landed: a retry elsewhere fits (5 bytes used).
      const again = await srv.fetch('/api/resources/y.bin', { method: 'POST', token: u.token, body: Buffer.alloc(40 * 1024, 1) });
      expect(again.status, await again.text()).toBe(200);
      // A WebDAV PUT likewise.
      const auth = { authorization: basic(u.username, u.password) };
      const put = openChunked(srv, 'PUT', '/dav/z.bin', auth);
      await put.send(Buffer.alloc(20 * 1024, 1));
      await new Promise((r) => setTimeout(r, 200));
      await writeFile(path.join(u.dir, 'z.bin'), 'taken');
      expect((await put.end()).status).toBe(409);
      const more = await srv.fetch('/api/resources/w.bin', { method: 'POST', token: u.token, body: Buffer.alloc(20 * 1024, 1) });
      expect(more.status, await more.text()).toBe(200);
    });
  });

  describe('copies and moves', () => {
    it('refuses a copy of a folder that does not fit; a move inside the scope is free', async () => {
      const u = await quotaUser(srv, 1000);
      await mkdir(path.join(u.dir, 'src', 'deep'), { recursive: true });
      await writeFile(path.join(u.dir, 'src', 'a'), Buffer.alloc(300));
      await writeFile(path.join(u.dir, 'src', 'deep', 'b'), Buffer.alloc(300));
      const copy = await srv.fetch(`/api/resources/src?action=copy&destination=${encodeURIComponent('/copy')}`, { method: 'PATCH', token: u.token });
      expect507(await answer(copy), srv);
      expect(await names(u.dir)).toEqual(['src']);
      const move = await srv.fetch(`/api/resources/src?action=rename&destination=${encodeURIComponent('/moved')}`, { method: 'PATCH', token: u.token });
      expect(move.status).toBe(200);
      await writeFile(path.join(u.dir, 'small'), Buffer.alloc(100));
      const fits = await srv.fetch(`/api/resources/small?action=copy&destination=${encodeURIComponent('/small2')}`, { method: 'PATCH', token: u.token });
      expect(fits.status).toBe(200);
    });
  });

  describe('tus', () => {
    const create = (u: QuotaUser, p: string, length: number) =>
      srv.fetch(`/api/tus/${p}`, { method: 'POST', token: u.token, headers: { ...TUS, 'Upload-Length': String(length) } });
    const patch = (u: QuotaUser, p: string, offset: number, body: Buffer) =>
      srv.fetch(`/api/tus/${p}`, { method: 'PATCH', token: u.token, headers: { ...TUS, 'Content-Type': OCTETS, 'Upload-Offset': String(offset) }, body });

    it('refuses an Upload-Length that does not fit at creation', async () => {
      const u = await quotaUser(srv, 1000);
      expect507(await answer(await create(u, 'big.bin', 1001)), srv);
      expect((await create(u, 'fits.bin', 1000)).status).toBe(201);
    });

    it('refuses a chunk once the quota was crossed in the middle of the upload, before its bytes land', async () => {
      const u = await quotaUser(srv, 1000);
      expect((await create(u, 'b.bin', 600)).status).toBe(201);
      // b's first half lands while there is room.
      expect((await patch(u, 'b.bin', 0, Buffer.alloc(300, 2))).status).toBe(204);
      // A plain upload counts b's promise (600 of the 1000): 600 more do not fit.
      expect507(await answer(await srv.fetch('/api/resources/a.bin', { method: 'POST', token: u.token, body: Buffer.alloc(600, 1) })), srv);
      expect(await names(u.dir)).toEqual([]);
      // 600 written behind Coffer's back (seen once their measure expires): b no longer fits.
      await writeFile(path.join(u.dir, 'a.bin'), Buffer.alloc(600, 1));
      srv.deps.quota.changed(path.join(u.dir, 'a.bin'));
      expect507(await answer(await patch(u, 'b.bin', 300, Buffer.alloc(300, 2))), srv);
      const head = await srv.fetch('/api/tus/b.bin', { method: 'HEAD', token: u.token, headers: TUS });
      expect(head.headers.get('upload-offset')).toBe('300');
      expect(await names(u.dir)).toEqual(['a.bin']);
      // Room again (a removed for good: the trash would still count it): b resumes and finishes.
      expect((await srv.fetch('/api/resources/a.bin', { method: 'DELETE', token: u.token })).status).toBe(204);
      const trashed = await srv.fetch('/api/trash', { token: u.token });
      const items = ((await trashed.json()) as { items: { id: string }[] }).items;
      for (const it of items) expect((await srv.fetch(`/api/trash/${it.id}`, { method: 'DELETE', token: u.token })).status).toBe(204);
      expect((await patch(u, 'b.bin', 300, Buffer.alloc(300, 2))).status).toBe(204);
      expect(await names(u.dir)).toEqual(['b.bin']);
    });

    it('makes plain uploads, copies and WebDAV PUTs count the unfinished uploads into the scope (before: each passed beside them)', async () => {
      const u = await quotaUser(srv, 1000);
      expect((await create(u, 'x.bin', 600)).status).toBe(201);
      expect((await patch(u, 'x.bin', 0, Buffer.alloc(100, 1))).status).toBe(204);
      expect507(await answer(await srv.fetch('/api/resources/a.bin', { method: 'POST', token: u.token, body: Buffer.alloc(500, 1) })), srv);
      expect507(await chunked(srv, 'POST', '/api/resources/s.bin', Buffer.alloc(500, 2), { 'x-auth': u.token }), srv);
      expect507(await answer(await srv.fetch('/dav/d.bin', { method: 'PUT', headers: { authorization: basic(u.username, u.password) }, body: Buffer.alloc(500) })), srv);
      expect((await srv.fetch('/api/resources/small.bin', { method: 'POST', token: u.token, body: Buffer.alloc(300, 1) })).status).toBe(200);
      // 600 promised + 300 written: a copy of small.bin (300) does not fit.
      const copy = await srv.fetch(`/api/resources/small.bin?action=copy&destination=${encodeURIComponent('/copy.bin')}`, { method: 'PATCH', token: u.token });
      expect507(await answer(copy), srv);
      // x finishes within its promise, and what it promised is then simply used.
      expect((await patch(u, 'x.bin', 100, Buffer.alloc(500, 1))).status).toBe(204);
      expect(await names(u.dir)).toEqual(['small.bin', 'x.bin']);
      expect507(await answer(await srv.fetch('/api/resources/b.bin', { method: 'POST', token: u.token, body: Buffer.alloc(101, 1) })), srv);
      expect((await srv.fetch('/api/resources/b.bin', { method: 'POST', token: u.token, body: Buffer.alloc(100, 1) })).status).toBe(200);
    });

    it('counts the whole lengths of the other unfinished uploads into the scope: uploads started together cannot pass the quota together', async () => {
      const u = await quotaUser(srv, 1000);
      expect((await create(u, 'x.bin', 600)).status).toBe(201);
      // Each fits alone, not both: x's 600 are promised, though none of its bytes has landed.
      expect507(await answer(await create(u, 'y.bin', 600)), srv);
      expect((await create(u, 'z.bin', 400)).status).toBe(201);
      // Its own length is not counted twice: x's chunks pass with z promised beside it.
      expect((await patch(u, 'x.bin', 0, Buffer.alloc(600, 1))).status).toBe(204);
      expect((await patch(u, 'z.bin', 0, Buffer.alloc(400, 3))).status).toBe(204);
      expect(await names(u.dir)).toEqual(['x.bin', 'z.bin']);
      // A cancelled upload gives its promise back.
      const v = await quotaUser(srv, 1000);
      expect((await create(v, 'p.bin', 700)).status).toBe(201);
      expect507(await answer(await create(v, 'q.bin', 700)), srv);
      expect((await srv.fetch('/api/tus/p.bin', { method: 'DELETE', token: v.token, headers: TUS })).status).toBe(204);
      expect((await create(v, 'q.bin', 700)).status).toBe(201);
    });

    it('stops counting an upload left idle for ten minutes (made with headers alone, it held room for a day); it is checked in full when it goes on', async () => {
      const u = await quotaUser(srv, 1000);
      expect((await create(u, 'idle.bin', 700)).status).toBe(201);
      expect507(await answer(await create(u, 'new.bin', 700)), srv);
      // Its last touch eleven minutes ago: no longer promised.
      await srv.deps.db.kysely.updateTable('uploads').set({ updated_at: Date.now() - 11 * 60_000 }).where('virtual_path', 'like', '%idle.bin').execute();
      expect((await create(u, 'new.bin', 700)).status).toBe(201);
      // The idle one goes on: new.bin's 700 are promised now, so its chunk does not fit.
      expect507(await answer(await patch(u, 'idle.bin', 0, Buffer.alloc(100, 1))), srv);
      expect((await patch(u, 'new.bin', 0, Buffer.alloc(700, 2))).status).toBe(204);
    });

    it('stops counting an upload made with headers alone after a minute (an upload share visitor held the owner\'s room for ten), one that has bytes after ten', async () => {
      const u = await quotaUser(srv, 1000);
      expect((await create(u, 'empty.bin', 700)).status).toBe(201);
      expect((await create(u, 'sent.bin', 200)).status).toBe(201);
      expect((await patch(u, 'sent.bin', 0, Buffer.alloc(50, 1))).status).toBe(204);
      // Both last touched two minutes ago.
      await srv.deps.db.kysely
        .updateTable('uploads')
        .set({ updated_at: Date.now() - 2 * 60_000, created_at: Date.now() - 2 * 60_000 })
        .where((eb) => eb.or([eb('virtual_path', 'like', '%empty.bin'), eb('virtual_path', 'like', '%sent.bin')]))
        .execute();
      // sent.bin's 200 still count; empty.bin's 700 no longer do: 800 fit beside, 801 do not.
      expect507(await answer(await srv.fetch('/api/resources/a.bin', { method: 'POST', token: u.token, body: Buffer.alloc(801, 1) })), srv);
      expect((await srv.fetch('/api/resources/a.bin', { method: 'POST', token: u.token, body: Buffer.alloc(800, 1) })).status).toBe(200);
    });

    it('admits one of several uploads created at once that fit alone but not together', async () => {
      const u = await quotaUser(srv, 1000);
      const made = await Promise.all(['p1.bin', 'p2.bin', 'p3.bin'].map(async (n) => ({ n, res: await answer(await create(u, n, 600)) })));
      const ok = made.filter((m) => m.res.status === 201);
      expect(ok.length).toBe(1);
      for (const m of made) if (m.res.status !== 201) expect507(m.res, srv);
      // The one admitted goes through; the refused ones left nothing that counts.
      expect((await patch(u, ok[0]!.n, 0, Buffer.alloc(600, 1))).status).toBe(204);
      expect((await create(u, 'rest.bin', 400)).status).toBe(201);
    });

    it('counts an unfinished upload that replaces a file by what it adds beyond that file', async () => {
      const u = await quotaUser(srv, 1000);
      await writeFile(path.join(u.dir, 'x.bin'), Buffer.alloc(500, 1));
      const over = await srv.fetch('/api/tus/x.bin?override=true', { method: 'POST', token: u.token, headers: { ...TUS, 'Upload-Length': '600' } });
      expect(over.status).toBe(201);
      // 500 on disk, x grows by 100: 400 more fit, 401 do not.
      expect507(await answer(await create(u, 'big.bin', 401)), srv);
      expect((await create(u, 'y.bin', 400)).status).toBe(201);
      expect((await patch(u, 'y.bin', 0, Buffer.alloc(400, 2))).status).toBe(204);
      expect((await patch(u, 'x.bin', 0, Buffer.alloc(600, 3))).status).toBe(204);
      expect(await names(u.dir)).toEqual(['x.bin', 'y.bin']);
    });

    it('counts another user’s unfinished upload into a shared scope, and a visitor’s into the owner’s', async () => {
      const a = await quotaUser(srv, 1000);
      const b = await quotaUser(srv, 1000, a.scope);
      expect((await create(a, 'mine.bin', 700)).status).toBe(201);
      expect507(await answer(await create(b, 'theirs.bin', 700)), srv);
      await mkdir(path.join(a.dir, 'inbox'));
      const made = await srv.fetch('/api/share/inbox/', { method: 'POST', token: a.token, json: { kind: 'upload' } });
      const { hash } = (await made.json()) as { hash: string };
      const visitor = await srv.fetch(`/api/public/tus/${hash}`, {
        method: 'POST',
        headers: { ...TUS, 'Upload-Length': '400', 'Upload-Metadata': `filename ${Buffer.from('v.bin').toString('base64')}` },
      });
      expect507(await answer(visitor), srv);
      // A scope beside it (same name prefix, another folder) is not counted.
      const c = await quotaUser(srv, 1000, `${a.scope}x`);
      expect((await create(c, 'other.bin', 700)).status).toBe(201);
      // Characters outside the BMP and case: the prefix is compared byte for byte, by characters.
      const d = await quotaUser(srv, 1000, `/Émoji-😀-${seq}`);
      expect((await create(d, 'one.bin', 700)).status).toBe(201);
      expect507(await answer(await create(d, 'two.bin', 700)), srv);
      const e = await quotaUser(srv, 1000, `/émoji-😀-${seq}`);
      expect((await create(e, 'one.bin', 700)).status).toBe(201);
    });

    it('counts an upload share visitor against the owner scope', async () => {
      const u = await quotaUser(srv, 1000);
      await mkdir(path.join(u.dir, 'inbox'));
      const made = await srv.fetch('/api/share/inbox/', { method: 'POST', token: u.token, json: { kind: 'upload' } });
      expect(made.status, await made.clone().text()).toBe(200);
      const { hash } = (await made.json()) as { hash: string };
      await writeFile(path.join(u.dir, 'taken'), Buffer.alloc(800));
      const visitor = await srv.fetch(`/api/public/tus/${hash}`, {
        method: 'POST',
        headers: { ...TUS, 'Upload-Length': '300', 'Upload-Metadata': `filename ${Buffer.from('v.bin').toString('base64')}` },
      });
      // 800 written behind Coffer's back are seen once measured: a fresh scope is measured now.
      expect507(await answer(visitor), srv);
      expect(await names(path.join(u.dir, 'inbox'))).toEqual([]);
    });
  });

  describe('WebDAV PUT', () => {
    it('refuses a declared length and a chunked body that do not fit; nothing lands', async () => {
      const u = await quotaUser(srv, 64 * 1024);
      const auth = { authorization: basic(u.username, u.password) };
      const declared = await answer(await srv.fetch('/dav/big.bin', { method: 'PUT', headers: auth, body: Buffer.alloc(65 * 1024) }));
      expect507(declared, srv);
      expect507(await chunked(srv, 'PUT', '/dav/stream.bin', Buffer.alloc(200 * 1024, 3), auth), srv);
      expect(await names(u.dir)).toEqual([]);
      const ok = await chunked(srv, 'PUT', '/dav/ok.bin', Buffer.alloc(10 * 1024, 3), auth);
      expect(ok.status).toBe(201);
    });

    it('holds what parallel PUTs are writing: two bodies that fit alone, streamed at once, do not both land', async () => {
      const u = await quotaUser(srv, 64 * 1024);
      const auth = { authorization: basic(u.username, u.password) };
      const half = Buffer.alloc(20 * 1024, 7);
      // Two chunked PUTs of 40 KiB each (64 KiB quota), their halves sent in turns: the second
      // halves arrive while the first halves are held.
      const a = openChunked(srv, 'PUT', '/dav/a.bin', auth);
      const b = openChunked(srv, 'PUT', '/dav/b.bin', auth);
      await a.send(half);
      await b.send(half);
      await new Promise((r) => setTimeout(r, 200));
      await a.send(half);
      await new Promise((r) => setTimeout(r, 200));
      await b.send(half);
      const statuses = [(await a.end()).status, (await b.end()).status].sort();
      expect(statuses).toEqual([201, 507]);
      expect((await names(u.dir)).filter((n) => n.endsWith('.bin')).length).toBe(1);
      // Nothing stays held: the room left after the one that landed is usable.
      const ok = await chunked(srv, 'PUT', '/dav/c.bin', Buffer.alloc(20 * 1024, 3), auth);
      expect(ok.status).toBe(201);
    });

    it('counts a body being streamed once: its staging file in the scope is not measured besides its hold', async () => {
      const u = await quotaUser(srv, 8 * 1024 * 1024);
      const auth = { authorization: basic(u.username, u.password) };
      // 3 MiB sent (more than one write batch: they are on disk in the staging file).
      const a = openChunked(srv, 'PUT', '/dav/a.bin', auth);
      await a.send(Buffer.alloc(3 * 1024 * 1024, 1));
      await new Promise((r) => setTimeout(r, 300));
      // A folder made through Coffer: the scope is measured again, a's staging file in it.
      expect((await srv.fetch('/api/resources/d/', { method: 'POST', token: u.token })).status).toBe(200);
      // 3 MiB held + 3 MiB fit in 8 MiB.
      const b = await srv.fetch('/dav/b.bin', { method: 'PUT', headers: auth, body: Buffer.alloc(3 * 1024 * 1024, 2) });
      expect(b.status, await b.text()).toBe(201);
      expect((await a.end()).status).toBe(201);
    });

    it('lets parallel PUTs replace files with the same sizes near the quota: only growth is held', async () => {
      const u = await quotaUser(srv, 64 * 1024);
      const auth = { authorization: basic(u.username, u.password) };
      await writeFile(path.join(u.dir, 'x.bin'), Buffer.alloc(30 * 1024, 1));
      await writeFile(path.join(u.dir, 'y.bin'), Buffer.alloc(30 * 1024, 1));
      const half = Buffer.alloc(15 * 1024, 2);
      const x = openChunked(srv, 'PUT', '/dav/x.bin', auth);
      const y = openChunked(srv, 'PUT', '/dav/y.bin', auth);
      await x.send(half);
      await y.send(half);
      await new Promise((r) => setTimeout(r, 200));
      await x.send(half);
      await new Promise((r) => setTimeout(r, 200));
      await y.send(half);
      expect([(await x.end()).status, (await y.end()).status]).toEqual([204, 204]);
      expect((await readFile(path.join(u.dir, 'y.bin')))[0]).toBe(2);
    });

    it('counts a parallel PUT that landed first against the one still streaming', async () => {
      const u = await quotaUser(srv, 64 * 1024);
      const auth = { authorization: basic(u.username, u.password) };
      const half = Buffer.alloc(20 * 1024, 7);
      // Two chunked PUTs of 40 KiB each (64 KiB quota): a ends and lands while b is half sent;
      // b measured the scope before a landed, and a's bytes must still count for it.
      const a = openChunked(srv, 'PUT', '/dav/a.bin', auth);
      const b = openChunked(srv, 'PUT', '/dav/b.bin', auth);
      await a.send(half);
      await b.send(half);
      await new Promise((r) => setTimeout(r, 200));
      await a.send(half);
      expect((await a.end()).status).toBe(201);
      await b.send(half);
      expect507(await b.end(), srv);
      expect((await names(u.dir)).filter((n) => n.endsWith('.bin'))).toEqual(['a.bin']);
    });

    it('counts what a PUT is streaming against a tus upload and a copy started meanwhile', async () => {
      const u = await quotaUser(srv, 64 * 1024);
      const auth = { authorization: basic(u.username, u.password) };
      await writeFile(path.join(u.dir, 'small.bin'), Buffer.alloc(20 * 1024, 1));
      const put = openChunked(srv, 'PUT', '/dav/big.bin', auth);
      await put.send(Buffer.alloc(40 * 1024, 7));
      await new Promise((r) => setTimeout(r, 200));
      // 20 KiB on disk and 40 KiB held: 20 KiB more do not fit.
      const tus = await srv.fetch('/api/tus/t.bin', { method: 'POST', token: u.token, headers: { ...TUS, 'Upload-Length': String(20 * 1024) } });
      expect507(await answer(tus), srv);
      const copy = await srv.fetch(`/api/resources/small.bin?action=copy&destination=${encodeURIComponent('/copy.bin')}`, { method: 'PATCH', token: u.token });
      expect507(await answer(copy), srv);
      expect((await put.end()).status).toBe(201);
      expect((await names(u.dir)).filter((n) => n.endsWith('.bin'))).toEqual(['big.bin', 'small.bin']);
    });
  });

  describe('jobs', () => {
    it('fails an extraction whose files do not fit, leaving nothing', async () => {
      const u = await quotaUser(srv, 40 * 1024);
      await writeFile(path.join(u.dir, 'a.tar'), await tarOf([{ name: 'one', data: Buffer.alloc(10 * 1024, 1) }, { name: 'two', data: Buffer.alloc(20 * 1024, 1) }]));
      await mkdir(path.join(u.dir, 'out'));
      const job = await waitJob(srv, u.token, await srv.fetch('/api/extract/a.tar', { method: 'POST', token: u.token, json: { destination: '/out' } }));
      expect(job.state).toBe('failed');
      expect(job.error).toMatch(/quota is full/);
      expect(await names(path.join(u.dir, 'out'))).toEqual([]);
    });

    it('fails a compression whose archive does not fit, leaving nothing', async () => {
      const u = await quotaUser(srv, 40 * 1024);
      await mkdir(path.join(u.dir, 'src'));
      // Random bytes do not compress: the archive is as big as its sources.
      const { randomBytes } = await import('node:crypto');
      await writeFile(path.join(u.dir, 'src', 'r.bin'), randomBytes(25 * 1024));
      const job = await waitJob(srv, u.token, await srv.fetch('/api/compress/', { method: 'POST', token: u.token, json: { files: ['src'], destination: '/', name: 'a.zip' } }));
      expect(job.state).toBe('failed');
      expect(job.error).toMatch(/quota is full/);
      expect(await names(u.dir)).toEqual(['src']);
    });
  });

  describe('the trash and shared scopes', () => {
    it('counts the trash, and refuses a restore while the scope is over its quota', async () => {
      const u = await quotaUser(srv, 1000);
      expect((await srv.fetch('/api/resources/t.bin', { method: 'POST', token: u.token, body: Buffer.alloc(700) })).status).toBe(200);
      expect((await srv.fetch('/api/resources/t.bin', { method: 'DELETE', token: u.token })).status).toBe(204);
      await expect.poll(async () => (await usage(srv, u)).quotaUsed, { timeout: 10_000 }).toBe(700);
      // The trash holds 700: 400 more do not fit.
      expect507(await answer(await srv.fetch('/api/resources/n.bin', { method: 'POST', token: u.token, body: Buffer.alloc(400) })), srv);
      const items = ((await (await srv.fetch('/api/trash', { token: u.token })).json()) as { items: { id: string }[] }).items;
      expect(items).toHaveLength(1);
      // The quota lowered below what is used: the restore is refused, the item stays in the trash.
      await srv.deps.users.update({ ...(await srv.deps.users.byId(u.id))!, quota: 500 });
      const restore = await srv.fetch(`/api/trash/${items[0]!.id}/restore`, { method: 'POST', token: u.token });
      expect507(await answer(restore), srv);
      expect(await names(u.dir)).toEqual([]);
      await srv.deps.users.update({ ...(await srv.deps.users.byId(u.id))!, quota: 1000 });
      expect((await srv.fetch(`/api/trash/${items[0]!.id}/restore`, { method: 'POST', token: u.token })).status).toBe(200);
      expect(await names(u.dir)).toEqual(['t.bin']);
    });

    it('makes users sharing a scope share its bytes, each held to its own quota', async () => {
      const a = await quotaUser(srv, 1000);
      const b = await quotaUser(srv, 2000, a.scope);
      expect((await srv.fetch('/api/resources/a.bin', { method: 'POST', token: a.token, body: Buffer.alloc(900) })).status).toBe(200);
      expect((await usage(srv, b)).quotaUsed).toBe(900);
      expect507(await answer(await srv.fetch('/api/resources/x.bin', { method: 'POST', token: a.token, body: Buffer.alloc(200) })), srv);
      expect((await srv.fetch('/api/resources/y.bin', { method: 'POST', token: b.token, body: Buffer.alloc(200) })).status).toBe(200);
    });
  });

  describe('GET /api/usage and GET /api/quotas', () => {
    it('answers quota and quotaUsed only when the user has a quota', async () => {
      const u = await quotaUser(srv, 5000);
      await writeFile(path.join(u.dir, 'f'), Buffer.alloc(1234));
      const withQuota = await usage(srv, u);
      expect(withQuota).toMatchObject({ quota: 5000, quotaUsed: 1234 });
      expect(withQuota.total).toBeGreaterThan(0);
      const admin = await srv.login();
      const free = (await (await srv.fetch('/api/usage/', { token: admin })).json()) as Usage;
      expect(free.quota).toBeUndefined();
      expect(free.quotaUsed).toBeUndefined();
    });

    it('lists every user with quota and use for admins only', async () => {
      const u = await quotaUser(srv, 3000);
      await writeFile(path.join(u.dir, 'f'), Buffer.alloc(2000));
      expect((await srv.fetch('/api/quotas')).status).toBe(401);
      expect((await srv.fetch('/api/quotas', { token: u.token })).status).toBe(403);
      const res = await srv.fetch('/api/quotas', { token: await srv.login() });
      expect(res.status).toBe(200);
      const list = (await res.json()) as QuotaUse[];
      expect(list.find((q) => q.id === u.id)).toEqual({ id: u.id, quota: 3000, used: 2000 });
      expect(list.find((q) => q.id === 1)?.quota).toBe(0);
    });
  });

  describe('the users and settings APIs', () => {
    const put = (token: string, id: number, which: string[], data: Record<string, unknown>) =>
      srv.fetch(`/api/users/${id}`, { method: 'PUT', token, json: { what: 'user', which, current_password: 'admin-password-for-tests', data: { id, ...data } } });

    it('lets an admin set a quota, never the user itself; wrong types and out-of-range values are 400', async () => {
      const admin = await srv.login();
      const u = await quotaUser(srv, 0);
      expect((await put(admin, u.id, ['quota'], { quota: 4096 })).status).toBe(200);
      const read = (await (await srv.fetch(`/api/users/${u.id}`, { token: admin })).json()) as User;
      expect(read.quota).toBe(4096);
      expect((await put(u.token, u.id, ['quota'], { quota: 0 })).status).toBe(403);
      for (const bad of ['4096', -1, 1.5, Number.MAX_SAFE_INTEGER + 2, null, { n: 1 }]) {
        expect((await put(admin, u.id, ['quota'], { quota: bad })).status, JSON.stringify(bad)).toBe(400);
      }
      expect((await put(admin, u.id, ['quota'], {})).status).toBe(400);
      expect((await srv.deps.users.byId(u.id))!.quota).toBe(4096);
    });

    it("keeps the stored quota on a full replace without it (File Browser's client)", async () => {
      const admin = await srv.login();
      const u = await quotaUser(srv, 777);
      const current = (await (await srv.fetch(`/api/users/${u.id}`, { token: admin })).json()) as User & { quota?: number };
      delete current.quota;
      const res = await put(admin, u.id, ['all'], { ...current, scope: u.scope, password: '' });
      expect(res.status, await res.text()).toBe(200);
      expect((await srv.deps.users.byId(u.id))!.quota).toBe(777);
    });

    it('gives new users the default quota of the settings, which a settings save without it keeps', async () => {
      const admin = await srv.login();
      const settings = (await (await srv.fetch('/api/settings', { token: admin })).json()) as { defaults: Record<string, unknown> };
      expect(settings.defaults.quota).toBe(0);
      const withQuota = { ...settings, defaults: { ...settings.defaults, quota: 123456 } };
      expect((await srv.fetch('/api/settings', { method: 'PUT', token: admin, json: withQuota })).status).toBe(200);
      const without = structuredClone(withQuota);
      delete without.defaults.quota;
      expect((await srv.fetch('/api/settings', { method: 'PUT', token: admin, json: without })).status).toBe(200);
      const again = (await (await srv.fetch('/api/settings', { token: admin })).json()) as { defaults: Record<string, unknown> };
      expect(again.defaults.quota).toBe(123456);
      expect((await srv.fetch('/api/settings', { method: 'PUT', token: admin, json: { ...withQuota, defaults: { ...withQuota.defaults, quota: 'lots' } } })).status).toBe(400);
      const made = await srv.fetch('/api/users', { method: 'POST', token: admin, json: { what: 'user', which: [], current_password: 'admin-password-for-tests', data: newUserData() } });
      expect(made.status, await made.clone().text()).toBe(201);
      const id = Number(made.headers.get('location')!.split('/').pop());
      expect((await srv.deps.users.byId(id))!.quota).toBe(123456);
      expect((await srv.fetch('/api/settings', { method: 'PUT', token: admin, json: { ...withQuota, defaults: { ...withQuota.defaults, quota: 0 } } })).status).toBe(200);
    });
  });
});

describe('quotas: a change behind Coffer\'s back', () => {
  const srv = useServer({}, { quotaCacheMs: 300 });

  it('is seen once the measured size expires; Coffer\'s own writes at once', async () => {
    const u = await quotaUser(srv, 10_000);
    expect((await usage(srv, u)).quotaUsed).toBe(0);
    await writeFile(path.join(u.dir, 'outside'), Buffer.alloc(4000));
    await expect.poll(async () => (await usage(srv, u)).quotaUsed, { timeout: 5_000, interval: 100 }).toBe(4000);
    expect((await srv.fetch('/api/resources/inside', { method: 'POST', token: u.token, body: Buffer.alloc(1000) })).status).toBe(200);
    expect((await usage(srv, u)).quotaUsed).toBe(5000);
  });
});
