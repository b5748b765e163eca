/** Sessions you can see and app passwords (docs/api.md §2.10, §2.11). */
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import type { AppPasswordCreated, AppPasswordInfo, SessionInfo } from '@coffer/protocol';
import { ADMIN, useServer, type TestServer } from './harness.js';

const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

async function loginAs(
  srv: TestServer,
  user: { username: string; password: string },
  userAgent: string,
): Promise<string> {
  const res = await srv.fetch('/api/login', {
    method: 'POST',
    headers: { 'User-Agent': userAgent },
    json: { username: user.username, password: user.password },
  });
  expect(res.status).toBe(200);
  return res.text();
}

async function sessions(srv: TestServer, token: string): Promise<SessionInfo[]> {
  const res = await srv.fetch('/api/sessions', { token });
  expect(res.status).toBe(200);
  return (await res.json()) as SessionInfo[];
}

async function createAppPassword(
  srv: TestServer,
  token: string,
  password: string,
  body: { name: string; readOnly: boolean; expiresInDays: number },
): Promise<AppPasswordCreated> {
  const res = await srv.fetch('/api/app-passwords', { method: 'POST', token, json: { ...body, current_password: password } });
  expect(res.status).toBe(201);
  return (await res.json()) as AppPasswordCreated;
}

const status = async (srv: TestServer, path: string, init: Parameters<TestServer['fetch']>[1] = {}) =>
  (await srv.fetch(path, init)).status;

describe('sessions', () => {
  const srv = useServer();

  it('lists my sessions with browser, system, device and address, marks this one, and keeps a renewal on one line', async () => {
    const u = await srv.createUser();
    const desktop = await loginAs(srv, u, FIREFOX);
    const phone = await loginAs(srv, u, IPHONE);
    const renewed = await (
      await srv.fetch('/api/renew', { method: 'POST', token: phone, headers: { 'User-Agent': IPHONE } })
    ).text();
    expect(decodeJwt(renewed).jti).not.toBe(decodeJwt(phone).jti);
    const list = await sessions(srv, renewed);
    expect(list).toHaveLength(2);
    const mine = list.find((s) => s.current)!;
    const other = list.find((s) => !s.current)!;
    expect(mine).toMatchObject({
      browser: 'Safari 17',
      os: 'iOS 17.5',
      device: 'mobile',
      address: '127.0.0.1',
    });
    expect(other).toMatchObject({
      browser: 'Firefox 128',
      os: 'Windows 10',
      device: 'desktop',
      current: false,
    });
    expect(mine.createdAt).toBeLessThanOrEqual(mine.lastUsed);
    // The id is no token: it opens nothing.
    for (const s of list) {
      expect(JSON.stringify(s)).not.toContain(decodeJwt(desktop).jti!);
      expect(await status(srv, '/api/sessions', { headers: { 'X-Auth': s.id } })).toBe(401);
    }
    // Another user's sessions are not listed.
    const stranger = await srv.createUser();
    await loginAs(srv, stranger, FIREFOX);
    expect(await sessions(srv, desktop)).toHaveLength(2);
  });

  it('ends one session (every token of it, renewed ones too) and answers 404 for another user’s', async () => {
    const u = await srv.createUser();
    const a = await loginAs(srv, u, FIREFOX);
    const b = await loginAs(srv, u, IPHONE);
    const b2 = await (await srv.fetch('/api/renew', { method: 'POST', token: b })).text();
    const target = (await sessions(srv, a)).find((s) => !s.current)!;
    const stranger = await srv.createUser();
    const s = await loginAs(srv, stranger, FIREFOX);
    expect(
      await status(srv, `/api/sessions/${encodeURIComponent(target.id)}`, { method: 'DELETE', token: s }),
    ).toBe(404);
    expect(await status(srv, '/api/sessions', { token: b2 })).toBe(200);
    expect(
      await status(srv, `/api/sessions/${encodeURIComponent(target.id)}`, { method: 'DELETE', token: a }),
    ).toBe(204);
    expect(await status(srv, '/api/sessions', { token: b })).toBe(401);
    expect(await status(srv, '/api/sessions', { token: b2 })).toBe(401);
    expect(await status(srv, '/api/sessions', { token: a })).toBe(200);
    expect(
      await status(srv, `/api/sessions/${encodeURIComponent(target.id)}`, { method: 'DELETE', token: a }),
    ).toBe(404);
  });

  it('ends all other sessions and keeps this one', async () => {
    const u = await srv.createUser();
    const keep = await loginAs(srv, u, FIREFOX);
    const others = [await loginAs(srv, u, IPHONE), await loginAs(srv, u, FIREFOX)];
    expect(await status(srv, '/api/sessions', { method: 'DELETE', token: keep })).toBe(204);
    for (const t of others) expect(await status(srv, '/api/renew', { method: 'POST', token: t })).toBe(401);
    expect((await sessions(srv, keep)).map((s) => s.current)).toEqual([true]);
  });

  it('logout ends the renewed tokens of the same sign-in too', async () => {
    const u = await srv.createUser();
    const first = await loginAs(srv, u, FIREFOX);
    const second = await (await srv.fetch('/api/renew', { method: 'POST', token: first })).text();
    expect(await status(srv, '/api/logout', { method: 'POST', token: second })).toBe(204);
    expect(await status(srv, '/api/sessions', { token: first })).toBe(401);
  });

  it('lets an admin end all of a user’s sessions; a non-admin gets 403', async () => {
    const u = await srv.createUser();
    const t = await loginAs(srv, u, FIREFOX);
    const admin = await srv.login();
    expect(await status(srv, `/api/users/${u.id}/sessions`, { method: 'DELETE', token: t })).toBe(403);
    expect(await status(srv, '/api/users/999999/sessions', { method: 'DELETE', token: admin })).toBe(404);
    expect(await status(srv, `/api/users/${u.id}/sessions`, { method: 'DELETE', token: admin })).toBe(204);
    expect(await status(srv, '/api/sessions', { token: t })).toBe(401);
    expect(await status(srv, '/api/sessions', { token: admin })).toBe(200);
  });

  it('answers 401 without a session', async () => {
    expect(await status(srv, '/api/sessions')).toBe(401);
    expect(await status(srv, '/api/sessions', { method: 'DELETE' })).toBe(401);
    expect(await status(srv, '/api/app-passwords')).toBe(401);
  });
});

describe('app passwords', () => {
  const srv = useServer();

  it('are shown once, listed without the secret, and work as X-Auth and as a bearer token', async () => {
    const u = await srv.createUser();
    const token = await srv.login(u.username, u.password);
    const created = await createAppPassword(srv, token, u.password, {
      name: 'laptop backup',
      readOnly: false,
      expiresInDays: 0,
    });
    expect(created.secret).toMatch(/^cfap_[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({ name: 'laptop backup', readOnly: false, expiresAt: 0, lastUsed: 0 });
    const listed = (await (await srv.fetch('/api/app-passwords', { token })).json()) as AppPasswordInfo[];
    expect(listed).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(created.secret);
    expect(listed[0]).not.toHaveProperty('secret');
    // Stored as a digest only.
    const rows = await srv.deps.db.kysely.selectFrom('app_passwords').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(created.secret);

    expect(await status(srv, '/api/resources/', { headers: { 'X-Auth': created.secret } })).toBe(200);
    expect(
      await status(srv, '/api/resources/', { headers: { Authorization: `Bearer ${created.secret}` } }),
    ).toBe(200);
    expect(
      await status(srv, '/api/resources/', { method: 'POST', headers: { 'X-Auth': created.secret } }),
    ).not.toBe(401);
    // Never from the cookie or the query string.
    expect(await status(srv, '/api/resources/', { headers: { Cookie: `auth=${created.secret}` } })).toBe(401);
    expect(await status(srv, `/api/resources/?auth=${created.secret}`)).toBe(401);
    const used = (await (await srv.fetch('/api/app-passwords', { token })).json()) as AppPasswordInfo[];
    expect(used[0]!.lastUsed).toBeGreaterThan(0);
    expect(used[0]!.lastAddress).toBe('127.0.0.1');
  });

  it('never sign in on the form', async () => {
    const u = await srv.createUser();
    const token = await srv.login(u.username, u.password);
    const { secret } = await createAppPassword(srv, token, u.password, {
      name: 'dav',
      readOnly: false,
      expiresInDays: 0,
    });
    const res = await srv.fetch('/api/login', {
      method: 'POST',
      json: { username: u.username, password: secret },
    });
    expect(res.status).toBe(403);
  });

  it('cannot manage sessions, app passwords, renew, log out or change their own user', async () => {
    const u = await srv.createUser();
    const token = await srv.login(u.username, u.password);
    const { secret } = await createAppPassword(srv, token, u.password, {
      name: 'script',
      readOnly: false,
      expiresInDays: 0,
    });
    const h = { 'X-Auth': secret };
    expect(await status(srv, '/api/sessions', { headers: h })).toBe(403);
    expect(await status(srv, '/api/sessions', { method: 'DELETE', headers: h })).toBe(403);
    expect(await status(srv, '/api/app-passwords', { headers: h })).toBe(403);
    expect(
      await status(srv, '/api/app-passwords', {
        method: 'POST',
        headers: h,
        json: { name: 'x', readOnly: false, expiresInDays: 0 },
      }),
    ).toBe(403);
    expect(await status(srv, '/api/renew', { method: 'POST', headers: h })).toBe(403);
    expect(await status(srv, '/api/logout', { method: 'POST', headers: h })).toBe(403);
    const change = {
      what: 'user',
      which: ['password'],
      current_password: u.password,
      data: { id: u.id, password: 'a-brand-new-password-1' },
    };
    expect(await status(srv, `/api/users/${u.id}`, { method: 'PUT', headers: h, json: change })).toBe(403);
    expect(
      await status(srv, `/api/users/${u.id}`, {
        method: 'DELETE',
        headers: h,
        json: { current_password: u.password },
      }),
    ).toBe(403);
    expect(await status(srv, `/api/users/${u.id}`, { headers: h })).toBe(200);
  });

  it('stop working at once when revoked, expired, or when the password changes', async () => {
    const u = await srv.createUser();
    const token = await srv.login(u.username, u.password);
    const a = await createAppPassword(srv, token, u.password, { name: 'a', readOnly: false, expiresInDays: 0 });
    const b = await createAppPassword(srv, token, u.password, { name: 'b', readOnly: true, expiresInDays: 1 });
    expect(b.expiresAt).toBeGreaterThan(Math.floor(Date.now() / 1000) + 86000);
    expect(await status(srv, '/api/resources/', { headers: { 'X-Auth': a.secret } })).toBe(200);
    expect(await status(srv, `/api/app-passwords/${a.id}`, { method: 'DELETE', token })).toBe(204);
    expect(await status(srv, '/api/resources/', { headers: { 'X-Auth': a.secret } })).toBe(401);
    expect(await status(srv, `/api/app-passwords/${a.id}`, { method: 'DELETE', token })).toBe(404);
    // Expired: moved into the past in the store.
    expect(await status(srv, '/api/resources/', { headers: { 'X-Auth': b.secret } })).toBe(200);
    await srv.deps.db.kysely
      .updateTable('app_passwords')
      .set({ expires_at: Math.floor(Date.now() / 1000) - 1 })
      .where('id', '=', b.id)
      .execute();
    expect(await status(srv, '/api/resources/', { headers: { 'X-Auth': b.secret } })).toBe(401);
    // A new password ends every app password of the user.
    const c = await createAppPassword(srv, token, u.password, { name: 'c', readOnly: false, expiresInDays: 0 });
    const change = {
      what: 'user',
      which: ['password'],
      current_password: u.password,
      data: { id: u.id, password: 'a-brand-new-password-1' },
    };
    expect(await status(srv, `/api/users/${u.id}`, { method: 'PUT', token, json: change })).toBe(200);
    expect(await status(srv, '/api/resources/', { headers: { 'X-Auth': c.secret } })).toBe(401);
  });

  it('of another user cannot be revoked (404), and a deleted user’s stop working', async () => {
    const u = await srv.createUser();
    const token = await srv.login(u.username, u.password);
    const { id, secret } = await createAppPassword(srv, token, u.password, {
      name: 'x',
      readOnly: false,
      expiresInDays: 0,
    });
    const other = await srv.createUser();
    const otherToken = await srv.login(other.username, other.password);
    expect(await status(srv, `/api/app-passwords/${id}`, { method: 'DELETE', token: otherToken })).toBe(404);
    expect(await status(srv, '/api/app-passwords/abc', { method: 'DELETE', token })).toBe(404);
    const admin = await srv.login();
    expect(
      await status(srv, `/api/users/${u.id}`, {
        method: 'DELETE',
        token: admin,
        json: { current_password: 'admin-password-for-tests' },
      }),
    ).toBe(200);
    expect(await status(srv, '/api/resources/', { headers: { 'X-Auth': secret } })).toBe(401);
  });

  it('take the current password: a stolen session cannot mint one that outlives it', async () => {
    const u = await srv.createUser();
    const token = await srv.login(u.username, u.password);
    const body = { name: 'x', readOnly: false, expiresInDays: 0 };
    for (const current_password of [undefined, 'not-the-password']) {
      const res = await srv.fetch('/api/app-passwords', { method: 'POST', token, json: { ...body, current_password } });
      expect(res.status, String(current_password)).toBe(400);
    }
    expect(((await (await srv.fetch('/api/app-passwords', { token })).json()) as AppPasswordInfo[]).length).toBe(0);
    await createAppPassword(srv, token, u.password, body);
  });

  it('refuse bad input with 400', async () => {
    const token = await srv.login();
    for (const json of [
      {},
      { name: '', readOnly: false, expiresInDays: 0 },
      { name: '   ', readOnly: false, expiresInDays: 0 },
      { name: 'x', readOnly: 'yes', expiresInDays: 0 },
      { name: 'x', readOnly: false, expiresInDays: -1 },
      { name: 'x'.repeat(101), readOnly: false, expiresInDays: 0 },
    ]) {
      const res = await srv.fetch('/api/app-passwords', { method: 'POST', token, json });
      expect(res.status, JSON.stringify(json)).toBe(400);
    }
  });

  it('a read-only app password gets 403 on every write route, whatever the user may do', async () => {
    const admin = await srv.login();
    const { secret } = await createAppPassword(srv, admin, ADMIN.password, { name: 'ro', readOnly: true, expiresInDays: 0 });
    const doc = (await (await srv.fetch('/api/openapi.json')).json()) as {
      paths: Record<string, Record<string, { security?: unknown[] }>>;
    };
    const checked: string[] = [];
    const wrong: string[] = [];
    for (const [p, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        if (['get', 'head', 'options'].includes(method) || !op.security?.length) continue;
        if (method === 'put' && p === '/dav') continue; // the root collection: 405 whoever asks
        const url = p
          .replace('{path}', 'somewhere/file.txt')
          .replace('{id}', '1')
          .replace('{hash}', 'abc')
          .replace(/\{[^}]+\}/g, 'x');
        // Copy and move say what they are in the query (docs/api.md §7.9): both.
        const queries =
          method === 'patch' && p.startsWith('/api/resources')
            ? ['?action=copy&destination=%2Fb.txt', '?action=rename&destination=%2Fb.txt']
            : [''];
        for (const query of queries) {
          const res = await fetch(srv.url + url + query, {
            method: method.toUpperCase(),
            headers: {
              // WebDAV takes app passwords as HTTP Basic's password only.
              ...(p.startsWith('/dav')
                ? { Authorization: `Basic ${Buffer.from(`admin:${secret}`).toString('base64')}` }
                : { 'X-Auth': secret }),
              'content-type': 'application/json',
              'Tus-Resumable': '1.0.0',
              'Upload-Length': '1',
            },
            body: '{}',
          });
          checked.push(`${method} ${p}${query}`);
          if (res.status !== 403) wrong.push(`${method.toUpperCase()} ${p}${query}: ${res.status}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(checked.length).toBeGreaterThan(10);
    // Reading still works.
    expect(await status(srv, '/api/resources/', { headers: { 'X-Auth': secret } })).toBe(200);
  });

  it('check a user name and app password for HTTP Basic (WebDAV), through the login throttle', async () => {
    const u = await srv.createUser();
    const token = await srv.login(u.username, u.password);
    const { secret, id } = await createAppPassword(srv, token, u.password, {
      name: 'dav',
      readOnly: true,
      expiresInDays: 0,
    });
    const basic = srv.deps.appPasswords;
    const ok = await basic.verifyBasic(u.username, secret, '192.0.2.1');
    expect(ok?.user.id).toBe(u.id);
    expect(ok?.appPassword.id).toBe(id);
    expect(ok?.user.perm.create).toBe(false); // read-only narrows the permissions
    expect(ok?.session.appPassword).toEqual({ id, readOnly: true });
    // The account password is no app password; another user's name does not match.
    expect(await basic.verifyBasic(u.username, u.password, '192.0.2.1')).toBeNull();
    expect(await basic.verifyBasic('admin', secret, '192.0.2.1')).toBeNull();
    // Guessing from one address ends in 429; the real user elsewhere still gets in.
    let throttled = false;
    for (let i = 0; i < 50 && !throttled; i++) {
      try {
        await basic.verifyBasic(u.username, `cfap_${'A'.repeat(43)}`, '192.0.2.66');
      } catch (err) {
        expect((err as { status?: number }).status).toBe(429);
        throttled = true;
      }
    }
    expect(throttled).toBe(true);
    expect((await basic.verifyBasic(u.username, secret, '192.0.2.7'))?.user.id).toBe(u.id);
  });
});
