/**
 * Shares API (docs/api.md §14) over real HTTP: the share guard, creation checks (S40–S43), listing and
 * per-path listing, deletion (S49), lazy expiry, and the clean-up after deletes (S48). Runs on
 * SQLite, and on PostgreSQL with COFFER_TEST_PG_URL.
 */
import { symlink } from 'node:fs/promises';
import path from 'node:path';
import type { Share } from '@coffer/protocol';
import { beforeAll, describe, expect, it } from 'vitest';
import { useServer, type TestServer } from './harness.js';
import { actor, ALL_PERMS, createShare as create, put, rawRequest, share as createOk, type Actor } from './shares-support.js';

async function mine(srv: TestServer, a: Actor): Promise<Share[]> {
  const res = await srv.fetch('/api/shares', { token: a.token });
  expect(res.status).toBe(200);
  return (await res.json()) as Share[];
}

describe('shares API', () => {
  // Deletes are final here (S48); shares of a trashed item: trash.test.ts.
  const srv = useServer({ trashDays: 0 });
  let alice: Actor;
  let bob: Actor;
  let admin: Actor;

  beforeAll(async () => {
    await put(srv.get(), 'alice/docs/report.pdf', '%PDF-1.4');
    await put(srv.get(), 'alice/docs/sub/x.txt');
    await put(srv.get(), 'alice/a.txt');
    await put(srv.get(), 'alice/private/secret.txt');
    await put(srv.get(), 'alice/.hidden.txt');
    await put(srv.get(), 'bob/b.txt');
    await put(srv.get(), 'outside.txt', 'not yours');
    await symlink(path.join(srv.root, 'outside.txt'), path.join(srv.root, 'alice/out-link'));
    await symlink(path.join(srv.root, 'bob'), path.join(srv.root, 'alice/bob-link'));
    alice = await actor(srv.get(), { scope: '/alice', rules: [{ regex: false, allow: false, path: '/private', regexp: null }] });
    bob = await actor(srv.get(), { scope: '/bob' });
    admin = { id: 1, username: 'admin', token: await srv.login(), scope: '/' };
  });

  describe('share guard', () => {
    it('answers 401 without a token on every endpoint', async () => {
      for (const [method, p] of [
        ['GET', '/api/shares'],
        ['GET', '/api/share/a.txt'],
        ['POST', '/api/share/a.txt'],
        ['DELETE', '/api/share/AAAAAAAAAAAAAAAAAAAAAA'],
      ] as const) {
        const res = await srv.fetch(p, { method, json: method === 'POST' ? {} : undefined });
        expect(res.status, `${method} ${p}`).toBe(401);
      }
    });

    it('answers 401 to a POST or DELETE authenticated by the cookie alone (S26)', async () => {
      const post = await srv.fetch('/api/share/a.txt', { method: 'POST', json: {}, headers: { Cookie: `auth=${alice.token}` } });
      expect(post.status).toBe(401);
      const del = await srv.fetch('/api/share/AAAAAAAAAAAAAAAAAAAAAA', { method: 'DELETE', headers: { Cookie: `auth=${alice.token}` } });
      expect(del.status).toBe(401);
      expect(await mine(srv.get(), alice)).toEqual([]);
    });

    it('answers 403 without perm.share or without perm.download, before reading the body (S11, S40)', async () => {
      const noShare = await actor(srv.get(), { scope: '/alice', perm: { ...ALL_PERMS, share: false } });
      const noDownload = await actor(srv.get(), { scope: '/alice', perm: { ...ALL_PERMS, download: false } });
      for (const a of [noShare, noDownload]) {
        expect((await srv.fetch('/api/shares', { token: a.token })).status).toBe(403);
        expect((await srv.fetch('/api/share/a.txt', { token: a.token })).status).toBe(403);
        expect((await create(srv.get(), a, '/a.txt')).status).toBe(403);
        expect((await create(srv.get(), a, '/a.txt', '{not json')).status).toBe(403);
        expect((await srv.fetch('/api/share/AAAAAAAAAAAAAAAAAAAAAA', { method: 'DELETE', token: a.token })).status).toBe(403);
      }
      const rows = await srv.deps.db.kysely.selectFrom('shares').selectAll().where('user_id', 'in', [noShare.id, noDownload.id]).execute();
      expect(rows).toEqual([]);
    });
  });

  describe('POST /api/share/{path}', () => {
    it('creates a permanent link to a file: 200 with exactly the Share fields (S41, S43)', async () => {
      const res = await create(srv.get(), alice, '/a.txt');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await res.json()) as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(['expire', 'hasPassword', 'hash', 'path', 'userID']);
      expect(body).toMatchObject({ path: '/a.txt', userID: alice.id, expire: 0, hasPassword: false });
      expect(body.hash).toMatch(/^[A-Za-z0-9_-]{22,}$/);
      expect(Buffer.from(body.hash as string, 'base64url').length).toBeGreaterThanOrEqual(16);
    });

    it('keeps the trailing slash of a folder and accepts an empty body as a permanent link', async () => {
      const res = await srv.fetch('/api/share/docs/', { method: 'POST', token: alice.token });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ path: '/docs/', expire: 0, hasPassword: false });
    });

    it('creates a new, different hash on every POST to the same path', async () => {
      const hashes = new Set<string>();
      for (let i = 0; i < 5; i++) hashes.add((await createOk(srv.get(), alice, '/docs/sub/x.txt')).hash);
      expect(hashes.size).toBe(5);
      const listed = (await mine(srv.get(), alice)).filter((s) => s.path === '/docs/sub/x.txt');
      expect(listed.length).toBe(5);
    });

    it('stores a password only as an argon2id hash and never returns it, its hash or a token (S43)', async () => {
      const res = await create(srv.get(), alice, '/a.txt', { password: 'open sesame', expires: '', unit: 'hours' });
      const text = await res.text();
      expect(res.status).toBe(200);
      const share = JSON.parse(text) as Share;
      expect(share.hasPassword).toBe(true);
      expect(text).not.toMatch(/open sesame|argon|password_hash|passwordHash|token/);
      const row = await srv.deps.db.kysely.selectFrom('shares').selectAll().where('hash', '=', share.hash).executeTakeFirstOrThrow();
      expect(row.password_hash).toMatch(/^\$argon2id\$/);
      for (const p of ['/api/shares', '/api/share/a.txt']) {
        const listed = await (await srv.fetch(p, { token: alice.token })).text();
        expect(listed).toContain(share.hash);
        expect(listed).not.toMatch(/argon|password_hash|passwordHash|"token"|"password"/);
      }
    });

    it('computes the expiry from expires and unit (seconds, minutes, hours, days; hours by default)', async () => {
      const cases: [unknown, number][] = [
        [{ expires: '30', unit: 'seconds' }, 30],
        [{ expires: '2', unit: 'minutes' }, 120],
        [{ expires: '3', unit: 'hours' }, 3 * 3600],
        [{ expires: '1', unit: 'days' }, 86400],
        [{ expires: '5' }, 5 * 3600],
        [{ expires: '5', unit: '' }, 5 * 3600],
      ];
      for (const [body, seconds] of cases) {
        const before = Math.floor(Date.now() / 1000);
        const share = await createOk(srv.get(), alice, '/a.txt', body);
        const after = Math.floor(Date.now() / 1000);
        expect(share.expire, JSON.stringify(body)).toBeGreaterThanOrEqual(before + seconds);
        expect(share.expire, JSON.stringify(body)).toBeLessThanOrEqual(after + seconds);
      }
    });

    it('treats "0" and "" as permanent and ignores the query string', async () => {
      expect((await createOk(srv.get(), alice, '/a.txt', { expires: '0', unit: 'days' })).expire).toBe(0);
      expect((await createOk(srv.get(), alice, '/a.txt', { expires: '', unit: 'days' })).expire).toBe(0);
      const q = await srv.fetch('/api/share/a.txt?expires=5&unit=days', { method: 'POST', token: alice.token, json: {} });
      expect(((await q.json()) as Share).expire).toBe(0);
    });

    it('answers 400 with a reason to invalid expires, unit, password or JSON, and stores nothing (S42, S65)', async () => {
      const before = (await mine(srv.get(), alice)).length;
      const bodies: unknown[] = [
        { expires: 'abc' },
        { expires: '1.5e3x' },
        { expires: '-5' },
        { expires: '1.5' },
        { expires: ' 5' },
        { expires: '5 ' },
        { expires: '+5' },
        { expires: '0x10' },
        { expires: '99999999999999999999999' },
        { expires: '2147483648' },
        { expires: 5 },
        { expires: null },
        { expires: '5', unit: 'weeks' },
        { expires: '5', unit: 'Hours' },
        { unit: 'fortnights' },
        { unit: 3 },
        { password: 42 },
        { password: ['a'] },
        { password: 'x'.repeat(1025) },
        [],
        'a string',
      ];
      for (const body of bodies) {
        const res = await create(srv.get(), alice, '/a.txt', typeof body === 'string' ? JSON.stringify(body) : body);
        const text = await res.text();
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(text, JSON.stringify(body)).toMatch(/^400 Bad Request/);
      }
      const detail = await (await create(srv.get(), alice, '/a.txt', { expires: '-5' })).text();
      expect(detail).toMatch(/^400 Bad Request \(.+\)\n$/);
      const unit = await (await create(srv.get(), alice, '/a.txt', { expires: '5', unit: 'weeks' })).text();
      expect(unit).toMatch(/unit/);
      for (const raw of ['{not json', '{"expires": "5"', '{"expires": 5e3}']) {
        const res = await srv.fetch('/api/share/a.txt', { method: 'POST', token: alice.token, body: raw, headers: { 'content-type': 'application/json' } });
        expect(res.status, raw).toBe(400);
      }
      expect((await mine(srv.get(), alice)).length).toBe(before);
    });

    it('answers 413 to a body over 1 MiB and stores nothing (S80)', async () => {
      const before = (await mine(srv.get(), alice)).length;
      const res = await create(srv.get(), alice, '/a.txt', { password: 'x'.repeat(1024 * 1024 + 10) }).catch(() => null);
      if (res) expect(res.status).toBe(413);
      expect((await mine(srv.get(), alice)).length).toBe(before);
      expect((await srv.fetch('/health')).status).toBe(200);
    });

    it('answers 404 for a path that does not exist, and a file created later is not shared (S40)', async () => {
      const before = (await mine(srv.get(), alice)).length;
      const res = await create(srv.get(), alice, '/later.txt');
      expect(res.status).toBe(404);
      expect(await res.text()).toMatch(/^404 Not Found/);
      await put(srv.get(), 'alice/later.txt');
      expect((await mine(srv.get(), alice)).length).toBe(before);
    });

    it('answers 403 for a rule-denied path, a hidden dotfile and an escaping link, and stores nothing (S40, S4)', async () => {
      const hider = await actor(srv.get(), { scope: '/alice', hideDotfiles: true });
      const before = (await mine(srv.get(), alice)).length;
      expect((await create(srv.get(), alice, '/private/secret.txt')).status).toBe(403);
      expect((await create(srv.get(), alice, '/private/')).status).toBe(403);
      expect((await create(srv.get(), hider, '/.hidden.txt')).status).toBe(403);
      expect((await create(srv.get(), alice, '/out-link')).status).toBe(403);
      expect((await create(srv.get(), alice, '/bob-link/b.txt')).status).toBe(403);
      expect((await create(srv.get(), alice, '/bob-link/')).status).toBe(403);
      expect((await mine(srv.get(), alice)).length).toBe(before);
      expect(await mine(srv.get(), hider)).toEqual([]);
    });

    it('refuses every traversal variant with a 4xx and stores nothing (S1, S2)', async () => {
      const before = (await mine(srv.get(), alice)).length;
      const variants = [
        '/api/share/../bob/b.txt',
        '/api/share/../../outside.txt',
        '/api/share/%2e%2e/bob/b.txt',
        '/api/share/%2E%2E%2Fbob%2Fb.txt',
        '/api/share/docs/..%2f..%2fbob/b.txt',
        '/api/share/..%5cbob%5cb.txt',
        '/api/share/..\\bob\\b.txt',
        '/api/share/%252e%252e/bob/b.txt',
        '/api/share/%c0%ae%c0%ae/bob/b.txt',
        '/api/share/a.txt%00',
        '/api/share/docs/./../../bob/b.txt',
      ];
      for (const v of variants) {
        const res = await rawRequest(srv.get(), v, {
          method: 'POST',
          headers: { 'X-Auth': alice.token, 'content-type': 'application/json' },
          body: '{}',
        });
        expect(res.status, v).toBeGreaterThanOrEqual(400);
        expect(res.status, v).toBeLessThan(500);
      }
      expect((await rawRequest(srv.get(), '/api/share/../bob/b.txt', { method: 'POST', headers: { 'X-Auth': alice.token }, body: '{}' })).status).toBe(403);
      expect((await rawRequest(srv.get(), '/api/share/%2e%2e/bob/b.txt', { method: 'POST', headers: { 'X-Auth': alice.token }, body: '{}' })).status).toBe(403);
      expect((await rawRequest(srv.get(), '/api/share/a.txt%00', { method: 'POST', headers: { 'X-Auth': alice.token }, body: '{}' })).status).toBe(400);
      expect((await mine(srv.get(), alice)).length).toBe(before);
    });

    it('records the owner, the scope-relative path and the identity of the target (S40)', async () => {
      const share = await createOk(srv.get(), bob, '/b.txt');
      const row = await srv.deps.db.kysely.selectFrom('shares').selectAll().where('hash', '=', share.hash).executeTakeFirstOrThrow();
      expect(Number(row.user_id)).toBe(bob.id);
      expect(row.path).toBe('/b.txt');
      expect(row.ino).toMatch(/^[0-9]+$/);
      expect(row.dev).toMatch(/^[0-9]+$/);
    });
  });

  describe('GET /api/shares and /api/share/{path}', () => {
    it('lists only the caller\'s shares for a non-admin, every share for an admin (S49)', async () => {
      const a = await createOk(srv.get(), alice, '/docs/report.pdf');
      const b = await createOk(srv.get(), bob, '/b.txt');
      const aliceList = await mine(srv.get(), alice);
      expect(aliceList.every((s) => s.userID === alice.id)).toBe(true);
      expect(aliceList.map((s) => s.hash)).toContain(a.hash);
      expect(aliceList.map((s) => s.hash)).not.toContain(b.hash);
      const all = (await mine(srv.get(), admin)).map((s) => s.hash);
      expect(all).toEqual(expect.arrayContaining([a.hash, b.hash]));
    });

    it('answers [] (never null) when the caller has no share', async () => {
      const empty = await actor(srv.get(), { scope: '/bob' });
      const res = await srv.fetch('/api/shares', { token: empty.token });
      expect(await res.text()).toBe('[]');
      expect(await (await srv.fetch('/api/share/b.txt', { token: empty.token })).text()).toBe('[]');
      expect(await (await srv.fetch('/api/share/no/such/path', { token: empty.token })).text()).toBe('[]');
    });

    it('orders by owner, then permanent links first, then soonest expiry', async () => {
      const carol = await actor(srv.get(), { scope: '/bob' });
      const later = await createOk(srv.get(), carol, '/b.txt', { expires: '5', unit: 'days' });
      const perm = await createOk(srv.get(), carol, '/b.txt');
      const sooner = await createOk(srv.get(), carol, '/b.txt', { expires: '5', unit: 'minutes' });
      expect((await mine(srv.get(), carol)).map((s) => s.hash)).toEqual([perm.hash, sooner.hash, later.hash]);
      const all = await mine(srv.get(), admin);
      for (let i = 1; i < all.length; i++) {
        const [p, c] = [all[i - 1]!, all[i]!];
        expect(p.userID < c.userID || (p.userID === c.userID && p.expire <= c.expire)).toBe(true);
      }
    });

    it('lists the shares of exactly one path for a non-admin (/dir and /dir/ differ)', async () => {
      const dave = await actor(srv.get(), { scope: '/alice' });
      const slash = await createOk(srv.get(), dave, '/docs/');
      const bare = await createOk(srv.get(), dave, '/docs');
      const get = async (p: string) => ((await (await srv.fetch(`/api/share${p}`, { token: dave.token })).json()) as Share[]).map((s) => s.hash);
      expect(await get('/docs/')).toEqual([slash.hash]);
      expect(await get('/docs')).toEqual([bare.hash]);
      const raw = await rawRequest(srv.get(), '/api/share//docs/./sub/..', { headers: { 'X-Auth': dave.token } });
      expect((JSON.parse(raw.body.toString()) as Share[]).map((s) => s.hash)).toEqual([bare.hash]);
      // Another user's share of the same path is not listed for a non-admin.
      expect(await get('/docs/')).not.toContain((await createOk(srv.get(), alice, '/docs/')).hash);
    });

    it('lists for an admin every owner\'s share of the same on-disk location', async () => {
      const s = await createOk(srv.get(), bob, '/b.txt');
      const res = await srv.fetch('/api/share/bob/b.txt', { token: admin.token });
      const hashes = ((await res.json()) as Share[]).map((x) => x.hash);
      expect(hashes).toContain(s.hash);
      expect(((await (await srv.fetch('/api/share/b.txt', { token: admin.token })).json()) as Share[]).map((x) => x.hash)).not.toContain(s.hash);
    });

    it('refuses a path that climbs out with 403 (S1)', async () => {
      expect((await rawRequest(srv.get(), '/api/share/../x', { headers: { 'X-Auth': alice.token } })).status).toBe(403);
    });

    it('answers 403 for a rule-denied path, a hidden dotfile or a path behind a link out of the scope (S4, S12)', async () => {
      const hides = await actor(srv.get(), { scope: '/alice', hideDotfiles: true });
      const cases: [Actor, string][] = [
        [alice, '/private'],
        [alice, '/private/'],
        [alice, '/private/secret.txt'],
        [alice, '/private/missing.txt'],
        [alice, '/out-link'],
        [alice, '/bob-link/b.txt'],
        [alice, '/bob-link/missing/'],
        [hides, '/.hidden.txt'],
      ];
      for (const [a, p] of cases) {
        const res = await srv.fetch(`/api/share${p}`, { token: a.token });
        expect(res.status, p).toBe(403);
        expect(await res.text(), p).toMatch(/^403 Forbidden/);
      }
      // Allowed paths still answer 200, existing or not.
      expect((await srv.fetch('/api/share/.hidden.txt', { token: alice.token })).status).toBe(200);
      expect((await srv.fetch('/api/share/no/such/thing', { token: alice.token })).status).toBe(200);
    });
  });

  describe('DELETE /api/share/{hash}', () => {
    it('lets only the owner or an admin delete (S49)', async () => {
      const s = await createOk(srv.get(), alice, '/a.txt');
      const byBob = await srv.fetch(`/api/share/${s.hash}`, { method: 'DELETE', token: bob.token });
      expect(byBob.status).toBe(403);
      expect((await mine(srv.get(), alice)).map((x) => x.hash)).toContain(s.hash);
      expect((await srv.fetch(`/api/public/share/${s.hash}`)).status).not.toBe(404);
      const byOwner = await srv.fetch(`/api/share/${s.hash}`, { method: 'DELETE', token: alice.token });
      expect(byOwner.status).toBe(200);
      expect(await byOwner.text()).toBe('');
      expect((await mine(srv.get(), alice)).map((x) => x.hash)).not.toContain(s.hash);
      expect((await srv.fetch(`/api/share/${s.hash}`, { method: 'DELETE', token: alice.token })).status).toBe(404);
      const b = await createOk(srv.get(), bob, '/b.txt');
      expect((await srv.fetch(`/api/share//${b.hash}/`, { method: 'DELETE', token: admin.token })).status).toBe(200);
      expect((await mine(srv.get(), bob)).map((x) => x.hash)).not.toContain(b.hash);
    });

    it('answers 404 to unknown and malformed hashes and 400 to an empty one', async () => {
      expect((await srv.fetch('/api/share/AAAAAAAAAAAAAAAAAAAAAA', { method: 'DELETE', token: alice.token })).status).toBe(404);
      expect((await srv.fetch('/api/share/not*a*hash', { method: 'DELETE', token: alice.token })).status).toBe(404);
      const empty = await srv.fetch('/api/share/', { method: 'DELETE', token: alice.token });
      expect(empty.status).toBe(400);
      expect(await empty.text()).toMatch(/^400 Bad Request \(.+\)/);
      expect((await srv.fetch('/api/share', { method: 'DELETE', token: alice.token })).status).toBe(400);
    });
  });

  describe('expiry', () => {
    it('drops an expired share from every list, deletes it on sight and answers 404 for it', async () => {
      const s = await createOk(srv.get(), alice, '/a.txt', { expires: '1', unit: 'hours' });
      await srv.deps.db.kysely.updateTable('shares').set({ expire: Math.floor(Date.now() / 1000) - 1 }).where('hash', '=', s.hash).execute();
      expect((await mine(srv.get(), alice)).map((x) => x.hash)).not.toContain(s.hash);
      const rows = await srv.deps.db.kysely.selectFrom('shares').select('hash').where('hash', '=', s.hash).execute();
      expect(rows).toEqual([]);
      expect((await srv.fetch(`/api/share/${s.hash}`, { method: 'DELETE', token: alice.token })).status).toBe(404);
    });

    it('the sweep removes expired shares and shares of deleted users', async () => {
      const erin = await actor(srv.get(), { scope: '/bob' });
      const keep = await createOk(srv.get(), erin, '/b.txt');
      const old = await createOk(srv.get(), erin, '/b.txt', { expires: '1', unit: 'hours' });
      await srv.deps.db.kysely.updateTable('shares').set({ expire: 1 }).where('hash', '=', old.hash).execute();
      expect(await srv.deps.shares.sweep()).toBeGreaterThanOrEqual(1);
      const left = (await srv.deps.db.kysely.selectFrom('shares').select('hash').where('user_id', '=', erin.id).execute()).map((r) => r.hash);
      expect(left).toEqual([keep.hash]);
      await srv.deps.users.delete(erin.id);
      await srv.deps.shares.sweep();
      expect(await srv.deps.db.kysely.selectFrom('shares').select('hash').where('user_id', '=', erin.id).execute()).toEqual([]);
    });
  });

  describe('file operations and shares (S46, S48)', () => {
    const pub = (h: string, sub = '') => srv.fetch(`/api/public/dl/${h}${sub}`);
    const listed = async () => new Set((await mine(srv.get(), admin)).map((s) => s.hash));

    it('DELETE /api/resources removes exactly the shares of the path and below; re-creating does not revive them', async () => {
      const g = await actor(srv.get(), { scope: '/g' });
      const h = await actor(srv.get(), { scope: '/h' });
      await put(srv.get(), 'g/gone/in.txt');
      await put(srv.get(), 'g/gone-not.txt');
      await put(srv.get(), 'g/gone2');
      await put(srv.get(), 'h/gone/in.txt');
      const folder = await createOk(srv.get(), g, '/gone/');
      const inner = await createOk(srv.get(), g, '/gone/in.txt');
      const sibling = await createOk(srv.get(), g, '/gone-not.txt');
      const prefix = await createOk(srv.get(), g, '/gone2');
      const otherUser = await createOk(srv.get(), h, '/gone/in.txt');
      const res = await srv.fetch('/api/resources/gone', { method: 'DELETE', token: g.token });
      expect(res.status).toBe(204);
      let left = await listed();
      expect(left.has(folder.hash)).toBe(false);
      expect(left.has(inner.hash)).toBe(false);
      expect(left.has(sibling.hash)).toBe(true);
      expect(left.has(prefix.hash)).toBe(true);
      expect(left.has(otherUser.hash)).toBe(true);
      expect((await pub(otherUser.hash)).status).toBe(200);
      await put(srv.get(), 'g/gone/in.txt', 'again');
      expect((await pub(inner.hash)).status).toBe(404);
      expect((await pub(folder.hash, '/in.txt')).status).toBe(404);
      // With a trailing slash too.
      const again = await createOk(srv.get(), g, '/gone/in.txt');
      expect((await srv.fetch('/api/resources/gone/', { method: 'DELETE', token: g.token })).status).toBe(204);
      left = await listed();
      expect(left.has(again.hash)).toBe(false);
    });

    it('a rename away removes the shares of the moved path; the new path is not shared', async () => {
      const m = await actor(srv.get(), { scope: '/m' });
      await put(srv.get(), 'm/old/x.txt', 'x');
      await put(srv.get(), 'm/keep.txt', 'k');
      const s1 = await createOk(srv.get(), m, '/old/');
      const s2 = await createOk(srv.get(), m, '/old/x.txt');
      const s3 = await createOk(srv.get(), m, '/keep.txt');
      const res = await srv.fetch(`/api/resources/old?action=rename&destination=${encodeURIComponent('/new')}`, { method: 'PATCH', token: m.token });
      expect(res.status).toBe(200);
      const left = await listed();
      expect(left.has(s1.hash) || left.has(s2.hash)).toBe(false);
      expect(left.has(s3.hash)).toBe(true);
      expect((await pub(s1.hash, '/x.txt')).status).toBe(404);
    });

    it('a shared file replaced by another one moved over it answers 404 (S46)', async () => {
      const r = await actor(srv.get(), { scope: '/r' });
      await put(srv.get(), 'r/shared.txt', 'original');
      await put(srv.get(), 'r/intruder.txt', 'intruder');
      const s = await createOk(srv.get(), r, '/shared.txt');
      const res = await srv.fetch(`/api/resources/intruder.txt?action=rename&destination=${encodeURIComponent('/shared.txt')}&override=true`, { method: 'PATCH', token: r.token });
      expect(res.status).toBe(200);
      expect((await pub(s.hash)).status).toBe(404);
    });

    it('a shared file saved or re-uploaded by its owner stays shared, with the new content', async () => {
      const e = await actor(srv.get(), { scope: '/e' });
      await put(srv.get(), 'e/doc.txt', 'version 1');
      const s = await createOk(srv.get(), e, '/doc.txt');
      const saved = await srv.fetch('/api/resources/doc.txt', { method: 'PUT', token: e.token, body: 'version 2' });
      expect(saved.status).toBe(200);
      let res = await pub(s.hash);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('version 2');
      const up = await srv.fetch('/api/resources/doc.txt?override=true', { method: 'POST', token: e.token, body: 'version 3' });
      expect(up.status).toBe(200);
      res = await pub(s.hash);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('version 3');
    });
  });

  describe('removeUnder (S48)', () => {
    it('removes the owner\'s shares below the path, and other users\' shares of files that are gone, not of files kept back', async () => {
      await put(srv.get(), 'bob/gone/in.txt');
      await put(srv.get(), 'bob/gone/kept/k.txt');
      await put(srv.get(), 'bob/gone-not.txt');
      const frank = await actor(srv.get(), { scope: '/bob', rules: [{ regex: false, allow: false, path: '/gone/kept', regexp: null }] });
      const other = await actor(srv.get(), { scope: '/alice' });
      await put(srv.get(), 'alice/gone/in.txt');
      const s1 = await createOk(srv.get(), frank, '/gone/');
      const s2 = await createOk(srv.get(), frank, '/gone/in.txt');
      const s3 = await createOk(srv.get(), frank, '/gone-not.txt');
      const sameFile = await createOk(srv.get(), bob, '/gone/in.txt');
      const keptFile = await createOk(srv.get(), bob, '/gone/kept/k.txt');
      const otherUsers = await createOk(srv.get(), other, '/gone/in.txt');
      // S7: the rule keeps /gone/kept (and /gone) on disk; the rest goes.
      expect((await srv.fetch('/api/resources/gone', { method: 'DELETE', token: frank.token })).status).toBe(204);
      const left = new Set((await mine(srv.get(), admin)).map((s) => s.hash));
      expect(left.has(s1.hash)).toBe(false);
      expect(left.has(s2.hash)).toBe(false);
      expect(left.has(sameFile.hash)).toBe(false);
      expect(left.has(s3.hash)).toBe(true);
      expect(left.has(keptFile.hash)).toBe(true);
      expect(left.has(otherUsers.hash)).toBe(true);
      expect((await srv.fetch(`/api/public/dl/${keptFile.hash}`)).status).toBe(200);
      // Re-creating the file does not bring the other user's share back either.
      await put(srv.get(), 'bob/gone/in.txt', 'new');
      expect((await srv.fetch(`/api/public/dl/${sameFile.hash}`)).status).toBe(404);
    });
  });
});
