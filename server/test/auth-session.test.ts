/** POST /api/renew and /api/logout, and what makes a token dead: S20–S26, E5. */
import { randomBytes } from 'node:crypto';
import { decodeJwt, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { ADMIN, useServer, type TestServer } from './harness.js';

const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

async function serverKey(srv: TestServer): Promise<Uint8Array> {
  const key = await srv.deps.settings.signingKey();
  if (!key) throw new Error('no key');
  return key;
}

const renew = (srv: TestServer, token?: string, init: RequestInit = {}) => srv.fetch('/api/renew', { method: 'POST', token, ...init });
const logout = (srv: TestServer, token?: string, init: RequestInit = {}) => srv.fetch('/api/logout', { method: 'POST', token, ...init });

describe('POST /api/renew', () => {
  const srv = useServer();

  it('answers 200 text/plain with a new token (new jti, fresh iat/exp), X-Renew-Token: false', async () => {
    const old = await srv.login();
    await new Promise((r) => setTimeout(r, 1100)); // a later second, so iat must move
    const res = await renew(srv, old);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain');
    expect(res.headers.get('x-renew-token')).toBe('false');
    const fresh = await res.text();
    const a = decodeJwt(old);
    const b = decodeJwt(fresh);
    expect(b.jti).not.toBe(a.jti);
    expect(b.iat!).toBeGreaterThan(a.iat!);
    expect(b.exp! - b.iat!).toBe(srv.config.tokenExpirationTime);
    expect(b.exp! - b.iat!).toBe(7200);
    // S23: the presented token stays valid (until its own exp); both work.
    expect((await renew(srv, old)).status).toBe(200);
    expect((await renew(srv, fresh)).status).toBe(200);
  });

  it('builds the new token from the current database record', async () => {
    const u = await srv.createUser({ locale: 'en' });
    const token = await srv.login(u.username, u.password);
    await srv.deps.users.update({ ...(await srv.deps.users.byId(u.id))!, locale: 'de', perm: { ...u.perm, share: false } });
    const fresh = decodeJwt(await (await renew(srv, token)).text()) as { user: { locale: string; perm: { share: boolean } } };
    expect(fresh.user.locale).toBe('de');
    expect(fresh.user.perm.share).toBe(false);
  });

  it('answers 401 without a token, with garbage, a.b.c, alg none, a tampered payload, a foreign key, no exp or an expired token (S20)', async () => {
    const good = await srv.login();
    const [h, p, s] = good.split('.') as [string, string, string];
    const payload = decodeJwt(good) as Record<string, unknown> & { user: Record<string, unknown> };
    const key = await serverKey(srv);
    const now = Math.floor(Date.now() / 1000);
    const variants: Record<string, string | undefined> = {
      none: undefined,
      garbage: 'garbage',
      abc: 'a.b.c',
      emptyParts: '..',
      algNone: `${b64url({ alg: 'none', typ: 'JWT' })}.${p}.`,
      algNoneSigned: `${b64url({ alg: 'none', typ: 'JWT' })}.${p}.${s}`,
      algHS512: await new SignJWT(payload).setProtectedHeader({ alg: 'HS512' }).sign(key),
      tampered: `${h}.${b64url({ ...payload, user: { ...payload.user, username: 'someone-else', id: 2 } })}.${s}`,
      tamperedAdmin: `${h}.${b64url({ ...payload, exp: now + 999999 })}.${s}`,
      foreignKey: await new SignJWT(payload).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(randomBytes(64)),
      noExp: await new SignJWT({ user: payload.user, jti: payload.jti as string, iat: now }).setProtectedHeader({ alg: 'HS256' }).sign(key),
      expired: await new SignJWT({ ...payload, iat: now - 7300, exp: now - 100 }).setProtectedHeader({ alg: 'HS256' }).sign(key),
      unknownJti: await new SignJWT({ ...payload, jti: randomBytes(18).toString('base64url') }).setProtectedHeader({ alg: 'HS256' }).sign(key),
      bearer: `Bearer ${good}`,
    };
    for (const [name, token] of Object.entries(variants)) {
      const headers: Record<string, string> = token === undefined ? {} : { 'X-Auth': token };
      const res = await srv.fetch('/api/renew', { method: 'POST', headers });
      expect(res.status, name).toBe(401);
      expect(await res.text(), name).toBe('401 Unauthorized\n');
    }
    // The genuine token still works: nothing above harmed it.
    expect((await renew(srv, good)).status).toBe(200);
  });

  it('ignores the auth cookie on POST and tokens in the query string (S25, S26)', async () => {
    const token = await srv.login();
    expect((await renew(srv, undefined, { headers: { Cookie: `auth=${token}` } })).status).toBe(401);
    expect((await srv.fetch(`/api/renew?auth=${token}`, { method: 'POST' })).status).toBe(401);
    expect((await srv.fetch(`/api/renew?token=${token}`, { method: 'POST' })).status).toBe(401);
    expect((await logout(srv, undefined, { headers: { Cookie: `auth=${token}` } })).status).toBe(401);
    expect((await srv.fetch(`/api/logout?auth=${token}`, { method: 'POST' })).status).toBe(401);
    // Still alive: the refused requests changed nothing.
    expect((await renew(srv, token)).status).toBe(200);
  });

  it('keeps a re-encoded copy of a revoked token revoked (sessions compared by jti)', async () => {
    const token = await srv.login();
    const key = await serverKey(srv);
    const payload = decodeJwt(token);
    const copy = await new SignJWT(payload).setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: 'x' }).sign(key);
    expect(copy).not.toBe(token);
    expect((await renew(srv, copy)).status).toBe(200);
    expect((await logout(srv, token)).status).toBe(204);
    expect((await renew(srv, copy)).status).toBe(401);
  });
});

describe('POST /api/logout (S24, E5)', () => {
  const srv = useServer();

  it('answers 204, clears the cookie and kills the token everywhere; other sessions live on', async () => {
    const token = await srv.login();
    const other = await srv.login();
    const res = await logout(srv, token);
    expect(res.status).toBe(204);
    expect(res.headers.get('set-cookie')).toBe('auth=; Path=/; Max-Age=0; SameSite=Strict');
    expect(await res.text()).toBe('');
    expect((await renew(srv, token)).status).toBe(401);
    expect((await logout(srv, token)).status).toBe(401);
    expect((await renew(srv, other)).status).toBe(200);
  });

  it('answers 401 without a valid token', async () => {
    expect((await logout(srv)).status).toBe(401);
    expect((await logout(srv, 'a.b.c')).status).toBe(401);
  });

  it('needs no body and refuses a large one', async () => {
    const token = await srv.login();
    const res = await srv.fetch('/api/logout', { method: 'POST', token, json: { pad: 'x'.repeat(70 * 1024) } });
    expect(res.status).toBe(413);
    expect((await logout(srv, token)).status).toBe(204);
  });
});

describe('deleting a user kills its tokens at once (S22)', () => {
  const srv = useServer();

  it('answers 401 on renew and logout after the user is deleted', async () => {
    const u = await srv.createUser();
    const a = await srv.login(u.username, u.password);
    const b = await srv.login(u.username, u.password);
    expect((await renew(srv, a)).status).toBe(200);
    await srv.deps.users.delete(u.id);
    // Even before the sessions are removed, the guard re-reads the user and refuses.
    expect((await renew(srv, a)).status).toBe(401);
    await srv.deps.tokens.revokeUser(u.id);
    expect((await renew(srv, a)).status).toBe(401);
    expect((await logout(srv, b)).status).toBe(401);
    // A new user that happens to get the same name has nothing to do with the old tokens.
    await srv.createUser({ username: u.username, password: u.password });
    expect((await renew(srv, b)).status).toBe(401);
  });
});

describe('X-Renew-Token', () => {
  describe('with a lifetime of 30 minutes', () => {
    const srv = useServer({ tokenExpirationTime: 1800 });
    it('is "true" on authenticated answers and "false" on the renewal itself', async () => {
      const token = await srv.login();
      expect((decodeJwt(token).exp ?? 0) - (decodeJwt(token).iat ?? 0)).toBe(1800);
      const renewed = await renew(srv, token);
      expect(renewed.headers.get('x-renew-token')).toBe('false');
      const res = await logout(srv, token);
      expect(res.status).toBe(204);
      expect(res.headers.get('x-renew-token')).toBe('true');
    });
  });

  describe('with the default lifetime', () => {
    const srv = useServer();
    it('is absent while more than an hour is left and the user is unchanged', async () => {
      const token = await srv.login();
      const res = await logout(srv, token);
      expect(res.status).toBe(204);
      expect(res.headers.get('x-renew-token')).toBeNull();
    });
    it('is "true" once the user record changed after the token was issued', async () => {
      const token = await srv.login(ADMIN.username, ADMIN.password);
      await new Promise((r) => setTimeout(r, 1100));
      const admin = (await srv.deps.users.byUsername(ADMIN.username))!;
      await srv.deps.users.update({ ...admin, locale: 'fr' });
      const res = await logout(srv, token);
      expect(res.headers.get('x-renew-token')).toBe('true');
    });
  });
});
