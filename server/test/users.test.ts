/**
 * Users API (docs/api.md §3) over real HTTP: every status, the check order, and S9, S14, S21, S22,
 * S34–S39, S54, S65, S80. Runs on SQLite, and on PostgreSQL with COFFER_TEST_PG_URL.
 */
import { mkdtemp, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { User } from '@coffer/protocol';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, useServer, type TestServer } from './harness.js';
import { newUserData, PERM_ALL } from './users-support.js';

async function text(res: Response): Promise<string> {
  return res.text();
}

/** POST /api/users as the admin; returns the response. */
function post(srv: TestServer, token: string, body: unknown) {
  return srv.fetch('/api/users', { method: 'POST', token, json: body });
}

async function createViaApi(srv: TestServer, token: string, over: Partial<User> & Record<string, unknown> = {}): Promise<User> {
  const data = newUserData(over);
  const res = await post(srv, token, { what: 'user', which: [], current_password: ADMIN.password, data });
  expect(res.status, await res.clone().text()).toBe(201);
  const id = Number(res.headers.get('location')!.split('/').pop());
  const got = await srv.fetch(`/api/users/${id}`, { token });
  return (await got.json()) as User;
}

async function fullUser(srv: TestServer, token: string, id: number): Promise<User> {
  const res = await srv.fetch(`/api/users/${id}`, { token });
  expect(res.status).toBe(200);
  return (await res.json()) as User;
}

/** `from`: the client address (X-Forwarded-For, trusted from 127.0.0.1), for tests that guess many times. */
function put(srv: TestServer, token: string, id: number | string, body: unknown, from?: string) {
  return srv.fetch(`/api/users/${id}`, { method: 'PUT', token, json: body, ...(from ? { headers: { 'X-Forwarded-For': from } } : {}) });
}

function del(srv: TestServer, token: string, id: number | string, body?: unknown) {
  return srv.fetch(`/api/users/${id}`, { method: 'DELETE', token, ...(body === undefined ? {} : { json: body }) });
}

describe('users API', () => {
  // Trusting 127.0.0.1 lets a test that makes many wrong guesses spread them over addresses
  // (put's `from`): wrong current passwords count in the login throttle (S30).
  const srv = useServer({ trustedProxies: ['127.0.0.1'] });
  let admin: string;
  beforeAll(async () => {
    admin = await srv.login();
  });

  describe('GET /api/users', () => {
    it('answers 401 without a token and 403 for a non-admin (S14)', async () => {
      expect((await srv.fetch('/api/users')).status).toBe(401);
      const u = await srv.createUser();
      const token = await srv.login(u.username, u.password);
      const res = await srv.fetch('/api/users', { token });
      expect(res.status).toBe(403);
      expect(await text(res)).toBe('403 Forbidden\n');
    });

    it('lists every user sorted by id, with empty passwords and scopes, never a hash', async () => {
      await srv.createUser({ scope: '/x' });
      const res = await srv.fetch('/api/users', { token: admin });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const body = await text(res);
      expect(body).not.toMatch(/\$argon2|\$2[aby]\$/);
      const list = JSON.parse(body) as User[];
      expect(list.length).toBeGreaterThanOrEqual(2);
      expect(list.map((u) => u.id)).toEqual([...list.map((u) => u.id)].sort((a, b) => a - b));
      for (const u of list) expect(u.password).toBe('');
      expect(list[0]).toMatchObject({ id: 1, username: ADMIN.username, scope: '/' });
      expect(list.some((u) => u.scope === '/x')).toBe(true);
      expect(Object.keys(list[0]!)).toEqual([
        'id', 'username', 'password', 'scope', 'locale', 'lockPassword', 'viewMode', 'singleClick', 'redirectAfterCopyMove',
        'perm', 'commands', 'sorting', 'rules', 'hideDotfiles', 'dateFormat', 'aceEditorTheme', 'quota',
      ]);
    });
  });

  describe('GET /api/users/{id}', () => {
    it('gives a non-admin itself with scope "" and no hash, and 403 for another id (S14, S37)', async () => {
      const u = await srv.createUser({ scope: '/secret-scope' });
      const token = await srv.login(u.username, u.password);
      const res = await srv.fetch(`/api/users/${u.id}`, { token });
      expect(res.status).toBe(200);
      const body = await text(res);
      expect(body).not.toMatch(/argon2|secret-scope/);
      expect(JSON.parse(body)).toMatchObject({ id: u.id, username: u.username, password: '', scope: '' });
      expect((await srv.fetch('/api/users/1', { token })).status).toBe(403);
      expect((await srv.fetch('/api/users/999999', { token })).status).toBe(403);
    });

    it('gives an admin any user with its scope, 404 for an unknown id', async () => {
      const u = await srv.createUser({ scope: '/scoped' });
      const got = await fullUser(srv, admin, u.id);
      expect(got).toMatchObject({ id: u.id, scope: '/scoped', password: '' });
      const res = await srv.fetch('/api/users/999999', { token: admin });
      expect(res.status).toBe(404);
      expect(await text(res)).toBe('404 Not Found\n');
    });

    it('answers 404 for ids that are not decimal digits, with or without a token', async () => {
      for (const id of ['abc', '-1', '1.0', '0x1', '1e3', '%31%32z', '99999999999999999999']) {
        expect((await srv.fetch(`/api/users/${id}`, { token: admin })).status, id).toBe(404);
        expect((await srv.fetch(`/api/users/${id}`)).status, id).toBe(404);
        expect((await put(srv, admin, id, { what: 'user', which: ['locale'], data: { id: 1, locale: 'de' } })).status).toBe(404);
        expect((await del(srv, admin, id, { current_password: ADMIN.password })).status).toBe(404);
      }
      expect((await srv.fetch('/api/users/1')).status).toBe(401);
    });
  });

  describe('POST /api/users', () => {
    it('creates a user: 201, Location without base URL, body "201 Created\\n", folder 0750 (S54)', async () => {
      const data = newUserData({ username: 'carol', scope: '/homes/carol' });
      const res = await post(srv, admin, { what: 'user', which: [], current_password: ADMIN.password, data });
      expect(res.status).toBe(201);
      expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await text(res)).toBe('201 Created\n');
      const location = res.headers.get('location')!;
      expect(location).toMatch(/^\/settings\/users\/\d+$/);
      const id = Number(location.split('/').pop());
      const got = await fullUser(srv, admin, id);
      // Coffer's quota, left out (as File Browser's client does), is the settings' default: none.
      expect(got).toEqual({ ...data, id, password: '', quota: 0 });
      for (const dir of ['homes', 'homes/carol']) {
        const st = await stat(path.join(srv.root, dir));
        expect(st.isDirectory()).toBe(true);
        expect(st.mode & 0o777 & ~0o750, dir).toBe(0);
        expect(st.mode & 0o700).toBe(0o700);
      }
      // The new user can log in with the password it was given (argon2id stored, S34).
      await srv.login('carol', data.password);
      const stored = await srv.deps.users.byId(id);
      expect(stored!.passwordHash).toMatch(/^\$argon2id\$/);
    });

    it('answers 401 without a token, 403 for a non-admin, and creates nothing', async () => {
      const data = newUserData({ username: 'not-created' });
      expect((await srv.fetch('/api/users', { method: 'POST', json: { what: 'user', which: [], data } })).status).toBe(401);
      const u = await srv.createUser();
      const token = await srv.login(u.username, u.password);
      const res = await post(srv, token, { what: 'user', which: [], current_password: u.password, data });
      expect(res.status).toBe(403);
      expect(await srv.deps.users.byUsername('not-created')).toBeUndefined();
    });

    it('checks in the order of docs/api.md §3.4: body, what, current password, which, password, policy, share/download', async () => {
      const data = newUserData({ username: 'order-check' });
      const expectBad = async (body: unknown, detail: string | null) => {
        const res = await post(srv, admin, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        if (detail !== null) expect(await text(res)).toBe(`400 Bad Request (${detail})\n`);
      };
      // empty / malformed body
      expect((await srv.fetch('/api/users', { method: 'POST', token: admin })).status).toBe(400);
      expect((await srv.fetch('/api/users', { method: 'POST', token: admin, body: '{"what":' })).status).toBe(400);
      // what is checked before the current password
      await expectBad({ what: 'share', which: [], data }, 'invalid data type');
      await expectBad({ which: [], current_password: ADMIN.password, data }, 'invalid data type');
      // current password before which
      await expectBad({ what: 'user', which: ['locale'], data }, 'the current password is incorrect');
      await expectBad({ what: 'user', which: ['locale'], current_password: 'wrong-password-123', data }, 'the current password is incorrect');
      await expectBad({ what: 'user', which: ['locale'], current_password: ADMIN.password, data }, null);
      // which before the password
      await expectBad({ what: 'user', which: ['all'], current_password: ADMIN.password, data: { ...data, password: '' } }, null);
      await expectBad({ what: 'user', which: [], current_password: ADMIN.password, data: { ...data, password: '' } }, 'password is empty');
      await expectBad({ what: 'user', current_password: ADMIN.password, data: { username: 'x' } }, 'password is empty');
      await expectBad({ what: 'user', which: [], current_password: ADMIN.password, data: { ...data, password: 'short' } }, 'password is too short, minimum length is 12');
      await expectBad({ what: 'user', which: [], current_password: ADMIN.password, data: { ...data, password: 'password1234' } }, 'password is too easy');
      // policy before share/download
      await expectBad(
        { what: 'user', which: [], current_password: ADMIN.password, data: { ...data, password: 'short', perm: { ...PERM_ALL, download: false } } },
        'password is too short, minimum length is 12',
      );
      await expectBad(
        { what: 'user', which: [], current_password: ADMIN.password, data: { ...data, perm: { ...PERM_ALL, download: false } } },
        'permission to share requires permission to download',
      );
      expect(await srv.deps.users.byUsername('order-check')).toBeUndefined();
    });

    it('answers 400 for an empty username, control characters or more than 255 characters', async () => {
      for (const username of ['', '   ', 'a\u0000b', 'tab\there', 'nl\n', 'del\u007f', 'x'.repeat(256)]) {
        const res = await post(srv, admin, { what: 'user', which: [], current_password: ADMIN.password, data: newUserData({ username }) });
        expect(res.status, JSON.stringify(username)).toBe(400);
      }
      const ok = await createViaApi(srv, admin, { username: 'y'.repeat(255) });
      expect(ok.username).toHaveLength(255);
    });

    it('stores SQL metacharacters and Unicode in usernames literally', async () => {
      for (const username of ["o'brien\"; DROP TABLE users; --", "x' OR '1'='1", '%_\\', 'Zoë 😀 用户']) {
        const u = await createViaApi(srv, admin, { username });
        expect(u.username).toBe(username);
        const token = await srv.login(username, 'a-long-enough-password');
        expect((await srv.fetch(`/api/users/${u.id}`, { token })).status).toBe(200);
      }
      expect((await srv.fetch('/api/users', { token: admin })).status).toBe(200);
    });

    it('answers 409 for a duplicate username, case-insensitively, and stores no second user (S37)', async () => {
      await createViaApi(srv, admin, { username: 'Dupe' });
      for (const username of ['Dupe', 'dupe', 'DUPE']) {
        const res = await post(srv, admin, { what: 'user', which: [], current_password: ADMIN.password, data: newUserData({ username }) });
        expect(res.status, username).toBe(409);
      }
      await createViaApi(srv, admin, { username: 'Ärger' });
      const res = await post(srv, admin, { what: 'user', which: [], current_password: ADMIN.password, data: newUserData({ username: 'ärger' }) });
      expect(res.status).toBe(409);
      const all = (await (await srv.fetch('/api/users', { token: admin })).json()) as User[];
      expect(all.filter((u) => u.username.toLowerCase() === 'dupe')).toHaveLength(1);
      expect(all.filter((u) => u.username.toLowerCase() === 'ärger')).toHaveLength(1);
    });

    it('normalises the scope: "." is /, relative and dotted paths are cleaned', async () => {
      expect((await createViaApi(srv, admin, { scope: '.' })).scope).toBe('/');
      expect((await createViaApi(srv, admin, { scope: '' })).scope).toBe('/');
      expect((await createViaApi(srv, admin, { scope: '  rel/a/./b/../c/  ' })).scope).toBe('/rel/a/c');
      expect((await stat(path.join(srv.root, 'rel/a/c'))).isDirectory()).toBe(true);
    });

    it('answers 400 for a scope climbing above the root and creates nothing (S9)', async () => {
      for (const scope of ['/../../etc', '..', 'a/../../b', '/x/../../..']) {
        const username = `climber-${Math.random().toString(36).slice(2, 8)}`;
        const res = await post(srv, admin, { what: 'user', which: [], current_password: ADMIN.password, data: newUserData({ username, scope }) });
        expect(res.status, scope).toBe(400);
        expect(await srv.deps.users.byUsername(username)).toBeUndefined();
      }
    });

    it('never creates a scope folder through a link out of the root (S4, S5), nor over a file', async () => {
      const outside = await mkdtemp(path.join(tmpdir(), 'coffer-outside-'));
      try {
        await symlink(outside, path.join(srv.root, 'escape-link'));
        await symlink(path.join(outside, 'missing'), path.join(srv.root, 'dangling-link'));
        await writeFile(path.join(srv.root, 'a-file'), 'x');
        const cases: [string, number][] = [['/escape-link/alice', 403], ['/escape-link', 403], ['/dangling-link/bob', 403], ['/a-file', 400], ['/a-file/below', 400]];
        for (const [scope, status] of cases) {
          const username = `linked-${Math.random().toString(36).slice(2, 8)}`;
          const res = await post(srv, admin, { what: 'user', which: [], current_password: ADMIN.password, data: newUserData({ username, scope }) });
          expect(res.status, scope).toBe(status);
          expect(await srv.deps.users.byUsername(username)).toBeUndefined();
        }
        expect(await readdir(outside)).toEqual([]);
      } finally {
        await rm(outside, { recursive: true, force: true });
      }
    });

    it('answers 400 for an invalid rule regex and stores nothing (S39)', async () => {
      for (const raw of ['(?<=x)y', '(a', 'a\\1', '(?P<n>x)']) {
        const username = `rules-${Math.random().toString(36).slice(2, 8)}`;
        const rules = [{ regex: true, allow: false, path: '', regexp: { raw } }];
        const res = await post(srv, admin, { what: 'user', which: [], current_password: ADMIN.password, data: newUserData({ username, rules }) });
        expect(res.status, raw).toBe(400);
        expect(await srv.deps.users.byUsername(username)).toBeUndefined();
      }
      const rules = [
        { regex: true, allow: false, path: '', regexp: { raw: '\\.key$' } },
        { regex: false, allow: true, path: '/pub', regexp: { raw: '' } },
      ];
      expect((await createViaApi(srv, admin, { rules })).rules).toEqual(rules);
    });

    it('fills empty viewMode, sorting.by and null lists; ignores data.id', async () => {
      const u = await createViaApi(srv, admin, { id: 1, viewMode: '', sorting: { by: '', asc: true }, commands: null, rules: null } as never);
      expect(u.id).not.toBe(1);
      expect(u).toMatchObject({ viewMode: 'list', sorting: { by: 'name', asc: true }, commands: [], rules: [] });
    });

    it('answers 400 for wrong JSON types anywhere (S65)', async () => {
      const bad: unknown[] = [
        { what: 'user', which: 'x', current_password: ADMIN.password, data: newUserData() },
        { what: 1, which: [], current_password: ADMIN.password, data: newUserData() },
        { what: 'user', which: [], current_password: 5, data: newUserData() },
        { what: 'user', which: [], current_password: ADMIN.password, data: newUserData({ username: 123 as never }) },
        { what: 'user', which: [], current_password: ADMIN.password, data: newUserData({ password: ['a'] as never }) },
        { what: 'user', which: [], current_password: ADMIN.password, data: newUserData({ perm: 'all' as never }) },
        { what: 'user', which: [], current_password: ADMIN.password, data: newUserData({ perm: { admin: true } as never }) },
        { what: 'user', which: [], current_password: ADMIN.password, data: newUserData({ rules: [{ regex: 'yes' }] as never }) },
        { what: 'user', which: [], current_password: ADMIN.password, data: 'user' },
        [],
        'text',
        42,
      ];
      for (const body of bad) {
        const res = await post(srv, admin, body);
        expect(res.status, JSON.stringify(body).slice(0, 120)).toBe(400);
      }
      const res = await srv.fetch('/api/users', { method: 'POST', token: admin, json: '{"what":"user","data":{"username":"x\\ud800y","password":"a-long-enough-password"}}' });
      expect(res.status).toBe(400);
    });

    it('answers 413 for a 10 MB body while /health keeps answering (S80)', async () => {
      const big = JSON.stringify({ what: 'user', which: [], data: { username: 'x'.repeat(10 * 1024 * 1024) } });
      const [res, health] = await Promise.all([
        srv.fetch('/api/users', { method: 'POST', token: admin, json: big }),
        srv.fetch('/health'),
      ]);
      expect(res.status).toBe(413);
      expect(health.status).toBe(200);
      expect((await srv.fetch('/health')).status).toBe(200);
      // The same without a declared length (chunked).
      const stream = new ReadableStream({
        start(c) {
          for (let i = 0; i < 10; i++) c.enqueue(new TextEncoder().encode('x'.repeat(1024 * 1024)));
          c.close();
        },
      });
      const chunked = await srv.fetch('/api/users', { method: 'POST', token: admin, body: stream, duplex: 'half' } as RequestInit);
      expect(chunked.status).toBe(413);
      expect((await srv.fetch('/health')).status).toBe(200);
    });
  });

  describe('POST /api/users with createUserDir', () => {
    it('derives <userHomeBasePath>/<cleaned name> for an empty scope and refuses a shared home (409)', async () => {
      const settings = await srv.deps.settings.settings();
      await srv.deps.settings.saveSettings({ ...settings, createUserDir: true, userHomeBasePath: '/homes2' });
      try {
        const u = await createViaApi(srv, admin, { username: 'Jane Doe..x', scope: '  ' });
        expect(u.scope).toBe('/homes2/Jane-Doex');
        const st = await stat(path.join(srv.root, 'homes2/Jane-Doex'));
        expect(st.isDirectory()).toBe(true);
        expect(st.mode & 0o777 & ~0o750).toBe(0);
        // Another name cleaning to the same folder would share it.
        const res = await post(srv, admin, { what: 'user', which: [], current_password: ADMIN.password, data: newUserData({ username: 'Jane  Doe..x', scope: '' }) });
        expect(res.status).toBe(409);
        // An explicit scope wins over the derived one.
        expect((await createViaApi(srv, admin, { scope: '/explicit' })).scope).toBe('/explicit');
        // A name with nothing usable for a folder → 400.
        const none = await post(srv, admin, { what: 'user', which: [], current_password: ADMIN.password, data: newUserData({ username: '..', scope: '' }) });
        expect(none.status).toBe(400);
      } finally {
        await srv.deps.settings.saveSettings(settings);
      }
    });
  });

  describe('PUT /api/users/{id}', () => {
    it('lets a user change its own preferences without a password; answers "200 OK\\n"', async () => {
      const u = await srv.createUser();
      const token = await srv.login(u.username, u.password);
      const res = await put(srv, token, u.id, {
        what: 'user',
        which: ['locale', 'sorting', 'viewMode', 'singleClick', 'redirectAfterCopyMove', 'hideDotfiles', 'dateFormat', 'aceEditorTheme'],
        data: { id: u.id, locale: 'pt-br', sorting: { by: 'size', asc: true }, viewMode: '', singleClick: true, redirectAfterCopyMove: false, hideDotfiles: true, dateFormat: true, aceEditorTheme: 'monokai', perm: { ...PERM_ALL, admin: true }, scope: '/' },
      });
      expect(res.status).toBe(200);
      expect(await text(res)).toBe('200 OK\n');
      const got = await fullUser(srv, admin, u.id);
      expect(got).toMatchObject({
        locale: 'pt-br', sorting: { by: 'size', asc: true }, viewMode: 'list', singleClick: true, redirectAfterCopyMove: false,
        hideDotfiles: true, dateFormat: true, aceEditorTheme: 'monokai', scope: u.scope,
      });
      // Fields of data not named in which are ignored.
      expect(got.perm.admin).toBe(false);
    });

    it('answers 401 without a token and 403 for another user id as a non-admin (S14)', async () => {
      const a = await srv.createUser();
      const b = await srv.createUser();
      expect((await put(srv, '', b.id, { what: 'user', which: ['locale'], data: { id: b.id, locale: 'de' } })).status).toBe(401);
      const token = await srv.login(a.username, a.password);
      expect((await put(srv, token, b.id, { what: 'user', which: ['locale'], data: { id: b.id, locale: 'de' } })).status).toBe(403);
      expect((await srv.deps.users.byId(b.id))!.locale).toBe(b.locale);
    });

    it('answers 400 for which names that are not exact (S36) and changes nothing', async () => {
      const u = await srv.createUser();
      for (const name of ['Locale', 'PERM', 'perm ', 'isAdmin', 'perm.admin', 'id', 'Password', 'uploadsLimit', '']) {
        const res = await put(srv, admin, u.id, { what: 'user', which: ['locale', name], current_password: ADMIN.password, data: { id: u.id, locale: 'de', perm: PERM_ALL } });
        expect(res.status, name).toBe(400);
      }
      expect((await srv.deps.users.byId(u.id))!.locale).toBe(u.locale);
    });

    it('needs the caller current password for sensitive fields, all and empty which (S35)', async () => {
      const u = await srv.createUser();
      const cases: [string[], Record<string, unknown>][] = [
        [['password'], { password: 'another-long-password' }],
        [['username'], { username: 'renamed-x' }],
        [['scope'], { scope: '/else' }],
        [['perm'], { perm: PERM_ALL }],
        [['commands'], { commands: ['ls'] }],
        [['rules'], { rules: [] }],
        [['lockPassword'], { lockPassword: true }],
      ];
      let guess = 0;
      for (const [which, fields] of cases) {
        for (const current of [undefined, '', 'wrong-password-1234', u.password]) {
          const body = { what: 'user', which, ...(current === undefined ? {} : { current_password: current }), data: { id: u.id, ...fields } };
          const res = await put(srv, admin, u.id, body, `192.0.2.${++guess}`);
          expect(res.status, `${which} ${current}`).toBe(400);
          expect(await text(res)).toBe('400 Bad Request (the current password is incorrect)\n');
        }
      }
      const full = { ...(await fullUser(srv, admin, u.id)), locale: 'fr' };
      for (const which of [[], ['all']]) {
        const res = await put(srv, admin, u.id, { what: 'user', which, data: full });
        expect(res.status).toBe(400);
        expect(await text(res)).toBe('400 Bad Request (the current password is incorrect)\n');
      }
      const after = (await srv.deps.users.byId(u.id))!;
      expect(after).toMatchObject({ username: u.username, scope: u.scope, locale: u.locale, commands: [], lockPassword: false, passwordHash: u.passwordHash });
    });

    it('checks what before the current password, and the current password before data.id', async () => {
      const u = await srv.createUser();
      let res = await put(srv, admin, u.id, { what: 'x', which: ['password'], data: { id: u.id, password: 'another-long-password' } });
      expect(await text(res)).toBe('400 Bad Request (invalid data type)\n');
      res = await put(srv, admin, u.id, { what: 'user', which: ['password'], data: { id: u.id + 1, password: 'another-long-password' } });
      expect(await text(res)).toBe('400 Bad Request (the current password is incorrect)\n');
    });

    it('answers 400 without data or with a data.id that differs from the URL (S38)', async () => {
      const u = await srv.createUser();
      for (const body of [
        { what: 'user', which: ['locale'] },
        { what: 'user', which: ['locale'], data: { locale: 'de' } },
        { what: 'user', which: ['locale'], data: { id: u.id + 1, locale: 'de' } },
        { what: 'user', which: ['locale'], data: { id: String(u.id), locale: 'de' } },
        { what: 'user', which: ['locale'], data: { id: u.id } },
      ]) {
        const res = await put(srv, admin, u.id, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
      }
      expect((await srv.deps.users.byId(u.id))!.locale).toBe(u.locale);
    });

    it('answers 404 for an unknown id (S38)', async () => {
      const res = await put(srv, admin, 987654, { what: 'user', which: ['locale'], data: { id: 987654, locale: 'de' } });
      expect(res.status).toBe(404);
      const full = { ...newUserData(), id: 987654 };
      expect((await put(srv, admin, 987654, { what: 'user', which: [], current_password: ADMIN.password, data: full })).status).toBe(404);
    });

    it('answers 400 for an empty username and 409 for a taken one (S37, S38)', async () => {
      const u = await srv.createUser({ username: 'rename-me' });
      await srv.createUser({ username: 'Taken-Name' });
      const rename = (username: unknown) => put(srv, admin, u.id, { what: 'user', which: ['username'], current_password: ADMIN.password, data: { id: u.id, username } });
      expect((await rename('')).status).toBe(400);
      expect((await rename('a\u0001b')).status).toBe(400);
      expect((await rename('taken-name')).status).toBe(409);
      expect((await rename(7)).status).toBe(400);
      expect((await srv.deps.users.byId(u.id))!.username).toBe('rename-me');
      // A change of case of its own name is not a duplicate.
      expect((await rename('Rename-Me')).status).toBe(200);
      expect((await srv.deps.users.byId(u.id))!.username).toBe('Rename-Me');
    });

    it('refuses a non-admin its own username, scope, perm, commands, rules, lockPassword, all and empty which (S37)', async () => {
      const u = await srv.createUser();
      const token = await srv.login(u.username, u.password);
      const cases: [string[], Record<string, unknown>][] = [
        [['username'], { username: 'new-name-1' }],
        [['scope'], { scope: '/' }],
        [['perm'], { perm: { ...PERM_ALL, admin: true } }],
        [['commands'], { commands: ['rm'] }],
        [['rules'], { rules: [] }],
        [['lockPassword'], { lockPassword: true }],
        [['locale', 'perm'], { locale: 'de', perm: { ...PERM_ALL, admin: true } }],
      ];
      for (const [which, fields] of cases) {
        const res = await put(srv, token, u.id, { what: 'user', which, current_password: u.password, data: { id: u.id, ...fields } });
        expect(res.status, which.join()).toBe(403);
      }
      const self = { ...(await fullUser(srv, admin, u.id)), perm: { ...PERM_ALL, admin: true } };
      for (const which of [[], ['all']]) {
        const res = await put(srv, token, u.id, { what: 'user', which, current_password: u.password, data: self });
        expect(res.status).toBe(403);
      }
      const after = (await srv.deps.users.byId(u.id))!;
      expect(after.perm.admin).toBe(false);
      expect(after.locale).toBe(u.locale);
    });

    it('answers 400 for perm.share without perm.download', async () => {
      const u = await srv.createUser();
      const res = await put(srv, admin, u.id, { what: 'user', which: ['perm'], current_password: ADMIN.password, data: { id: u.id, perm: { ...PERM_ALL, download: false } } });
      expect(res.status).toBe(400);
      expect(await text(res)).toBe('400 Bad Request (permission to share requires permission to download)\n');
      expect((await srv.deps.users.byId(u.id))!.perm.download).toBe(true);
    });

    it('answers 400 for a scope above the root (S9) and for an invalid rule regex (S39)', async () => {
      const u = await srv.createUser({ scope: '/stay' });
      let res = await put(srv, admin, u.id, { what: 'user', which: ['scope'], current_password: ADMIN.password, data: { id: u.id, scope: '/../../etc' } });
      expect(res.status).toBe(400);
      res = await put(srv, admin, u.id, { what: 'user', which: ['rules'], current_password: ADMIN.password, data: { id: u.id, rules: [{ regex: true, allow: false, path: '', regexp: { raw: 'a(?!b)' } }] } });
      expect(res.status).toBe(400);
      res = await put(srv, admin, u.id, { what: 'user', which: ['rules'], current_password: ADMIN.password, data: { id: u.id, rules: [{ regex: true, allow: false, path: '' }] } });
      expect(res.status).toBe(400);
      const after = (await srv.deps.users.byId(u.id))!;
      expect(after.scope).toBe('/stay');
      expect(after.rules).toEqual([]);
      // A good scope is normalised and its folder created.
      res = await put(srv, admin, u.id, { what: 'user', which: ['scope'], current_password: ADMIN.password, data: { id: u.id, scope: 'moved/./here/' } });
      expect(res.status).toBe(200);
      expect((await srv.deps.users.byId(u.id))!.scope).toBe('/moved/here');
      expect((await stat(path.join(srv.root, 'moved/here'))).isDirectory()).toBe(true);
    });

    it('writes nothing when a later check fails', async () => {
      const u = await srv.createUser();
      const res = await put(srv, admin, u.id, {
        what: 'user', which: ['locale', 'username', 'scope'], current_password: ADMIN.password,
        data: { id: u.id, locale: 'de', username: 'fresh-name-2', scope: '/../x' },
      });
      expect(res.status).toBe(400);
      const after = (await srv.deps.users.byId(u.id))!;
      expect(after).toMatchObject({ locale: u.locale, username: u.username, scope: u.scope });
      // A listed field missing from data is a 400 too.
      expect((await put(srv, admin, u.id, { what: 'user', which: ['locale', 'singleClick'], data: { id: u.id, locale: 'de' } })).status).toBe(400);
      expect((await srv.deps.users.byId(u.id))!.locale).toBe(u.locale);
    });

    it('replaces the whole record with which [] or ["all"], keeping the password when it is ""', async () => {
      const u = await srv.createUser();
      const before = await fullUser(srv, admin, u.id);
      const next = { ...before, username: `${before.username}-all`, locale: 'ja', scope: '/replaced', commands: ['ls'], rules: [{ regex: false, allow: false, path: '/p', regexp: { raw: '' } }], perm: { ...PERM_ALL, share: false } };
      let res = await put(srv, admin, u.id, { what: 'user', which: ['all'], current_password: ADMIN.password, data: next });
      expect(res.status).toBe(200);
      expect(await fullUser(srv, admin, u.id)).toEqual({ ...next, password: '' });
      await srv.login(next.username, u.password); // password kept
      res = await put(srv, admin, u.id, { what: 'user', which: [], current_password: ADMIN.password, data: { ...next, locale: 'ko', password: 'brand-new-password-9' } });
      expect(res.status).toBe(200);
      expect((await fullUser(srv, admin, u.id)).locale).toBe('ko');
      await srv.login(next.username, 'brand-new-password-9');
      // A full replace needs every field.
      const { locale: _dropped, ...partial } = next;
      res = await put(srv, admin, u.id, { what: 'user', which: [], current_password: ADMIN.password, data: partial });
      expect(res.status).toBe(400);
    });

    it('applies the password policy to changes (S35) and refuses a locked user its own password (S37)', async () => {
      const u = await srv.createUser();
      const token = await srv.login(u.username, u.password);
      let res = await put(srv, token, u.id, { what: 'user', which: ['password'], current_password: u.password, data: { id: u.id, password: 'short' } });
      expect(res.status).toBe(400);
      expect(await text(res)).toBe('400 Bad Request (password is too short, minimum length is 12)\n');
      res = await put(srv, token, u.id, { what: 'user', which: ['password'], current_password: u.password, data: { id: u.id, password: '' } });
      expect(res.status).toBe(400);
      const locked = await srv.createUser({ lockPassword: true });
      const lt = await srv.login(locked.username, locked.password);
      res = await put(srv, lt, locked.id, { what: 'user', which: ['password'], current_password: locked.password, data: { id: locked.id, password: 'a-new-long-password' } });
      expect(res.status).toBe(403);
      await srv.login(locked.username, locked.password);
      // An admin may still set it.
      res = await put(srv, admin, locked.id, { what: 'user', which: ['password'], current_password: ADMIN.password, data: { id: locked.id, password: 'a-new-long-password' } });
      expect(res.status).toBe(200);
      await srv.login(locked.username, 'a-new-long-password');
    });

    it('revokes the other sessions on a password change and keeps the changer\'s own (S21)', async () => {
      const u = await srv.createUser();
      const mine = await srv.login(u.username, u.password);
      const other = await srv.login(u.username, u.password);
      const res = await put(srv, mine, u.id, { what: 'user', which: ['password'], current_password: u.password, data: { id: u.id, password: 'changed-password-77' } });
      expect(res.status).toBe(200);
      expect((await srv.fetch(`/api/users/${u.id}`, { token: other })).status).toBe(401);
      expect((await srv.fetch('/api/renew', { method: 'POST', token: other })).status).toBe(401);
      expect((await srv.fetch(`/api/users/${u.id}`, { token: mine })).status).toBe(200);
      // An admin changing it ends every session of that user, the admin's own stays.
      const again = await srv.login(u.username, 'changed-password-77');
      const res2 = await put(srv, admin, u.id, { what: 'user', which: ['password'], current_password: ADMIN.password, data: { id: u.id, password: 'changed-by-admin-88' } });
      expect(res2.status).toBe(200);
      expect((await srv.fetch(`/api/users/${u.id}`, { token: again })).status).toBe(401);
      expect((await srv.fetch(`/api/users/${u.id}`, { token: mine })).status).toBe(401);
      expect((await srv.fetch('/api/users', { token: admin })).status).toBe(200);
    });

    it('keeps other sessions on changes that are not the password', async () => {
      const u = await srv.createUser();
      const token = await srv.login(u.username, u.password);
      await put(srv, admin, u.id, { what: 'user', which: ['locale'], data: { id: u.id, locale: 'it' } });
      expect((await srv.fetch(`/api/users/${u.id}`, { token })).status).toBe(200);
    });

    it('sends X-Renew-Token: true on the user\'s next request after an admin update', async () => {
      const u = await srv.createUser();
      const token = await srv.login(u.username, u.password);
      // The user was stored 10 s ago and the session issued 5 s ago (updates are compared in whole
      // seconds, docs/api.md §2.3), so the test needs no sleep.
      const jti = (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { jti: string }).jti;
      await srv.deps.db.kysely.updateTable('users').set((eb) => ({ updated_at: eb('updated_at', '-', 10) })).where('id', '=', u.id).execute();
      await srv.deps.db.kysely.updateTable('sessions').set((eb) => ({ issued_at: eb('issued_at', '-', 5) })).where('jti', '=', jti).execute();
      const before = await srv.fetch(`/api/users/${u.id}`, { token });
      expect(before.headers.get('x-renew-token')).toBeNull();
      const res = await put(srv, admin, u.id, { what: 'user', which: ['perm'], current_password: ADMIN.password, data: { id: u.id, perm: { ...PERM_ALL, share: false } } });
      expect(res.status).toBe(200);
      const after = await srv.fetch(`/api/users/${u.id}`, { token });
      expect(after.status).toBe(200);
      expect(after.headers.get('x-renew-token')).toBe('true');
      // The permission change is effective at once (S22: the user is re-read per request).
      expect(((await after.json()) as User).perm.share).toBe(false);
    });

    it('answers 400 for wrong JSON types anywhere and for malformed JSON (S65)', async () => {
      const u = await srv.createUser();
      const bodies: unknown[] = [
        { what: 'user', which: 'locale', data: { id: u.id, locale: 'de' } },
        { what: 'user', which: [1], data: { id: u.id, locale: 'de' } },
        { what: 'user', which: ['locale'], data: { id: u.id, locale: 5 } },
        { what: 'user', which: ['singleClick'], data: { id: u.id, singleClick: 'yes' } },
        { what: 'user', which: ['sorting'], data: { id: u.id, sorting: 'size' } },
        { what: 'user', which: ['perm'], current_password: ADMIN.password, data: { id: u.id, perm: 'all' } },
        { what: 'user', which: ['commands'], current_password: ADMIN.password, data: { id: u.id, commands: 'ls' } },
        { what: 'user', which: ['password'], current_password: ADMIN.password, data: { id: u.id, password: ['x'] } },
        { what: 'user', which: ['locale'], data: [] },
      ];
      for (const body of bodies) expect((await put(srv, admin, u.id, body)).status, JSON.stringify(body)).toBe(400);
      for (const raw of ['{', '{"what":"user",}', 'nul', '"\\x"']) {
        expect((await srv.fetch(`/api/users/${u.id}`, { method: 'PUT', token: admin, body: raw })).status, raw).toBe(400);
      }
      expect((await srv.fetch(`/api/users/${u.id}`, { method: 'PUT', token: admin })).status).toBe(400);
      const after = (await srv.deps.users.byId(u.id))!;
      expect(after).toMatchObject({ locale: u.locale, singleClick: u.singleClick, perm: u.perm, commands: [] });
    });

    it('answers 413 for a 10 MB body while /health keeps answering (S80)', async () => {
      const u = await srv.createUser();
      const big = JSON.stringify({ what: 'user', which: ['locale'], data: { id: u.id, locale: 'x'.repeat(10 * 1024 * 1024) } });
      const res = await put(srv, admin, u.id, big);
      expect(res.status).toBe(413);
      expect((await srv.fetch('/health')).status).toBe(200);
    });
  });

  describe('DELETE /api/users/{id}', () => {
    it('needs a body with the caller current password (S35)', async () => {
      const u = await srv.createUser();
      let res = await del(srv, admin, u.id);
      expect(res.status).toBe(400);
      res = await srv.fetch(`/api/users/${u.id}`, { method: 'DELETE', token: admin, body: '{"current_password":' });
      expect(res.status).toBe(400);
      res = await del(srv, admin, u.id, { current_password: 42 });
      expect(res.status).toBe(400);
      for (const body of [{}, { current_password: '' }, { current_password: 'wrong-password-1234' }, { current_password: u.password }]) {
        res = await del(srv, admin, u.id, body);
        expect(res.status).toBe(400);
        expect(await text(res)).toBe('400 Bad Request (the current password is incorrect)\n');
      }
      expect(await srv.deps.users.byId(u.id)).toBeDefined();
    });

    it('deletes a user: 200 "200 OK\\n", and every session of it answers 401 (S22)', async () => {
      const u = await srv.createUser();
      const t1 = await srv.login(u.username, u.password);
      const t2 = await srv.login(u.username, u.password);
      const res = await del(srv, admin, u.id, { current_password: ADMIN.password });
      expect(res.status).toBe(200);
      expect(await text(res)).toBe('200 OK\n');
      expect(await srv.deps.users.byId(u.id)).toBeUndefined();
      for (const t of [t1, t2]) {
        expect((await srv.fetch(`/api/users/${u.id}`, { token: t })).status).toBe(401);
        expect((await srv.fetch('/api/renew', { method: 'POST', token: t })).status).toBe(401);
      }
      expect((await srv.fetch(`/api/users/${u.id}`, { token: admin })).status).toBe(404);
      expect((await del(srv, admin, u.id, { current_password: ADMIN.password })).status).toBe(404);
    });

    it('lets a user delete itself with its own password, never another user', async () => {
      const a = await srv.createUser();
      const b = await srv.createUser();
      const token = await srv.login(a.username, a.password);
      expect((await del(srv, token, b.id, { current_password: a.password })).status).toBe(403);
      expect((await del(srv, '', a.id, { current_password: a.password })).status).toBe(401);
      expect(await srv.deps.users.byId(b.id)).toBeDefined();
      expect((await del(srv, token, a.id, { current_password: a.password })).status).toBe(200);
      expect((await srv.fetch(`/api/users/${a.id}`, { token })).status).toBe(401);
    });

    it('answers 413 for a 10 MB body', async () => {
      const u = await srv.createUser();
      const res = await del(srv, admin, u.id, JSON.stringify({ current_password: 'x'.repeat(10 * 1024 * 1024) }));
      expect(res.status).toBe(413);
      expect(await srv.deps.users.byId(u.id)).toBeDefined();
    });
  });
});

describe('the last admin', () => {
  const srv = useServer();

  it('cannot be deleted nor lose perm.admin (S37); a second admin makes both possible', async () => {
    const admin = await srv.login();
    let res = await del(srv, admin, 1, { current_password: ADMIN.password });
    expect(res.status).toBe(403);
    res = await put(srv, admin, 1, { what: 'user', which: ['perm'], current_password: ADMIN.password, data: { id: 1, perm: { ...PERM_ALL, admin: false } } });
    expect(res.status).toBe(403);
    const me = await fullUser(srv, admin, 1);
    res = await put(srv, admin, 1, { what: 'user', which: ['all'], current_password: ADMIN.password, data: { ...me, perm: { ...me.perm, admin: false } } });
    expect(res.status).toBe(403);
    expect((await srv.deps.users.byId(1))!.perm.admin).toBe(true);

    const second = await srv.createUser({ perm: { ...PERM_ALL, admin: true } });
    const t2 = await srv.login(second.username, second.password);
    res = await put(srv, admin, 1, { what: 'user', which: ['perm'], current_password: ADMIN.password, data: { id: 1, perm: { ...PERM_ALL, admin: false } } });
    expect(res.status).toBe(200);
    // Now the second one is the last admin.
    res = await del(srv, t2, second.id, { current_password: second.password });
    expect(res.status).toBe(403);
    res = await put(srv, t2, 1, { what: 'user', which: ['perm'], current_password: second.password, data: { id: 1, perm: { ...PERM_ALL, admin: true } } });
    expect(res.status).toBe(200);
    res = await del(srv, t2, second.id, { current_password: second.password });
    expect(res.status).toBe(200);
    expect(await srv.deps.users.countAdmins()).toBe(1);
  });
});

describe('users API with a non-json auth method', () => {
  const srv = useServer();

  it('does not ask for the current password when authMethod is proxy', async () => {
    const auther = await srv.deps.settings.auther();
    await srv.deps.settings.saveAuther({ ...auther, method: 'proxy', header: 'X-Remote-User' });
    // A session the proxy signed in (a password session from before the switch is still asked, confirm.ts).
    const admin = await srv.deps.tokens.issue((await srv.deps.users.byUsername('admin'))!, { signedInWith: 'proxy' });
    try {
      const u = await srv.createUser();
      const res = await put(srv, admin, u.id, { what: 'user', which: ['password'], data: { id: u.id, password: 'proxy-set-password' } });
      expect(res.status).toBe(200);
      const created = await post(srv, admin, { what: 'user', which: [], data: newUserData({ username: 'via-proxy' }) });
      expect(created.status).toBe(201);
      expect((await del(srv, admin, u.id, {})).status).toBe(200);
    } finally {
      await srv.deps.settings.saveAuther(auther);
    }
  });
});

describe('wrong current passwords go through the login throttle (S30)', () => {
  // X-Forwarded-For from 127.0.0.1 sets the client address, so each test guesses from its own.
  const srv = useServer({ trustedProxies: ['127.0.0.1'] });
  const from = (address: string, token: string, method: string, p: string, json: unknown) =>
    srv.fetch(p, { method, token, json, headers: { 'X-Forwarded-For': address } });
  const newPassword = (u: { id: number }, current_password?: unknown) => ({ what: 'user', which: ['password'], current_password, data: { id: u.id, password: 'a-new-password-for-u' } });

  it('a stolen session guessing on PUT /api/users/{id} gets 429 from its address, even with the right password; the real user elsewhere is not locked out', async () => {
    const u = await srv.createUser();
    const token = await srv.login(u.username, u.password);
    for (let i = 0; i < 10; i++) {
      const res = await from('192.0.2.10', token, 'PUT', `/api/users/${u.id}`, newPassword(u, `wrong-guess-${i}-abcdef`));
      expect(res.status, `guess ${i}`).toBe(400);
    }
    let res = await from('192.0.2.10', token, 'PUT', `/api/users/${u.id}`, newPassword(u, u.password));
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await srv.deps.users.byId(u.id))!.passwordHash).toBe(u.passwordHash);
    // The same count as the sign-in form: that address cannot log in either.
    const login = await srv.fetch('/api/login', { method: 'POST', json: { username: u.username, password: u.password }, headers: { 'X-Forwarded-For': '192.0.2.10' } });
    expect(login.status).toBe(429);
    // A missing password is no guess (400, not counted): another address is still clean after many.
    for (let i = 0; i < 12; i++) expect((await from('192.0.2.11', token, 'PUT', `/api/users/${u.id}`, newPassword(u))).status).toBe(400);
    res = await from('192.0.2.11', token, 'PUT', `/api/users/${u.id}`, newPassword(u, u.password));
    expect(res.status).toBe(200);
  });

  it('counts per user across addresses: after LOGIN_USERNAME_LIMIT wrong guesses spread over addresses, those addresses get 429', async () => {
    const u = await srv.createUser();
    const token = await srv.login(u.username, u.password);
    for (let i = 0; i < 30; i++) {
      const res = await from(`198.51.100.${i + 1}`, token, 'PUT', `/api/users/${u.id}`, newPassword(u, `wrong-guess-${i}-abcdef`));
      expect(res.status, `guess ${i}`).toBe(400);
    }
    const res = await from('198.51.100.1', token, 'PUT', `/api/users/${u.id}`, newPassword(u, u.password));
    expect(res.status).toBe(429);
    // An address that never failed on this user still gets through.
    expect((await from('198.51.100.200', token, 'PUT', `/api/users/${u.id}`, newPassword(u, u.password))).status).toBe(200);
  });

  it('POST and DELETE /api/users count too, with wrong types answering 400 without a count', async () => {
    const admin = await srv.createUser({ perm: { ...PERM_ALL, admin: true } });
    const token = await srv.login(admin.username, admin.password);
    const victim = await srv.createUser();
    for (let i = 0; i < 5; i++) {
      expect((await from('203.0.113.5', token, 'POST', '/api/users', { what: 'user', which: [], current_password: `wrong-${i}-abcdefgh`, data: newUserData() })).status).toBe(400);
      expect((await from('203.0.113.5', token, 'DELETE', `/api/users/${victim.id}`, { current_password: `wrong-${i}-abcdefgh` })).status).toBe(400);
    }
    expect((await from('203.0.113.5', token, 'DELETE', `/api/users/${victim.id}`, { current_password: admin.password })).status).toBe(429);
    expect(await srv.deps.users.byId(victim.id)).toBeTruthy();
    // Hostile shapes are refused by the schema (400) and never reach the throttle.
    for (const current_password of [123, ['x'], { a: 1 }, null]) {
      expect((await from('203.0.113.6', token, 'DELETE', `/api/users/${victim.id}`, { current_password })).status).toBe(400);
    }
    expect((await from('203.0.113.6', token, 'DELETE', `/api/users/${victim.id}`, { current_password: admin.password })).status).toBe(200);
  });
});
