/** Passkeys (WebAuthn, docs/api.md §2.13) over real HTTP, with a software authenticator. */
import type { PasskeyInfo, SecondFactorStatus } from '@coffer/protocol';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN_CODE_LIMIT } from '../src/auth/throttle.js';
import { defaultAuther, defaultOidc } from '../src/features/settings/repository.js';
import { ADMIN, useServer, type TestServer } from './harness.js';
import { SoftAuthenticator, type Ceremony } from './webauthn-authenticator.js';

const SITE: Ceremony = { origin: 'https://coffer.test', rpID: 'coffer.test' };

let seq = 0;
const from = () => ({ 'X-Forwarded-For': `198.51.100.${(++seq % 250) + 1}` });

async function json<T>(res: Response, status = 200): Promise<T> {
  expect(res.status, await res.clone().text()).toBe(status);
  return (await res.json()) as T;
}

/** Registers a passkey of `key` through the API with this session and password: 201. */
async function addPasskey(srv: TestServer, token: string, password: string, key: SoftAuthenticator, name: string) {
  const options = await json<{ challenge: string; user: { id: string } }>(
    await srv.fetch('/api/passkeys/options', { method: 'POST', token }),
  );
  return json<PasskeyInfo>(
    await srv.fetch('/api/passkeys', {
      method: 'POST',
      token,
      json: { name, response: key.register(options, SITE), current_password: password },
    }),
    201,
  );
}

/** A user with one passkey registered through the API, its session and the authenticator. */
async function withPasskey(srv: TestServer, name = 'Laptop') {
  const u = await srv.createUser();
  const token = await srv.login(u.username, u.password);
  const key = new SoftAuthenticator();
  const created = await addPasskey(srv, token, u.password, key, name);
  return { ...u, token, key, passkey: created };
}

async function loginOptions(srv: TestServer) {
  return json<{ challenge: string; allowCredentials?: unknown[]; userVerification: string }>(
    await srv.fetch('/api/passkeys/login-options', { method: 'POST', headers: from() }),
  );
}

const passkeyLogin = (srv: TestServer, response: unknown) =>
  srv.fetch('/api/passkeys/login', { method: 'POST', headers: from(), json: { response } });

describe('passkeys', () => {
  const srv = useServer({ trustedProxies: ['127.0.0.1'], passkeyOrigin: 'https://coffer.test' });

  it('registers with the current password, lists, and signs in without a name once per challenge', async () => {
    const u = await srv.createUser();
    const token = await srv.login(u.username, u.password);
    const key = new SoftAuthenticator();
    const options = await json<{ challenge: string; rp: { id: string }; authenticatorSelection: { residentKey: string } }>(
      await srv.fetch('/api/passkeys/options', { method: 'POST', token }),
    );
    expect(options.rp.id).toBe('coffer.test');
    expect(options.authenticatorSelection.residentKey).toBe('required');
    const response = key.register(options, SITE);
    for (const current_password of [undefined, 'not-the-password']) {
      const res = await srv.fetch('/api/passkeys', { method: 'POST', token, json: { name: 'Laptop', response, current_password } });
      expect(res.status, String(current_password)).toBe(400);
    }
    const created = await json<PasskeyInfo>(
      await srv.fetch('/api/passkeys', { method: 'POST', token, json: { name: ' Laptop ', response, current_password: u.password } }),
      201,
    );
    expect(created).toMatchObject({ name: 'Laptop', lastUsed: 0 });
    // The same answer again: its challenge is used up.
    expect(
      (await srv.fetch('/api/passkeys', { method: 'POST', token, json: { name: 'Again', response, current_password: u.password } })).status,
    ).toBe(403);
    const list = await json<PasskeyInfo[]>(await srv.fetch('/api/passkeys', { token }));
    expect(list.map((p) => p.name)).toEqual(['Laptop']);
    // Stored: the public key and id, never anything secret.
    const row = await srv.deps.db.kysely.selectFrom('passkeys').selectAll().where('user_id', '=', u.id).executeTakeFirstOrThrow();
    expect(row.credential_id).toBe(key.id);
    expect(row.rp_id).toBe('coffer.test');

    const login = await loginOptions(srv);
    expect(login.userVerification).toBe('required');
    expect(login.allowCredentials ?? []).toEqual([]);
    const assertion = key.assert(login, SITE);
    const res = await passkeyLogin(srv, assertion);
    expect(res.status).toBe(200);
    const jwt = await res.text();
    expect((await srv.fetch('/api/sessions', { token: jwt })).status).toBe(200);
    // Replayed: the challenge answered once.
    expect((await passkeyLogin(srv, assertion)).status).toBe(403);
    const [after] = await json<PasskeyInfo[]>(await srv.fetch('/api/passkeys', { token }));
    expect(after!.lastUsed).toBeGreaterThan(0);
  });

  it('refuses a wrong origin, a wrong RP ID, an unknown credential, no user verification and an expired challenge', async () => {
    const u = await withPasskey(srv);
    // Registration answered from another origin.
    const other = new SoftAuthenticator();
    const regOptions = await json<{ challenge: string }>(await srv.fetch('/api/passkeys/options', { method: 'POST', token: u.token }));
    const evil = { origin: 'https://evil.test', rpID: 'coffer.test' };
    expect(
      (
        await srv.fetch('/api/passkeys', {
          method: 'POST',
          token: u.token,
          json: { name: 'Evil', response: other.register(regOptions, evil), current_password: u.password },
        })
      ).status,
    ).toBe(403);
    expect((await passkeyLogin(srv, u.key.assert(await loginOptions(srv), evil))).status).toBe(403);
    expect((await passkeyLogin(srv, u.key.assert(await loginOptions(srv), { origin: SITE.origin, rpID: 'evil.test' }))).status).toBe(403);
    // A credential the server does not know, and then a known one with that (used-up) challenge.
    const unknownOptions = await loginOptions(srv);
    expect((await passkeyLogin(srv, new SoftAuthenticator().assert(unknownOptions, SITE))).status).toBe(403);
    expect((await passkeyLogin(srv, u.key.assert(unknownOptions, SITE))).status).toBe(403);
    // Without a name the authenticator must have verified the user.
    expect((await passkeyLogin(srv, u.key.assert(await loginOptions(srv), SITE, false))).status).toBe(403);
    // A challenge past its three minutes.
    const late = await loginOptions(srv);
    await srv.deps.db.kysely.updateTable('webauthn_challenges').set({ expires_at: 1 }).where('challenge', '=', late.challenge).execute();
    expect((await passkeyLogin(srv, u.key.assert(late, SITE))).status).toBe(403);
    // A user handle that is not the passkey's user: refused, and its challenge is used up.
    const handled = await loginOptions(srv);
    const realHandle = u.key.userHandle;
    u.key.userHandle = Buffer.from('1').toString('base64url');
    expect((await passkeyLogin(srv, u.key.assert(handled, SITE))).status).toBe(403);
    u.key.userHandle = realHandle;
    expect((await passkeyLogin(srv, u.key.assert(handled, SITE))).status).toBe(403);
    // A challenge made up by the client.
    expect((await passkeyLogin(srv, u.key.assert({ challenge: 'bWFkZS11cA' }, SITE))).status).toBe(403);
    // And the real thing still works.
    expect((await passkeyLogin(srv, u.key.assert(await loginOptions(srv), SITE))).status).toBe(200);
  });

  it('refuses a cloned authenticator whose signature counter went back', async () => {
    const u = await withPasskey(srv);
    const twin = u.key.clone();
    expect((await passkeyLogin(srv, u.key.assert(await loginOptions(srv), SITE))).status).toBe(200);
    expect((await passkeyLogin(srv, u.key.assert(await loginOptions(srv), SITE))).status).toBe(200);
    // The twin's counter (1) is behind the stored one (2).
    expect((await passkeyLogin(srv, twin.assert(await loginOptions(srv), SITE))).status).toBe(403);
  });

  it('answers 400 for a malformed answer and never 500', async () => {
    for (const response of [null, 'x', { id: 'a/b', rawId: 'a', type: 'public-key', response: {} }, { id: 'AA', rawId: 'AA', type: 'public-key', response: { clientDataJSON: 'not json' } }]) {
      const res = await passkeyLogin(srv, response);
      expect([400, 403], JSON.stringify(response)).toContain(res.status);
    }
    const u = await srv.createUser();
    const res = await srv.fetch('/api/login', {
      method: 'POST',
      json: { username: u.username, password: u.password, passkey: 'x' },
    });
    expect(res.status).toBe(400);
  });

  it('is a second factor: the password, then a passkey of that user instead of a code', async () => {
    const u = await withPasskey(srv);
    const other = await withPasskey(srv);
    const password = (extra: Record<string, unknown> = {}) =>
      srv.fetch('/api/login', { method: 'POST', headers: from(), json: { username: u.username, password: u.password, ...extra } });
    const first = await password();
    expect(first.status).toBe(401);
    expect(first.headers.get('x-second-factor')).toBe('passkey');
    const status = await json<SecondFactorStatus>(await srv.fetch('/api/second-factor', { token: u.token }));
    expect(status).toEqual({ totp: false, recoveryCodesLeft: 0, passkeys: 1, required: false });
    // The options need the right password.
    const stepOptions = (pw: string) =>
      srv.fetch('/api/login/passkey-options', { method: 'POST', headers: from(), json: { username: u.username, password: pw } });
    expect((await stepOptions('not-the-password')).status).toBe(403);
    const options = await json<{ challenge: string; allowCredentials: { id: string }[] }>(await stepOptions(u.password));
    expect(options.allowCredentials.map((c) => c.id)).toEqual([u.key.id]);
    // Another user's passkey does not answer this user's step.
    expect((await password({ passkey: other.key.assert(options, SITE) })).status).toBe(403);
    const again = await json<{ challenge: string }>(await stepOptions(u.password));
    const assertion = u.key.assert(again, SITE, false); // no user verification needed after a password
    const ok = await password({ passkey: assertion });
    expect(ok.status).toBe(200);
    expect((await password({ passkey: assertion })).status).toBe(403);
    // A challenge of the sign-in without a name does not answer the second step.
    expect((await password({ passkey: u.key.assert(await loginOptions(srv), SITE) })).status).toBe(403);
    // WebDAV with the account password alone is refused now.
    const dav = await fetch(`${srv.url}/dav/`, {
      method: 'PROPFIND',
      headers: { Depth: '0', Authorization: `Basic ${Buffer.from(`${u.username}:${u.password}`).toString('base64')}` },
    });
    expect(dav.status).toBe(401);
  });

  it('removes with the current password, ending other sessions and app passwords; an admin reset removes them all', async () => {
    const u = await withPasskey(srv);
    const other = await srv.deps.tokens.issue(u);
    const app = (await srv.deps.appPasswords.create(u.id, { name: 'dav', readOnly: false, expiresAt: 0 }))!;
    const remove = (id: number, current_password?: string) =>
      srv.fetch(`/api/passkeys/${id}`, { method: 'DELETE', token: u.token, json: { current_password } });
    expect((await remove(u.passkey.id, 'wrong')).status).toBe(400);
    expect((await remove(99999, u.password)).status).toBe(404);
    const stranger = await withPasskey(srv);
    expect((await remove(stranger.passkey.id, u.password)).status).toBe(404);
    expect((await remove(u.passkey.id, u.password)).status).toBe(204);
    expect(await json<PasskeyInfo[]>(await srv.fetch('/api/passkeys', { token: u.token }))).toEqual([]);
    expect((await srv.fetch('/api/sessions', { token: other })).status).toBe(401);
    expect((await srv.fetch('/api/resources/', { headers: { 'X-Auth': app.secret } })).status).toBe(401);
    expect((await srv.fetch('/api/sessions', { token: u.token })).status).toBe(200);
    expect((await passkeyLogin(srv, u.key.assert(await loginOptions(srv), SITE))).status).toBe(403);

    const admin = await srv.login(ADMIN.username, ADMIN.password);
    expect((await srv.fetch(`/api/users/${stranger.id}/second-factor`, { method: 'DELETE', token: admin })).status).toBe(204);
    expect((await passkeyLogin(srv, stranger.key.assert(await loginOptions(srv), SITE))).status).toBe(403);
    expect(
      (await srv.fetch('/api/login', { method: 'POST', headers: from(), json: { username: stranger.username, password: stranger.password } })).status,
    ).toBe(200);
  });

  it('a first passkey turns two-factor sign-in on: other sessions and app passwords end, as with TOTP', async () => {
    const u = await srv.createUser();
    const other = await srv.login(u.username, u.password);
    const app = (await srv.deps.appPasswords.create(u.id, { name: 'dav', readOnly: false, expiresAt: 0 }))!;
    const token = await srv.login(u.username, u.password);
    const key = new SoftAuthenticator();
    await addPasskey(srv, token, u.password, key, 'Key');
    expect((await srv.fetch('/api/resources/', { token })).status).toBe(200);
    expect((await srv.fetch('/api/resources/', { token: other })).status).toBe(401);
    expect((await srv.fetch('/api/resources/', { headers: { Authorization: `Bearer ${app.secret}` } })).status).toBe(401);
    // A second passkey changes nothing for the sessions that passed the second step.
    const signedIn = await passkeyLogin(srv, key.assert(await loginOptions(srv), SITE));
    expect(signedIn.status).toBe(200);
    const jwt = await signedIn.text();
    await addPasskey(srv, token, u.password, new SoftAuthenticator(), 'Phone');
    expect((await srv.fetch('/api/resources/', { token: jwt })).status).toBe(200);
  });

  it('keeps passkeys to signed-in sessions: not anonymous, not app passwords', async () => {
    const u = await withPasskey(srv);
    expect((await srv.fetch('/api/passkeys')).status).toBe(401);
    expect((await srv.fetch('/api/passkeys/options', { method: 'POST' })).status).toBe(401);
    const { secret } = (await srv.deps.appPasswords.create(u.id, { name: 'x', readOnly: false, expiresAt: 0 }))!;
    expect((await srv.fetch('/api/passkeys/options', { method: 'POST', headers: { 'X-Auth': secret } })).status).toBe(403);
    expect((await srv.fetch(`/api/passkeys/${u.passkey.id}`, { method: 'DELETE', headers: { 'X-Auth': secret }, json: {} })).status).toBe(403);
  });
});

describe('passkeys under the hook auth method', () => {
  const srv = useServer({ passkeyOrigin: 'https://coffer.test' });

  it('do not sign in without a name: the hook decides who signs in', async () => {
    const u = await withPasskey(srv);
    const options = await loginOptions(srv);
    await srv.deps.settings.saveAuther({ ...defaultAuther('hook'), command: '/bin/false' });
    try {
      expect((await srv.fetch('/api/passkeys/login-options', { method: 'POST', headers: from() })).status).toBe(403);
      expect((await passkeyLogin(srv, u.key.assert(options, SITE))).status).toBe(403);
    } finally {
      await srv.deps.settings.saveAuther(defaultAuther('json'));
    }
  });
});

describe('passkeys under the oidc auth method', () => {
  const srv = useServer({ trustedProxies: ['127.0.0.1'], passkeyOrigin: 'https://coffer.test' });

  it('answer the second step after a password on the form beside the provider, and not without a name', async () => {
    const u = await withPasskey(srv);
    const auther = await srv.deps.settings.auther();
    const oidc = { ...defaultOidc(), issuer: 'https://id.example', clientId: 'coffer', clientSecret: 's', redirectUrl: 'https://coffer.test/api/oidc/callback' };
    await srv.deps.settings.saveAuther({ ...auther, method: 'oidc', oidc });
    const password = (extra: Record<string, unknown> = {}) =>
      srv.fetch('/api/login', { method: 'POST', headers: from(), json: { username: u.username, password: u.password, ...extra } });
    const first = await password();
    expect(first.status).toBe(401);
    expect(first.headers.get('x-second-factor')).toBe('passkey');
    const stepOptions = () =>
      srv.fetch('/api/login/passkey-options', { method: 'POST', headers: from(), json: { username: u.username, password: u.password } });
    const options = await json<{ challenge: string }>(await stepOptions());
    expect((await password({ passkey: u.key.assert(options, SITE, false) })).status).toBe(200);
    expect((await srv.fetch('/api/passkeys/login-options', { method: 'POST', headers: from() })).status).toBe(403);
    // Without the password form no password is taken, for the passkey step either.
    await srv.deps.settings.saveAuther({ ...auther, method: 'oidc', oidc: { ...oidc, passwordLogin: false } });
    expect((await stepOptions()).status).toBe(403);
    await srv.deps.settings.saveAuther(auther);
  });
});

describe('passkeys under reCAPTCHA (json auth method)', () => {
  const srv = useServer({ trustedProxies: ['127.0.0.1'], passkeyOrigin: 'https://coffer.test' });
  // A siteverify endpoint on loopback whose answers are single-use, as Google's are: a response
  // starting with "good" passes once.
  let verifier: Server;
  const used = new Set<string>();
  const asked: string[] = [];
  let n = 0;
  const captcha = () => `good-${++n}`;

  beforeAll(async () => {
    verifier = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        const response = new URLSearchParams(text).get('response') ?? '';
        asked.push(response);
        const ok = req.url === '/recaptcha/api/siteverify' && response.startsWith('good') && !used.has(response);
        used.add(response);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ success: ok }));
      });
    });
    await new Promise<void>((resolve) => verifier.listen(0, '127.0.0.1', resolve));
    const host = `http://127.0.0.1:${(verifier.address() as AddressInfo).port}`;
    await srv.deps.settings.saveAuther({ ...defaultAuther('json'), recaptcha: { host, key: 'site-key', secret: 'the-secret' } });
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => verifier.close(() => resolve()));
  });

  /** As withPasskey, with a session issued directly: the sign-in form wants a captcha here. */
  async function withPasskeyHere() {
    const u = await srv.createUser();
    const token = await srv.deps.tokens.issue(u, { signedInWith: 'password' });
    const key = new SoftAuthenticator();
    await addPasskey(srv, token, u.password, key, 'Laptop');
    return { ...u, token, key };
  }
  const login = (u: { username: string; password: string }, extra: Record<string, unknown>, address?: string) =>
    srv.fetch('/api/login', { method: 'POST', headers: address ? { 'X-Forwarded-For': address } : from(), json: { username: u.username, password: u.password, ...extra } });
  const stepOptions = (u: { username: string; password: string }, extra: Record<string, unknown>) =>
    srv.fetch('/api/login/passkey-options', { method: 'POST', headers: from(), json: { username: u.username, password: u.password, ...extra } });

  it('password + captcha, then the passkey step: the captcha is asked for the options, not again at the final login', async () => {
    const u = await withPasskeyHere();
    const first = await login(u, { recaptcha: captcha() });
    expect(first.status).toBe(401);
    expect(first.headers.get('x-second-factor')).toBe('passkey');
    // The options check the captcha (none, or a used one: 403) and the password.
    expect((await stepOptions(u, {})).status).toBe(403);
    expect((await stepOptions(u, { recaptcha: 'good-1' })).status).toBe(403);
    expect((await stepOptions({ ...u, password: 'not-the-password' }, { recaptcha: captcha() })).status).toBe(403);
    const options = await json<{ challenge: string }>(await stepOptions(u, { recaptcha: captcha() }));
    const passkey = u.key.assert(options, SITE, false);
    asked.length = 0;
    const ok = await login(u, { passkey });
    expect(ok.status, await ok.clone().text()).toBe(200);
    expect(asked).toEqual([]); // the verifier was not asked again
    // Once: the challenge is used up, and then the captcha is asked again.
    expect((await login(u, { passkey })).status).toBe(403);
  });

  it('a verified passkey does not stand for the password: a wrong password with it is 403', async () => {
    const u = await withPasskeyHere();
    const options = await json<{ challenge: string }>(await stepOptions(u, { recaptcha: captcha() }));
    const passkey = u.key.assert(options, SITE, false);
    expect((await login({ ...u, password: 'not-the-password' }, { passkey })).status).toBe(403);
  });

  it('no way around the captcha: a missing, forged, foreign or name-less-sign-in passkey is 403, and counts as a failed login', async () => {
    const u = await withPasskeyHere();
    const other = await withPasskeyHere();
    // A challenge for another user does not answer this user's step.
    const foreign = other.key.assert(await json<{ challenge: string }>(await stepOptions(other, { recaptcha: captcha() })), SITE, false);
    expect((await login(u, { passkey: foreign })).status).toBe(403);
    // A challenge of the sign-in without a name (asked without a captcha) does not either.
    expect((await login(u, { passkey: u.key.assert(await loginOptions(srv), SITE) })).status).toBe(403);
    // No challenge at all: an assertion made up by the attacker.
    const forged = u.key.assert({ challenge: 'bm90LWEtY2hhbGxlbmdl' }, SITE, false);
    expect((await login(u, { passkey: forged })).status).toBe(403);
    // A user without a passkey: a passkey in the body does not skip the captcha.
    const plain = await srv.createUser();
    expect((await login(plain, { passkey: forged })).status).toBe(403);
    expect((await login(plain, { recaptcha: captcha() })).status).toBe(200);
    // Wrong types are 400, never a way past the captcha.
    for (const passkey of ['x', 1, [], { id: '../..', response: {} }, { id: 'abc', response: 'x' }]) {
      expect((await login(u, { passkey })).status, JSON.stringify(passkey)).toBe(400);
    }
    // Guessing passwords with made-up passkeys from one address: 403 every time, then 429.
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await login({ ...u, password: `guess-${i}-abcdefgh` }, { passkey: forged }, '192.0.2.200')).status);
    expect(statuses.slice(0, 10).every((s) => s === 403)).toBe(true);
    expect(statuses[10]).toBe(429);
  });

  it('made-up passkeys sent with a name alone (no captcha, no password) do not lock the user out of the passkey step', async () => {
    const u = await withPasskeyHere();
    const forged = u.key.assert({ challenge: 'bm90LWEtY2hhbGxlbmdl' }, SITE, false);
    // From many addresses, each below its own limit: as many as the second step's code limit allows.
    for (let i = 0; i < LOGIN_CODE_LIMIT; i++) {
      const res = await login({ ...u, password: 'not-the-password' }, { passkey: forged }, `203.0.113.${i + 1}`);
      expect(res.status).toBe(403);
    }
    // The user, with the captcha, the password and the passkey, still gets in.
    const options = await json<{ challenge: string }>(await stepOptions(u, { recaptcha: captcha() }));
    const ok = await login(u, { passkey: u.key.assert(options, SITE, false) });
    expect(ok.status, await ok.clone().text()).toBe(200);
  });

  it('a passkey sign-in without a name works without a captcha', async () => {
    const u = await withPasskeyHere();
    const res = await passkeyLogin(srv, u.key.assert(await loginOptions(srv), SITE));
    expect(res.status, await res.clone().text()).toBe(200);
    const who = await srv.fetch('/api/users/' + u.id, { token: (await res.text()).trim() });
    expect(who.status).toBe(200);
  });
});

describe('passkeys under --require-second-factor all', () => {
  const srv = useServer({ requireSecondFactor: 'all', passkeyOrigin: 'https://coffer.test' });

  it('a passkey satisfies the requirement, and the last one stays', async () => {
    const u = await srv.createUser();
    const token = await srv.login(u.username, u.password);
    expect((await srv.fetch('/api/resources/', { token })).status).toBe(403);
    const key = new SoftAuthenticator();
    const options = await json<{ challenge: string }>(await srv.fetch('/api/passkeys/options', { method: 'POST', token }));
    const created = await json<PasskeyInfo>(
      await srv.fetch('/api/passkeys', {
        method: 'POST',
        token,
        json: { name: 'Key', response: key.register(options, SITE), current_password: u.password },
      }),
      201,
    );
    expect((await srv.fetch('/api/resources/', { token })).status).toBe(200);
    expect(
      (await srv.fetch(`/api/passkeys/${created.id}`, { method: 'DELETE', token, json: { current_password: u.password } })).status,
    ).toBe(403);
  });

  it('the first passkey ends the other sessions: one signed in with the password alone does not become a full session', async () => {
    const u = await srv.createUser();
    // Someone with the password, before the owner enrols: a session that reaches only the enrolment.
    const thief = await srv.login(u.username, u.password);
    expect((await srv.fetch('/api/resources/', { token: thief })).status).toBe(403);
    const token = await srv.login(u.username, u.password);
    await addPasskey(srv, token, u.password, new SoftAuthenticator(), 'Key');
    expect((await srv.fetch('/api/resources/', { token })).status).toBe(200);
    expect((await srv.fetch('/api/resources/', { token: thief })).status).toBe(401);
  });
});

describe('passkeys without --passkey-origin', () => {
  const srv = useServer();

  it('take the origin from the Host the browser used (an address is refused)', async () => {
    const u = await srv.createUser();
    const token = await srv.login(u.username, u.password);
    // The tests reach the server by its address: WebAuthn needs a host name.
    expect((await srv.fetch('/api/passkeys/options', { method: 'POST', token })).status).toBe(400);
    const local = srv.url.replace('127.0.0.1', 'localhost');
    const res = await fetch(`${local}/api/passkeys/options`, { method: 'POST', headers: { 'X-Auth': token } });
    const options = (await res.json()) as { rp: { id: string } };
    expect(options.rp.id).toBe('localhost');
  });
});
