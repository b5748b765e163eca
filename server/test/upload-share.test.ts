/**
 * Upload-only shares, "file requests" (docs/api.md §23) over real HTTP: creation and the share
 * object, the visitor's page, tus through the share with a real tus client, cleaned names and
 * hostile paths, never overwriting, limits before and after the bytes, no listing or download by
 * any public route, passwords through the share-password throttle, the share ending with its
 * folder or its owner's `create`, per-address limits, 507, and hooks as the owner.
 * Runs on SQLite, and on PostgreSQL with COFFER_TEST_PG_URL.
 */
import { mkdir, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Share } from '@coffer/protocol';
import * as tus from 'tus-js-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { startServer, useServer, type TestServer } from './harness.js';
import { actor, createShare, put, rawRequest, share, type Actor } from './shares-support.js';

const TUS = { 'Tus-Resumable': '1.0.0' };
const OCTETS = 'application/offset+octet-stream';
const b64 = (t: string) => Buffer.from(t).toString('base64');

interface Created {
  status: number;
  location: string;
  name: string;
  id: string;
  text: string;
  limit: string | null;
}

async function post(srv: TestServer, hash: string, name: string | undefined, length: number | string, headers: Record<string, string> = {}): Promise<Created> {
  const res = await srv.fetch(`/api/public/tus/${hash}`, {
    method: 'POST',
    headers: { ...TUS, 'Upload-Length': String(length), ...(name === undefined ? {} : { 'Upload-Metadata': `filename ${b64(name)}` }), ...headers },
  });
  const location = res.headers.get('location') ?? '';
  return {
    status: res.status,
    location,
    name: decodeURIComponent(res.headers.get('coffer-file-name') ?? ''),
    id: location.split('/').pop() ?? '',
    text: await res.text(),
    limit: res.headers.get('coffer-limit'),
  };
}

function patch(srv: TestServer, hash: string, id: string, offset: number, body: Buffer, headers: Record<string, string> = {}) {
  return srv.fetch(`/api/public/tus/${hash}/${id}`, {
    method: 'PATCH',
    headers: { ...TUS, 'Content-Type': OCTETS, 'Upload-Offset': String(offset), ...headers },
    body,
  });
}

/** A whole file in one POST and one PATCH; returns the name it got. */
async function send(srv: TestServer, hash: string, name: string, data: Buffer | string, headers: Record<string, string> = {}): Promise<string> {
  const buf = Buffer.from(data);
  const c = await post(srv, hash, name, buf.length, headers);
  expect(c.status, c.text).toBe(201);
  if (buf.length === 0) return c.name;
  const res = await patch(srv, hash, c.id, 0, buf, headers);
  expect(res.status, await res.clone().text()).toBe(204);
  return decodeURIComponent(res.headers.get('coffer-file-name') ?? '');
}

async function uploadShare(srv: TestServer, a: Actor, p: string, body: Record<string, unknown> = {}): Promise<Share> {
  return share(srv, a, p, { kind: 'upload', ...body });
}

async function names(dir: string): Promise<string[]> {
  return (await readdir(dir)).sort();
}

describe('upload shares (docs/api.md §23)', () => {
  const srv = useServer();
  let owner: Actor;
  let box: string;
  beforeAll(async () => {
    owner = await actor(srv.get(), { scope: '/owner' });
    await put(srv.get(), 'owner/inbox/existing.txt', 'OLD CONTENT');
    await put(srv.get(), 'owner/inbox/sub/deep.txt', 'DEEP SECRET');
    await put(srv.get(), 'owner/secret.txt', 'OWNER SECRET');
    box = path.join(srv.get().root, 'owner/inbox');
  });

  describe('creating one', () => {
    it('says its kind, message and limits; a normal share keeps File Browser\'s exact shape', async () => {
      const s = srv.get();
      const up = await uploadShare(s, owner, '/inbox/', { message: 'Send me your photos', maxFileSize: 1000, maxFiles: 3, maxBytes: 2000 });
      expect(up.kind).toBe('upload');
      expect(up.upload).toEqual({ message: 'Send me your photos', maxFileSize: 1000, maxFiles: 3, maxBytes: 2000, files: 0, bytes: 0 });
      const normal = await share(s, owner, '/inbox/');
      expect(Object.keys(normal).sort()).toEqual(['expire', 'hasPassword', 'hash', 'path', 'userID']);
      const list = (await (await s.fetch('/api/shares', { token: owner.token })).json()) as Share[];
      expect(list.find((x) => x.hash === up.hash)?.kind).toBe('upload');
      expect(Object.keys(list.find((x) => x.hash === normal.hash)!).sort()).toEqual(['expire', 'hasPassword', 'hash', 'path', 'userID']);
    });

    it('is refused for a file (400), without create (403), with limits on a normal share (400), and for bad limits (400)', async () => {
      const s = srv.get();
      expect((await createShare(s, owner, '/inbox/existing.txt', { kind: 'upload' })).status).toBe(400);
      const reader = await actor(s, { scope: '/owner', perm: { create: false, share: true, download: true } });
      expect((await createShare(s, reader, '/inbox/', { kind: 'upload' })).status).toBe(403);
      expect((await createShare(s, owner, '/inbox/', { message: 'hi' })).status).toBe(400);
      expect((await createShare(s, owner, '/inbox/', { maxFiles: 3 })).status).toBe(400);
      for (const bad of [{ maxFiles: -1 }, { maxBytes: 1.5 }, { maxFileSize: '10' }, { kind: 'other' }, { message: 'x'.repeat(2001) }, { maxBytes: 2 ** 51 }]) {
        expect((await createShare(s, owner, '/inbox/', { kind: 'upload', ...bad })).status, JSON.stringify(bad)).toBe(400);
      }
    });
  });

  describe('the visitor', () => {
    let up: Share;
    beforeAll(async () => {
      up = await uploadShare(srv.get(), owner, '/inbox/', { message: 'Drop the <b>files</b> here' });
    });

    it('sees the message and the room left, nothing of the folder', async () => {
      const res = await srv.get().fetch(`/api/public/upload/${up.hash}`);
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body).toEqual({ message: 'Drop the <b>files</b> here', maxFileSize: 0, maxFiles: 0, maxBytes: 0, filesLeft: null, bytesLeft: null });
      expect(JSON.stringify(body)).not.toMatch(/inbox|existing|owner/);
    });

    it('gets no listing and no download through any public route, nor its hash on the normal ones', async () => {
      const s = srv.get();
      for (const p of [
        `/api/public/share/${up.hash}`,
        `/api/public/share/${up.hash}/`,
        `/api/public/share/${up.hash}/existing.txt`,
        `/api/public/share/${up.hash}/sub`,
        `/api/public/dl/${up.hash}`,
        `/api/public/dl/${up.hash}/existing.txt`,
        `/api/public/dl/${up.hash}/?algo=zip`,
        `/api/public/tus/${up.hash}`,
        `/api/public/tus/${up.hash}/existing.txt`,
        `/api/public/upload/${up.hash}/existing.txt`,
      ]) {
        const res = await s.fetch(p);
        expect([404, 405], p).toContain(res.status);
        expect(await res.text(), p).not.toMatch(/OLD CONTENT|DEEP|existing/);
      }
      // A normal share is no upload share either.
      const normal = await share(s, owner, '/inbox/');
      expect((await s.fetch(`/api/public/upload/${normal.hash}`)).status).toBe(404);
      expect((await post(s, normal.hash, 'x.txt', 1)).status).toBe(404);
    });

    it('uploads with a real tus client, in chunks, into the shared folder', async () => {
      const s = srv.get();
      const data = Buffer.alloc(300 * 1024, 7);
      let name = '';
      await new Promise<void>((resolve, reject) => {
        const u = new tus.Upload(data as unknown as tus.Upload['file'], {
          endpoint: `${s.url}/api/public/tus/${up.hash}`,
          chunkSize: 64 * 1024,
          metadata: { filename: 'holiday.jpg' },
          retryDelays: [],
          storeFingerprintForResuming: false,
          onSuccess: (p) => {
            name = decodeURIComponent(p.lastResponse.getHeader('Coffer-File-Name') ?? '');
            resolve();
          },
          onError: reject,
        });
        u.start();
      });
      expect(name).toBe('holiday.jpg');
      expect((await readFile(path.join(box, 'holiday.jpg'))).equals(data)).toBe(true);
    });

    it('never overwrites: a taken name gets a suffix, a folder or a link in the way too', async () => {
      const s = srv.get();
      expect(await send(s, up.hash, 'existing.txt', 'new one')).toBe('existing (1).txt');
      expect(await send(s, up.hash, 'existing.txt', 'newer one')).toBe('existing (2).txt');
      expect(await readFile(path.join(box, 'existing.txt'), 'utf8')).toBe('OLD CONTENT');
      expect(await send(s, up.hash, 'sub', 'not a folder')).toBe('sub (1)');
      await symlink('../secret.txt', path.join(box, 'link.txt'));
      await symlink('/nowhere/at/all', path.join(box, 'dangling.txt'));
      expect(await send(s, up.hash, 'link.txt', 'via link')).toBe('link (1).txt');
      expect(await send(s, up.hash, 'dangling.txt', 'via dangling')).toBe('dangling (1).txt');
      expect(await readFile(path.join(srv.get().root, 'owner/secret.txt'), 'utf8')).toBe('OWNER SECRET');
    });

    it('two uploads of one name at once both land, under two names', async () => {
      const s = srv.get();
      const a = await post(s, up.hash, 'same.txt', 1);
      const b = await post(s, up.hash, 'same.txt', 1);
      const rb = await patch(s, up.hash, b.id, 0, Buffer.from('b'));
      const ra = await patch(s, up.hash, a.id, 0, Buffer.from('a'));
      expect([rb.status, ra.status]).toEqual([204, 204]);
      const [nameA, nameB] = [ra, rb].map((r) => decodeURIComponent(r.headers.get('coffer-file-name')!));
      expect([nameA, nameB].sort()).toEqual(['same (1).txt', 'same.txt']);
      expect(await readFile(path.join(box, nameA!), 'utf8')).toBe('a');
      expect(await readFile(path.join(box, nameB!), 'utf8')).toBe('b');
    });

    it("does not tell at creation whether a name is taken (a POST and a DELETE would probe the folder's names unseen)", async () => {
      const s = srv.get();
      for (const wish of ['existing.txt', 'sub', 'nothing-here.txt']) {
        const c = await post(s, up.hash, wish, 5);
        expect(c.status).toBe(201);
        expect(c.name, wish).toBe(wish);
        expect((await s.fetch(`/api/public/tus/${up.hash}/${c.id}`, { method: 'DELETE', headers: TUS })).status).toBe(204);
      }
    });

    it('a name taken while the upload ran gets the next suffix at the end', async () => {
      const s = srv.get();
      const c = await post(s, up.hash, 'race.txt', 3);
      expect(c.name).toBe('race.txt');
      await writeFile(path.join(box, 'race.txt'), 'OWNER WROTE THIS');
      const res = await patch(s, up.hash, c.id, 0, Buffer.from('abc'));
      expect(res.status).toBe(204);
      expect(decodeURIComponent(res.headers.get('coffer-file-name')!)).toBe('race (1).txt');
      expect(await readFile(path.join(box, 'race.txt'), 'utf8')).toBe('OWNER WROTE THIS');
      expect(await readFile(path.join(box, 'race (1).txt'), 'utf8')).toBe('abc');
    });

    it('cleans hostile names: path parts, dots, control characters, reserved names', async () => {
      const s = srv.get();
      const before = await names(path.join(srv.get().root, 'owner'));
      const cases: [string, string][] = [
        ['../../escape.txt', 'escape.txt'],
        ['..\\..\\win.txt', 'win.txt'],
        ['/etc/passwd', 'passwd'],
        ['sub/inner.txt', 'inner.txt'],
        ['.htaccess', 'htaccess'],
        ['..', 'upload'],
        ['a\u0000b\r\n.txt', 'ab.txt'],
        ['evil\u202Egpj.exe', 'evilgpj.exe'],
        ['CON', '_CON'],
        ['.coffer-tmp-0123', 'coffer-tmp-0123'],
        ['%2e%2e%2fpct.txt', '%2e%2e%2fpct.txt'],
      ];
      for (const [raw, want] of cases) expect(await send(s, up.hash, raw, 'x'), raw).toBe(want);
      expect(await send(s, up.hash, 'noname', '')).toBe('noname');
      expect((await post(s, up.hash, undefined, 0)).name).toBe('upload (1)');
      expect(await names(path.join(srv.get().root, 'owner'))).toEqual(before);
      expect(await names(path.join(box, 'sub'))).toEqual(['deep.txt']);
      await expect(readdir(path.join(srv.get().root, 'etc'))).rejects.toThrow();
    });

    it('never makes a hidden file or a look-alike name from dots, spaces and invisible characters mixed', async () => {
      const s = srv.get();
      const cases: [string, string][] = [
        ['. .htpasswd', 'htpasswd'],
        [' .\u00a0.user.ini', 'user.ini'],
        ['\u200b.profile', 'profile'],
        ['\u061cinvoice\u200d\u2028.pdf', 'invoice.pdf'],
        ['bill\u00ad\u{E0041}.txt', 'bill.txt'],
        ['CON .txt', '_CON .txt'],
      ];
      for (const [raw, want] of cases) expect(await send(s, up.hash, raw, 'x'), JSON.stringify(raw)).toBe(want);
      expect((await names(box)).filter((n) => n.startsWith('.'))).toEqual([]);
    });

    it('refuses malformed metadata, lengths and hostile URLs with a 4xx, never a path', async () => {
      const s = srv.get();
      for (const h of [{ 'Upload-Metadata': 'filename !!!' }, { 'Upload-Metadata': `filename ${b64('a')},filename ${b64('b')}` }, { 'Upload-Metadata': 'filename /w==' }]) {
        const res = await s.fetch(`/api/public/tus/${up.hash}`, { method: 'POST', headers: { ...TUS, 'Upload-Length': '1', ...h } });
        expect(res.status).toBe(400);
      }
      for (const len of ['-1', '1e3', '', 'abc']) expect((await post(s, up.hash, 'a', len)).status, len).toBe(400);
      expect((await post(s, up.hash, 'a', '99999999999999999999999')).status).toBe(413);
      for (const p of [
        `/api/public/tus/${up.hash}/..%2f..%2fsecret.txt`,
        `/api/public/tus/${up.hash}/../../api/tus/secret.txt`,
        `/api/public/tus/..%2f${up.hash}`,
        `/api/public/tus/${up.hash}%00`,
        `/api/public/tus/${up.hash}/0123456789abcdef0123456789abcdef/extra`,
        `/api/public/tus/${up.hash}/0123456789abcdef0123456789abcdef`,
      ]) {
        const res = await rawRequest(s, p, { method: 'PATCH', headers: { ...TUS, 'Content-Type': OCTETS, 'Upload-Offset': '0' }, body: 'x' });
        expect([400, 404], p).toContain(res.status);
        expect(res.body.toString(), p).not.toContain(s.root);
        const head = await rawRequest(s, p, { method: 'HEAD', headers: TUS });
        expect([400, 404], p).toContain(head.status);
      }
      expect(await readFile(path.join(srv.get().root, 'owner/secret.txt'), 'utf8')).toBe('OWNER SECRET');
    });

    it("cannot reach another share's upload, nor the owner's signed-in upload route its own", async () => {
      const s = srv.get();
      const other = await uploadShare(s, owner, '/inbox/sub/');
      const c = await post(s, up.hash, 'mine.txt', 2);
      expect((await patch(s, other.hash, c.id, 0, Buffer.from('xx'))).status).toBe(404);
      expect((await s.fetch(`/api/public/tus/${other.hash}/${c.id}`, { method: 'HEAD', headers: TUS })).status).toBe(404);
      expect((await s.fetch(`/api/tus/inbox/mine.txt`, { method: 'HEAD', token: owner.token, headers: TUS })).status).toBe(404);
      const ownerPatch = await s.fetch(`/api/tus/inbox/mine.txt`, {
        method: 'PATCH',
        token: owner.token,
        headers: { ...TUS, 'Content-Type': OCTETS, 'Upload-Offset': '0' },
        body: Buffer.from('zz'),
      });
      expect(ownerPatch.status).toBe(404);
      expect((await s.fetch(`/api/public/tus/${up.hash}/${c.id}`, { method: 'DELETE', headers: TUS })).status).toBe(204);
      expect((await s.fetch(`/api/public/tus/${up.hash}/${c.id}`, { method: 'HEAD', headers: TUS })).status).toBe(404);
    });

    it('resumes: HEAD tells the offset, a wrong offset is 409, the rest completes the file', async () => {
      const s = srv.get();
      const c = await post(s, up.hash, 'resume.bin', 10);
      expect((await patch(s, up.hash, c.id, 0, Buffer.from('01234'))).status).toBe(204);
      const head = await s.fetch(`/api/public/tus/${up.hash}/${c.id}`, { method: 'HEAD', headers: TUS });
      expect(head.status).toBe(200);
      expect(head.headers.get('upload-offset')).toBe('5');
      expect(head.headers.get('cache-control')).toBe('no-store');
      expect((await patch(s, up.hash, c.id, 2, Buffer.from('xx'))).status).toBe(409);
      expect((await patch(s, up.hash, c.id, 5, Buffer.from('56789'))).status).toBe(204);
      expect(await readFile(path.join(box, 'resume.bin'), 'utf8')).toBe('0123456789');
    });

    it('fires the upload hooks with the owner as the user', async () => {
      const s = srv.get();
      const seen: { phase: string; user: number; name: string }[] = [];
      const off = s.deps.events.on(async (phase, event, ctx) => {
        if (event === 'upload') seen.push({ phase, user: ctx.user.id, name: path.basename(ctx.file.real) });
      });
      try {
        await send(s, up.hash, 'hooked.txt', 'h');
      } finally {
        off();
      }
      expect(seen).toEqual([
        { phase: 'before', user: owner.id, name: 'hooked.txt' },
        { phase: 'after', user: owner.id, name: 'hooked.txt' },
      ]);
    });

    it('answers 507 for a length larger than the free space, counting nothing', async () => {
      const s = srv.get();
      const c = await post(s, up.hash, 'huge.bin', 2 ** 52);
      expect(c.status).toBe(507);
      const list = (await (await s.fetch('/api/shares', { token: owner.token })).json()) as Share[];
      const mine = list.find((x) => x.hash === up.hash)!;
      expect(mine.upload!.bytes).toBeLessThan(2 ** 40);
    });
  });

  describe('limits', () => {
    it('refuses a file above the size limit before any byte (413, Coffer-Limit: file-size)', async () => {
      const s = srv.get();
      const up = await uploadShare(s, owner, '/inbox/', { maxFileSize: 10 });
      const c = await post(s, up.hash, 'big.bin', 11);
      expect(c.status).toBe(413);
      expect(c.limit).toBe('file-size');
      expect(await send(s, up.hash, 'ok10.bin', '0123456789')).toBe('ok10.bin');
      const c2 = await post(s, up.hash, 'over.bin', 5);
      const res = await patch(s, up.hash, c2.id, 0, Buffer.from('0123456789'));
      expect(res.status).toBe(413);
      await expect(readFile(path.join(box, 'over.bin'))).rejects.toThrow();
    });

    it('counts files and bytes, including running uploads; a cancelled one gives its room back', async () => {
      const s = srv.get();
      const up = await uploadShare(s, owner, '/inbox/', { maxFiles: 2, maxBytes: 10 });
      const a = await post(s, up.hash, 'a.bin', 4);
      expect(a.status).toBe(201);
      const tooMuch = await post(s, up.hash, 'b.bin', 7);
      expect([tooMuch.status, tooMuch.limit]).toEqual([413, 'bytes']);
      const b = await post(s, up.hash, 'b.bin', 6);
      expect(b.status).toBe(201);
      const c = await post(s, up.hash, 'c.bin', 0);
      expect([c.status, c.limit]).toEqual([403, 'files']);
      expect((await s.fetch(`/api/public/upload/${up.hash}`).then((r) => r.json())) as object).toMatchObject({ filesLeft: 0, bytesLeft: 0 });
      expect((await s.fetch(`/api/public/tus/${up.hash}/${b.id}`, { method: 'DELETE', headers: TUS })).status).toBe(204);
      expect((await s.fetch(`/api/public/upload/${up.hash}`).then((r) => r.json())) as object).toMatchObject({ filesLeft: 1, bytesLeft: 6 });
      expect(await send(s, up.hash, 'c.bin', '123456')).toBe('c.bin');
      expect((await patch(s, up.hash, a.id, 0, Buffer.from('abcd'))).status).toBe(204);
      expect((await post(s, up.hash, 'd.bin', 0)).status).toBe(403);
    });

    it('parallel creations cannot pass the file limit together', async () => {
      const s = srv.get();
      const up = await uploadShare(s, owner, '/inbox/', { maxFiles: 3 });
      const all = await Promise.all(Array.from({ length: 12 }, (_, i) => post(s, up.hash, `p${i}.bin`, 1)));
      expect(all.filter((c) => c.status === 201)).toHaveLength(3);
      expect(all.filter((c) => c.status === 403)).toHaveLength(9);
    });
  });

  describe('passwords', () => {
    let up: Share;
    beforeAll(async () => {
      up = await uploadShare(srv.get(), owner, '/inbox/', { password: 'open sesame' });
    });

    it('wants the password or a token on every route (401), and takes either', async () => {
      const s = srv.get();
      expect(up.hasPassword).toBe(true);
      expect((await s.fetch(`/api/public/upload/${up.hash}`)).status).toBe(401);
      expect((await post(s, up.hash, 'x.txt', 1)).status).toBe(401);
      const pw = { 'X-SHARE-PASSWORD': encodeURIComponent('open sesame') };
      const info = await s.fetch(`/api/public/upload/${up.hash}`, { headers: pw });
      expect(info.status).toBe(200);
      const { token } = (await info.json()) as { token: string };
      expect(token).toBeTruthy();
      const c = await post(s, up.hash, 'pw.txt', 2, { 'X-Share-Token': token });
      expect(c.status).toBe(201);
      expect((await patch(s, up.hash, c.id, 0, Buffer.from('ok'))).status).toBe(401);
      expect((await s.fetch(`/api/public/tus/${up.hash}/${c.id}`, { method: 'HEAD', headers: TUS })).status).toBe(401);
      expect((await patch(s, up.hash, c.id, 0, Buffer.from('ok'), pw)).status).toBe(204);
      expect(await readFile(path.join(box, 'pw.txt'), 'utf8')).toBe('ok');
    });

    it('counts wrong passwords in the share-password throttle (429 after ten)', async () => {
      const s = await startServer();
      try {
        const o = await actor(s, { scope: '/o' });
        await mkdir(path.join(s.root, 'o/in'), { recursive: true });
        const locked = await uploadShare(s, o, '/in/', { password: 'right' });
        const normal = await share(s, o, '/in/', { password: 'right' });
        // Wrong guesses on the normal share and on the upload share count together.
        for (let i = 0; i < 5; i++) expect((await s.fetch(`/api/public/share/${normal.hash}`, { headers: { 'X-SHARE-PASSWORD': `w${i}` } })).status).toBe(401);
        for (let i = 0; i < 5; i++) expect((await post(s, locked.hash, 'a', 1, { 'X-SHARE-PASSWORD': `w${i}` })).status).toBe(401);
        expect((await s.fetch(`/api/public/upload/${locked.hash}`, { headers: { 'X-SHARE-PASSWORD': 'right' } })).status).toBe(429);
        expect((await post(s, locked.hash, 'a', 1, { 'X-SHARE-PASSWORD': 'right' })).status).toBe(429);
      } finally {
        await s.close();
      }
    });
  });

  describe('the end of a share', () => {
    it('ends (404) when the owner loses create, and works again when it comes back', async () => {
      const s = srv.get();
      const o = await actor(s, { scope: '/owner' });
      const up = await uploadShare(s, o, '/inbox/');
      const c = await post(s, up.hash, 'late.txt', 2);
      const rec = (await s.deps.users.byId(o.id))!;
      await s.deps.users.update({ ...rec, perm: { ...rec.perm, create: false } });
      expect((await s.fetch(`/api/public/upload/${up.hash}`)).status).toBe(404);
      expect((await post(s, up.hash, 'x.txt', 1)).status).toBe(404);
      expect((await patch(s, up.hash, c.id, 0, Buffer.from('zz'))).status).toBe(404);
      await expect(readFile(path.join(box, 'late.txt'))).rejects.toThrow();
      await s.deps.users.update({ ...rec, perm: { ...rec.perm, create: true } });
      expect((await patch(s, up.hash, c.id, 0, Buffer.from('zz'))).status).toBe(204);
    });

    it('ends (404) when the folder goes, is replaced, or the share is deleted or expires', async () => {
      const s = srv.get();
      await mkdir(path.join(s.root, 'owner/temp'), { recursive: true });
      const up = await uploadShare(s, owner, '/temp/');
      const c = await post(s, up.hash, 'x.txt', 1);
      await rename(path.join(s.root, 'owner/temp'), path.join(s.root, 'owner/temp-moved'));
      await mkdir(path.join(s.root, 'owner/temp'));
      expect((await s.fetch(`/api/public/upload/${up.hash}`)).status).toBe(404);
      expect((await patch(s, up.hash, c.id, 0, Buffer.from('x'))).status).toBe(404);
      await rm(path.join(s.root, 'owner/temp'), { recursive: true });
      expect((await post(s, up.hash, 'y.txt', 1)).status).toBe(404);

      const gone = await uploadShare(s, owner, '/inbox/');
      expect((await s.fetch(`/api/share/${gone.hash}`, { method: 'DELETE', token: owner.token })).status).toBe(200);
      expect((await post(s, gone.hash, 'y.txt', 1)).status).toBe(404);

      const brief = await uploadShare(s, owner, '/inbox/', { expires: '1', unit: 'seconds' });
      await expect.poll(async () => (await post(s, brief.hash, 'y.txt', 1)).status, { timeout: 5000 }).toBe(404);
    });
  });
});

describe('per-address limit on public uploads', () => {
  const srv = useServer({}, { publicUploadsPerAddress: 3 });
  it('answers 429 with Retry-After after the limit, for every share', async () => {
    const s = srv.get();
    const o = await actor(s, { scope: '/o' });
    await mkdir(path.join(s.root, 'o/in'), { recursive: true });
    const a = await uploadShare(s, o, '/in/');
    const b = await uploadShare(s, o, '/in/');
    for (let i = 0; i < 3; i++) expect((await post(s, i % 2 ? a.hash : b.hash, `f${i}`, 0)).status).toBe(201);
    const res = await s.fetch(`/api/public/tus/${b.hash}`, { method: 'POST', headers: { ...TUS, 'Upload-Length': '0' } });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
