/**
 * Issue 21's review of sign-in under the oidc auth method (docs/oidc.md, docs/api.md §2.11, §2.13):
 * what confirms a change to the sign-in, admin's "end all sessions", users matched by `sub`, the
 * throttle on the OIDC routes. Against a real OpenID provider on 127.0.0.1.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NO_LOCAL_PASSWORD } from '../src/auth/passwords.js';
import { RECENT_SIGN_IN_SECONDS } from '../src/features/signin/methods/confirm.js';
import { ADMIN, startServer, type TestServer } from './harness.js';
import { walk, type TestProvider } from './oidc-support.js';
import { oidcTestbed } from './oidc-testbed.js';

describe('sign-in under the oidc auth method (issue 21 review)', () => {
  const bed = oidcTestbed({ scopes: 'openid profile email groups', name: 'Test ID' });
  const configure = bed.configure;
  let srv: TestServer;
  let op: TestProvider;

  /** A session token from a whole OIDC round trip as the provider's account `sub`. */
  async function oidcToken(sub: string): Promise<string> {
    const w = await walk(`${srv.url}/api/oidc/login`, { login: sub, stopAt: `${srv.url}/login` });
    expect(w.location).toContain('oidc=done');
    const res = await w.get(`${srv.url}/api/oidc/session`, { method: 'POST' });
    expect(res.status).toBe(200);
    return res.text();
  }

  /** Makes every session of the user look `ageS` seconds old (its sign-in time). */
  async function ageSessions(userId: number, ageS: number) {
    const at = Math.floor(Date.now() / 1000) - ageS;
    await srv.deps.db.kysely.updateTable('sessions').set({ created_at: at }).where('user_id', '=', userId).execute();
  }

  const newAppPassword = (token: string, extra: Record<string, unknown> = {}) =>
    srv.fetch('/api/app-passwords', { method: 'POST', token, json: { name: 'dav', readOnly: false, expiresInDays: 0, ...extra } });

  beforeAll(() => {
    ({ srv, op } = bed);
  });
  beforeEach(async () => {
    op.tamper = 'none';
    await configure();
  });

  describe('confirming a change to the sign-in', () => {
    it('asks a local account for its password under oidc with the password form: app passwords, second factor, passkeys, password', async () => {
      const bob = await srv.createUser({ username: 'conf-bob' });
      const token = await srv.login(bob.username, bob.password);
      const conf = await srv.fetch('/api/sessions/confirmation', { token });
      expect(conf.status).toBe(200);
      expect(await conf.json()).toEqual({ confirm: 'password', signedInWith: 'password', until: 0 });

      for (const given of [undefined, '', 'wrong-password-here', 42, null]) {
        const res = await newAppPassword(token, given === undefined ? {} : { current_password: given });
        expect(res.status, String(given)).toBe(400);
      }
      expect((await newAppPassword(token, { current_password: bob.password })).status).toBe(201);

      // TOTP on (confirm), recovery codes, TOTP off, passkey removal: each refuses without the password.
      expect((await srv.fetch('/api/second-factor/totp', { method: 'POST', token })).status).toBe(200);
      expect((await srv.fetch('/api/second-factor/totp/confirm', { method: 'POST', token, json: { code: '000000' } })).status).toBe(400);
      expect((await srv.fetch('/api/second-factor/recovery-codes', { method: 'POST', token, json: {} })).status).toBe(400);
      expect((await srv.fetch('/api/second-factor', { method: 'DELETE', token, json: {} })).status).toBe(400);
      expect((await srv.fetch('/api/passkeys', { method: 'POST', token, json: { name: 'k', response: { id: 'x', response: {} } } })).status).toBe(400);
      expect((await srv.fetch('/api/passkeys/1', { method: 'DELETE', token, json: {} })).status).toBe(400);
      // The own password: the current one is asked (lockPassword is off for this user).
      const put = (json: Record<string, unknown>) =>
        srv.fetch(`/api/users/${bob.id}`, { method: 'PUT', token, json: { what: 'user', which: ['password'], data: { id: bob.id, password: 'a-brand-new-password-1' }, ...json } });
      expect((await put({})).status).toBe(400);
      expect((await put({ current_password: 'nope-nope-nope' })).status).toBe(400);
      expect((await put({ current_password: bob.password })).status).toBe(200);
    });

    it('asks it of a local account signed in with a passkey too, and of the admin creating a user', async () => {
      const carl = await srv.createUser({ username: 'conf-carl' });
      const jwt = await srv.deps.tokens.issue(carl, { signedInWith: 'passkey' });
      expect(await (await srv.fetch('/api/sessions/confirmation', { token: jwt })).json()).toMatchObject({ confirm: 'password', signedInWith: 'passkey' });
      expect((await newAppPassword(jwt)).status).toBe(400);
      expect((await newAppPassword(jwt, { current_password: carl.password })).status).toBe(201);

      const admin = await srv.login();
      const create = (json: Record<string, unknown>) =>
        srv.fetch('/api/users', { method: 'POST', token: admin, json: { what: 'user', which: [], data: { username: `made-${Math.random().toString(36).slice(2, 8)}`, password: 'a-long-enough-password-9' }, ...json } });
      expect((await create({})).status).toBe(400);
      expect((await create({ current_password: ADMIN.password })).status).toBe(201);
    });

    it('lets a user without a local password confirm by a recent sign-in only, and says so', async () => {
      op.accounts.set('olga-sub', { preferred_username: 'olga' });
      const token = await oidcToken('olga-sub');
      const olga = (await srv.deps.users.byUsername('olga'))!;
      expect(olga.passwordHash).toBe(NO_LOCAL_PASSWORD);
      const conf = (await (await srv.fetch('/api/sessions/confirmation', { token })).json()) as { confirm: string; signedInWith: string; until: number };
      expect(conf.confirm).toBe('recent-sign-in');
      expect(conf.signedInWith).toBe('oidc');
      expect(conf.until).toBeGreaterThan(Date.now() / 1000 + RECENT_SIGN_IN_SECONDS - 60);
      // Any password typed is neither needed nor a way around the rule.
      expect((await newAppPassword(token)).status).toBe(201);

      await ageSessions(olga.id, RECENT_SIGN_IN_SECONDS + 5);
      const old = await newAppPassword(token, { current_password: 'anything-at-all' });
      expect(old.status).toBe(403);
      expect(await old.text()).toMatch(/sign in again/);
      expect((await srv.fetch('/api/second-factor/totp/confirm', { method: 'POST', token, json: { code: '000000' } })).status).toBe(403);
      // A renewal keeps the sign-in's time and way: it is no new sign-in.
      const renewed = await srv.fetch('/api/renew', { method: 'POST', token });
      expect(renewed.status).toBe(200);
      const token2 = await renewed.text();
      expect(await (await srv.fetch('/api/sessions/confirmation', { token: token2 })).json()).toMatchObject({ confirm: 'recent-sign-in', signedInWith: 'oidc' });
      expect((await newAppPassword(token2)).status).toBe(403);
      // Signing in again at the provider confirms again.
      expect((await newAppPassword(await oidcToken('olga-sub'))).status).toBe(201);
    });

    it('never takes an app password for a recent sign-in: an admin without a local password changes no user with one', async () => {
      const ada = await srv.createUser({ username: 'conf-ada', passwordHash: NO_LOCAL_PASSWORD, perm: { admin: true } });
      const session = await srv.deps.tokens.issue(ada, { signedInWith: 'oidc' });
      const made = await newAppPassword(session);
      expect(made.status).toBe(201);
      const { secret: appPassword } = (await made.json()) as { secret: string };
      const victim = await srv.createUser({ username: 'conf-victim' });
      // The app password was made a moment ago, but it is no sign-in: its age confirms nothing.
      const viaApp = await srv.fetch(`/api/users/${victim.id}`, {
        method: 'PUT',
        token: appPassword,
        json: { what: 'user', which: ['password'], data: { id: victim.id, password: 'taken-over-password-1' } },
      });
      expect(viaApp.status).toBe(403);
      expect(await viaApp.text()).toMatch(/sign in again/);
      const create = await srv.fetch('/api/users', {
        method: 'POST',
        token: appPassword,
        json: { what: 'user', which: [], data: { username: 'conf-made-by-app', password: 'a-long-enough-password-9' } },
      });
      expect(create.status).toBe(403);
      expect(await srv.deps.users.byUsername('conf-made-by-app')).toBeUndefined();
      // The session itself (a recent sign-in) still may.
      const viaSession = await srv.fetch(`/api/users/${victim.id}`, {
        method: 'PUT',
        token: session,
        json: { what: 'user', which: ['password'], data: { id: victim.id, password: 'changed-by-admin-1' } },
      });
      expect(viaSession.status).toBe(200);
    });

    it('asks a user without a local password for nothing behind the proxy, and the password once an admin sets one', async () => {
      const pia = await srv.createUser({ username: 'conf-pia', passwordHash: NO_LOCAL_PASSWORD });
      const viaProxy = await srv.deps.tokens.issue(pia, { signedInWith: 'proxy' });
      expect(await (await srv.fetch('/api/sessions/confirmation', { token: viaProxy })).json()).toMatchObject({ confirm: 'none' });
      expect((await newAppPassword(viaProxy)).status).toBe(201);
      // A password session of a user who has one: the password, whatever the way (a stolen old session cannot skip it).
      const withPassword = await srv.createUser({ username: 'conf-quinn' });
      const old = await srv.deps.tokens.issue(withPassword, {});
      expect(await (await srv.fetch('/api/sessions/confirmation', { token: old })).json()).toMatchObject({ confirm: 'password', signedInWith: '' });
      expect((await newAppPassword(old)).status).toBe(400);
    });

  });
});

describe('a user without a local password on the sign-in form', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer();
  });
  afterAll(async () => {
    await srv?.close();
  });

  it('never signs in with the no-local-password mark or anything near it', async () => {
    await srv.createUser({ username: 'conf-rita', passwordHash: NO_LOCAL_PASSWORD });
    for (const password of [NO_LOCAL_PASSWORD, '', '!']) {
      const res = await srv.fetch('/api/login', { method: 'POST', json: { username: 'conf-rita', password } });
      expect(res.status, password).toBe(403);
    }
  });
});

describe('the throttle on /api/oidc/login and /api/oidc/callback', () => {
  const bed = oidcTestbed();
  let srv: TestServer;

  beforeAll(async () => {
    ({ srv } = bed);
    await bed.configure();
  });

  it('counts refused callbacks as failed logins of the address: 429 after ten, on the password form too', async () => {
    const hostile = [
      '/api/oidc/callback?code=x&state=y',
      '/api/oidc/callback',
      '/api/oidc/callback?error=access_denied',
      `/api/oidc/callback?code=${'A'.repeat(4000)}&state=s`,
      '/api/oidc/callback?code=x&state=y&iss=https%3A%2F%2Fevil.example',
    ];
    for (let i = 0; i < 10; i++) {
      const res = await srv.fetch(hostile[i % hostile.length]!, { headers: { cookie: 'coffer_oidc=not-a-sealed-flow' } });
      expect(res.status, String(i)).toBe(302);
      expect(res.headers.get('location')).toBe('/login?oidc_error=failed');
    }
    const over = await srv.fetch('/api/oidc/callback?code=x&state=y');
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    // The same address guessing passwords is stopped too (S30: failures per address).
    expect((await srv.fetch('/api/login', { method: 'POST', json: { username: ADMIN.username, password: ADMIN.password } })).status).toBe(429);
  });

  it('limits how often one address starts sign-ins', async () => {
    let last = 0;
    for (let i = 0; i < 130 && last !== 429; i++) last = (await srv.fetch('/api/oidc/login')).status;
    expect(last).toBe(429);
  });
});

describe("an admin's End all sessions", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer();
  });
  afterAll(async () => {
    await srv?.close();
  });

  it("ends the user's sessions and revokes its app passwords, at once", async () => {
    const dora = await srv.createUser({ username: 'end-dora' });
    const token = await srv.login(dora.username, dora.password);
    const made = await srv.fetch('/api/app-passwords', { method: 'POST', token, json: { name: 'dav', readOnly: false, expiresInDays: 0, current_password: dora.password } });
    expect(made.status).toBe(201);
    const secret = ((await made.json()) as { secret: string }).secret;
    const bearer = () => srv.fetch('/api/resources/', { headers: { Authorization: `Bearer ${secret}` } });
    expect((await bearer()).status).toBe(200);
    const admin = await srv.login();
    // Not an admin: 403, nothing ends.
    expect((await srv.fetch(`/api/users/${dora.id}/sessions`, { method: 'DELETE', token })).status).toBe(403);
    expect((await bearer()).status).toBe(200);
    expect((await srv.fetch(`/api/users/${dora.id}/sessions`, { method: 'DELETE', token: admin })).status).toBe(204);
    expect((await srv.fetch('/api/sessions', { token })).status).toBe(401);
    expect((await bearer()).status).toBe(401);
    expect(await srv.deps.appPasswords.list(dora.id)).toEqual([]);
    // Another user's app passwords stay.
    expect((await srv.fetch('/api/sessions', { token: admin })).status).toBe(200);
  });
});

describe('OIDC users matched by the provider sub', () => {
  const bed = oidcTestbed();
  const configure = bed.configure;
  let srv: TestServer;
  let op: TestProvider;
  async function signIn(sub: string): Promise<{ location: string; token: string | null }> {
    const w = await walk(`${srv.url}/api/oidc/login`, { login: sub, stopAt: `${srv.url}/login` });
    if (!w.location.includes('oidc=done')) return { location: w.location, token: null };
    const res = await w.get(`${srv.url}/api/oidc/session`, { method: 'POST' });
    return { location: w.location, token: await res.text() };
  }
  const whoAmI = async (token: string) => ((await srv.deps.tokens.verifyWithUser(token))?.user.username ?? null);

  beforeAll(() => {
    ({ srv, op } = bed);
  });

  it('keeps the account of a user renamed at the provider, and gives the old name to no one', async () => {
    await configure();
    op.accounts.set('sub-ann', { preferred_username: 'ann' });
    const first = await signIn('sub-ann');
    const ann = (await srv.deps.users.byUsername('ann'))!;
    expect(await whoAmI(first.token!)).toBe('ann');
    op.accounts.set('sub-ann', { preferred_username: 'ann-renamed' });
    const again = await signIn('sub-ann');
    expect((await srv.deps.tokens.verifyWithUser(again.token!))!.user.id).toBe(ann.id);
    expect(await srv.deps.users.byUsername('ann-renamed')).toBeUndefined();
    // Another provider user now called "ann" does not get ann's account.
    op.accounts.set('sub-impostor', { preferred_username: 'ann' });
    expect((await signIn('sub-impostor')).location).toBe('/login?oidc_error=refused');
  });

  it("never lets a provider user take a local account of the same name unless linking is on, and then only once", async () => {
    await configure();
    const local = await srv.createUser({ username: 'local-ben' });
    op.accounts.set('sub-ben', { preferred_username: 'local-ben' });
    expect((await signIn('sub-ben')).location).toBe('/login?oidc_error=refused');
    await configure({ linkExisting: true });
    const linked = await signIn('sub-ben');
    expect((await srv.deps.tokens.verifyWithUser(linked.token!))!.user.id).toBe(local.id);
    // The account belongs to sub-ben now: another provider user with that name is refused.
    op.accounts.set('sub-other-ben', { preferred_username: 'local-ben' });
    expect((await signIn('sub-other-ben')).location).toBe('/login?oidc_error=refused');
    // A deleted user's link goes with it.
    const admin = await srv.login();
    expect((await srv.fetch(`/api/users/${local.id}`, { method: 'DELETE', token: admin, json: { current_password: ADMIN.password } })).status).toBe(200);
    const rows = await srv.deps.db.kysely.selectFrom('oidc_identities').selectAll().where('user_id', '=', local.id).execute();
    expect(rows).toEqual([]);
  });
});
