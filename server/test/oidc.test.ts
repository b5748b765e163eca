/**
 * OIDC sign-in (docs/api.md §2.13) against a real OpenID provider (oidc-provider) on 127.0.0.1,
 * over real HTTP: the browser's whole round trip, and each check that must refuse it.
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PKCE_METHOD } from '../src/features/signin/methods/oidc.js';
import type { TestServer } from './harness.js';
import { walk, type TestProvider } from './oidc-support.js';
import { oidcTestbed } from './oidc-testbed.js';

describe('OIDC sign-in', () => {
  const bed = oidcTestbed({ scopes: 'openid profile email groups', adminClaim: 'groups', adminValue: 'coffer-admins', name: 'Test ID' });
  const configure = bed.configure;
  let srv: TestServer;
  let op: TestProvider;
  let redirectUrl = '';

  /** Signs in at the provider as `login` from /api/oidc/login?redirect=…; the last Location and the walk. */
  async function signIn(login: string, o: { redirect?: string; beforeCallback?: (url: string) => string; headers?: Record<string, string> } = {}) {
    const q = o.redirect === undefined ? '' : `?redirect=${encodeURIComponent(o.redirect)}`;
    return walk(`${srv.url}/api/oidc/login${q}`, { login, stopAt: `${srv.url}/login`, beforeCallback: o.beforeCallback, headers: o.headers });
  }

  /** The token the page fetches after a successful callback. */
  async function sessionOf(w: Awaited<ReturnType<typeof signIn>>): Promise<string> {
    const res = await w.get(`${srv.url}/api/oidc/session`, { method: 'POST' });
    expect(res.status).toBe(200);
    return res.text();
  }

  beforeAll(() => {
    ({ srv, op, redirectUrl } = bed);
  });
  beforeEach(async () => {
    op.tamper = 'none';
    await configure();
  });

  it('404s while the auth method is not oidc', async () => {
    await srv.deps.settings.saveAuther({ ...(await srv.deps.settings.auther()), method: 'json' });
    expect((await srv.fetch('/api/oidc/login')).status).toBe(404);
    expect((await srv.fetch('/api/oidc/callback?code=x&state=y')).status).toBe(404);
  });

  it('creates the user at the first sign-in, with a normal session listed in its sessions', async () => {
    op.accounts.set('alice-sub', { preferred_username: 'alice', groups: ['staff'] });
    const w = await signIn('alice-sub', { redirect: '/files/docs/' });
    expect(w.location).toBe('/login?oidc=done&redirect=%2Ffiles%2Fdocs%2F');
    expect(w.jar.has('coffer_oidc')).toBe(false);
    const token = await sessionOf(w);
    const alice = await srv.deps.users.byUsername('alice');
    expect(alice).toBeTruthy();
    expect(alice!.perm.admin).toBe(false);
    expect(alice!.lockPassword).toBe(true);
    expect(alice!.scope).toBe('/users/alice');
    const sessions = await srv.fetch('/api/sessions', { token });
    expect(sessions.status).toBe(200);
    expect(((await sessions.json()) as { current: boolean }[]).filter((s) => s.current)).toHaveLength(1);
    // The token cookie is taken once.
    expect((await w.get(`${srv.url}/api/oidc/session`, { method: 'POST' })).status).toBe(401);
  });

  it('makes a member of the admin group admin, and takes admin away when the group is gone', async () => {
    op.accounts.set('dana-sub', { preferred_username: 'dana', groups: ['staff', 'coffer-admins'] });
    await sessionOf(await signIn('dana-sub'));
    expect((await srv.deps.users.byUsername('dana'))!.perm).toMatchObject({ admin: true, execute: true, create: true });
    op.accounts.set('dana-sub', { preferred_username: 'dana', groups: ['staff'] });
    await sessionOf(await signIn('dana-sub'));
    // Not admin's permissions less the flag: those of a new user (execute never).
    const defaults = (await srv.deps.settings.settings()).defaults.perm;
    expect((await srv.deps.users.byUsername('dana'))!.perm).toEqual({ ...defaults, admin: false, execute: false });
  });

  it('refuses an unknown user while user creation is off, and signs in a known one', async () => {
    await configure({ createUsers: false, linkExisting: true });
    op.accounts.set('bob-sub', { preferred_username: 'bob' });
    const w = await signIn('bob-sub');
    expect(w.location).toBe('/login?oidc_error=refused');
    expect(w.jar.has('coffer_oidc_session')).toBe(false);
    expect(await srv.deps.users.byUsername('bob')).toBeUndefined();

    const carol = await srv.createUser({ username: 'carol' });
    op.accounts.set('carol-sub', { preferred_username: 'carol' });
    const token = await sessionOf(await signIn('carol-sub'));
    expect((await srv.fetch('/api/resources/', { token })).status).toBe(200);
    expect((await srv.deps.users.byUsername('carol'))!.id).toBe(carol.id);
  });

  it('takes the email claim as the name only when the provider says it verified the address', async () => {
    await configure({ usernameClaim: 'email', createUsers: false, linkExisting: true });
    const boss = await srv.createUser({ username: 'boss@corp.example' });
    for (const [sub, email_verified] of [['mallory-1', undefined], ['mallory-2', false]] as const) {
      op.accounts.set(sub, { preferred_username: sub, email: 'boss@corp.example', ...(email_verified === undefined ? {} : { email_verified }) });
      const w = await signIn(sub);
      expect(w.location, sub).toBe('/login?oidc_error=refused');
      expect(w.jar.has('coffer_oidc_session')).toBe(false);
    }
    op.accounts.set('boss-sub', { preferred_username: 'boss', email: 'boss@corp.example', email_verified: true });
    const token = await sessionOf(await signIn('boss-sub'));
    expect((await srv.fetch('/api/resources/', { token })).status).toBe(200);
    expect((await srv.deps.users.byUsername('boss@corp.example'))!.id).toBe(boss.id);
  });

  it('refuses a wrong state', async () => {
    op.accounts.set('erin-sub', { preferred_username: 'erin' });
    const w = await signIn('erin-sub', {
      beforeCallback: (url) => {
        const u = new URL(url);
        u.searchParams.set('state', 'not-the-state-we-sent');
        return u.href;
      },
    });
    expect(w.location).toBe('/login?oidc_error=failed');
    expect(w.jar.has('coffer_oidc_session')).toBe(false);
    expect(await srv.deps.users.byUsername('erin')).toBeUndefined();
  });

  it('refuses a callback without the flow cookie (another browser)', async () => {
    op.accounts.set('fay-sub', { preferred_username: 'fay' });
    let callback = '';
    await signIn('fay-sub', {
      beforeCallback: (url) => {
        callback = url;
        return `${srv.url}/login`; // stop before the callback; it is replayed below without cookies
      },
    }).catch(() => undefined);
    expect(callback).toContain('/api/oidc/callback?');
    const res = await fetch(callback, { redirect: 'manual' });
    expect(res.headers.get('location')).toBe('/login?oidc_error=failed');
    expect(await srv.deps.users.byUsername('fay')).toBeUndefined();
  });

  it('refuses an ID token whose nonce is not the one sent', async () => {
    op.accounts.set('gus-sub', { preferred_username: 'gus' });
    op.tamper = 'nonce';
    const w = await signIn('gus-sub');
    expect(w.location).toBe('/login?oidc_error=failed');
    expect(await srv.deps.users.byUsername('gus')).toBeUndefined();
  });

  it('refuses an ID token changed on the way (its signature no longer matches)', async () => {
    op.accounts.set('hal-sub', { preferred_username: 'hal' });
    op.tamper = 'id-token';
    const w = await signIn('hal-sub');
    expect(w.location).toBe('/login?oidc_error=failed');
    expect(w.jar.has('coffer_oidc_session')).toBe(false);
  });

  it('never sends the browser to another site: return path, redirect_uri, Host', async () => {
    op.accounts.set('ivy-sub', { preferred_username: 'ivy' });
    for (const target of ['https://evil.example/', '//evil.example/x', '/\\evil.example', '/%0d%0aLocation: https://evil.example', 'javascript:alert(1)', '/.//evil.example/x', '/a/..//evil.example', '/%2e%2e//evil.example']) {
      const w = await signIn('ivy-sub', { redirect: target });
      const loc = new URL(w.location, 'http://coffer.invalid');
      expect(loc.origin).toBe('http://coffer.invalid');
      expect(loc.pathname).toBe('/login');
      const back = loc.searchParams.get('redirect')!;
      expect(back.startsWith('/') && !back.startsWith('//') && !back.includes('\\')).toBe(true);
      expect(new URL(back, 'http://coffer.invalid').origin).toBe('http://coffer.invalid');
    }
    // The redirect_uri is the configured one, whatever Host the request names.
    const res = await fetch(`${srv.url}/api/oidc/login`, { redirect: 'manual', headers: { Host: 'evil.example', 'X-Forwarded-Host': 'evil.example' } });
    expect(res.status).toBe(302);
    const to = new URL(res.headers.get('location')!);
    expect(to.origin).toBe(op.issuer);
    expect(to.searchParams.get('redirect_uri')).toBe(redirectUrl);
    expect(to.searchParams.get('code_challenge_method')).toBe(PKCE_METHOD);
    // A provider that would redirect elsewhere is refused by it: only the registered URI is accepted.
    await configure({ redirectUrl: 'https://evil.example/api/oidc/callback' });
    const w = await signIn('ivy-sub').catch((err: Error) => err);
    expect(w).toBeInstanceOf(Error);
  });

  it('hides the password form when asked, and refuses passwords then', async () => {
    const page = async () => (await (await srv.fetch('/login')).text()).match(/"OIDC":\{[^}]*\}/)?.[0];
    expect(await page()).toBe('"OIDC":{"Name":"Test ID","PasswordLogin":true}');
    expect((await srv.fetch('/api/login', { method: 'POST', json: { username: 'admin', password: 'admin-password-for-tests' } })).status).toBe(200);
    await configure({ passwordLogin: false });
    expect(await page()).toBe('"OIDC":{"Name":"Test ID","PasswordLogin":false}');
    expect((await srv.fetch('/api/login', { method: 'POST', json: { username: 'admin', password: 'admin-password-for-tests' } })).status).toBe(403);
  });
});
