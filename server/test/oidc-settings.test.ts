/**
 * Settings → Global's OIDC card over real HTTP (docs/api.md §2.14): read, replace with field-level
 * problems, the write-only client secret, the switch between json and oidc taking effect at once,
 * and the bounded discovery test against a real provider (oidc-provider) and hostile endpoints.
 * Runs on SQLite, and on PostgreSQL with COFFER_TEST_PG_URL.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OidcDiscoveryResult, OidcSettings } from '@coffer/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startServer, useServer } from './harness.js';
import { CLIENT, startProvider, type TestProvider } from './oidc-support.js';

const CALLBACK = 'https://files.example.com/api/oidc/callback';

describe('OIDC settings API', () => {
  const srv = useServer();
  let provider: TestProvider;
  let hostile: http.Server;
  let hostileUrl = '';
  let admin = '';

  beforeAll(async () => {
    provider = await startProvider([CALLBACK]);
    // Endpoints that answer badly: by path.
    hostile = http.createServer((req, res) => {
      const p = req.url ?? '';
      if (p.startsWith('/slow/')) return; // never answers
      if (p.startsWith('/huge/')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"issuer": "');
        const chunk = 'x'.repeat(64 * 1024);
        let sent = 0;
        const more = () => {
          while (sent < 64) {
            sent++;
            if (!res.write(chunk)) return void res.once('drain', more);
          }
          res.end('"}');
        };
        return more();
      }
      if (p.startsWith('/redirect/')) return void res.writeHead(302, { location: `${provider.issuer}/.well-known/openid-configuration` }).end();
      if (p.startsWith('/html/')) return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
      if (p.startsWith('/missing/')) return void res.writeHead(404).end();
      if (p.startsWith('/partial/')) {
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ issuer: `${hostileUrl}/partial`, authorization_endpoint: 'https://x/auth' }));
      }
      // A loopback http issuer whose document sends the back channel elsewhere over plain http,
      // or (`/plain-same`) keeps it on its own origin.
      for (const [prefix, token] of [['/plain-elsewhere', 'http://auth.example.com/token'], ['/plain-same', `${hostileUrl}/token`]]) {
        if (p.startsWith(`${prefix}/`)) {
          const doc = { issuer: `${hostileUrl}${prefix}`, authorization_endpoint: 'https://x/auth', token_endpoint: token, jwks_uri: `${hostileUrl}/jwks` };
          return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
        }
      }
      if (p.startsWith('/other/')) {
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ issuer: 'https://evil.example', authorization_endpoint: 'a', token_endpoint: 'b', jwks_uri: 'c' }));
      }
      res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
    hostileUrl = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;
    admin = await srv.login();
  });
  afterAll(async () => {
    hostile.closeAllConnections();
    await new Promise<void>((resolve) => hostile.close(() => resolve()));
    await provider.close();
  });

  const valid = (over: Record<string, unknown> = {}) => ({
    issuer: provider.issuer,
    clientId: CLIENT.id,
    clientSecret: CLIENT.secret,
    scopes: 'openid profile email',
    usernameClaim: 'preferred_username',
    createUsers: true,
    adminClaim: '',
    adminValue: '',
    name: 'Test Provider',
    redirectUrl: CALLBACK,
    passwordLogin: true,
    linkExisting: false,
    ...over,
  });
  const put = (json: unknown, token = admin) => srv.fetch('/api/settings/oidc', { method: 'PUT', token, json });
  const discover = (issuer: unknown, token = admin) => srv.fetch('/api/settings/oidc/discovery', { method: 'POST', token, json: { issuer } });
  const result = async (res: Response) => {
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as OidcDiscoveryResult;
  };

  it('is for admins with a signed-in session only: 401 without one, 403 for others and for an app password', async () => {
    const u = await srv.createUser();
    const token = await srv.login(u.username, u.password);
    expect((await srv.fetch('/api/settings/oidc')).status).toBe(401);
    expect((await srv.fetch('/api/settings/oidc', { token })).status).toBe(403);
    expect((await put(valid(), token)).status).toBe(403);
    expect((await discover(provider.issuer, token)).status).toBe(403);
    expect((await discover(provider.issuer, '')).status).toBe(401);
    const app = await srv.fetch('/api/app-passwords', { method: 'POST', token: admin, json: { name: 'x', readOnly: false, expiresInDays: 0, current_password: ADMIN.password } });
    const { secret } = (await app.json()) as { secret: string };
    expect((await srv.fetch('/api/settings/oidc', { headers: { 'X-Auth': secret } })).status).toBe(403);
    expect((await srv.fetch('/api/settings/oidc/discovery', { method: 'POST', json: { issuer: provider.issuer }, headers: { 'X-Auth': secret } })).status).toBe(403);
  });

  it('stores the settings, never sends the secret back, keeps it when omitted, replaces and clears it', async () => {
    let res = await put(valid());
    expect(res.status, await res.clone().text()).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(CLIENT.secret);
    expect(JSON.parse(text)).toMatchObject({ method: 'json', issuer: provider.issuer, clientSecretSet: true, name: 'Test Provider' });
    const got = await srv.fetch('/api/settings/oidc', { token: admin });
    const gotText = await got.text();
    expect(gotText).not.toContain(CLIENT.secret);
    expect(JSON.parse(gotText)).toMatchObject({ clientSecretSet: true, clientId: CLIENT.id });
    // Omitted and "" keep it.
    expect((await put(valid({ clientSecret: undefined }))).status).toBe(200);
    expect((await put(valid({ clientSecret: '' }))).status).toBe(200);
    expect((await srv.deps.settings.auther()).oidc?.clientSecret).toBe(CLIENT.secret);
    // A text replaces it, null clears it.
    expect((await put(valid({ clientSecret: 'another-secret' }))).status).toBe(200);
    expect((await srv.deps.settings.auther()).oidc?.clientSecret).toBe('another-secret');
    res = await put(valid({ clientSecret: null }));
    expect(((await res.json()) as OidcSettings).clientSecretSet).toBe(false);
    expect((await srv.deps.settings.auther()).oidc?.clientSecret).toBe('');
    // The oidc method cannot be chosen without a secret.
    res = await put(valid({ clientSecret: undefined, method: 'oidc' }));
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ error: 'invalid', fields: { clientSecret: 'required' } });
    expect((await srv.deps.settings.auther()).method).toBe('json');
  });

  it('does not carry the stored secret to another issuer: a new issuer needs its own', async () => {
    expect((await put(valid())).status).toBe(200);
    const other = 'https://other-provider.example.com/realms/x';
    // With the oidc method on, the secret is asked for again.
    let res = await put(valid({ clientSecret: undefined, issuer: other, method: 'oidc' }));
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ error: 'invalid', fields: { clientSecret: 'required' } });
    expect((await srv.deps.settings.auther()).oidc?.clientSecret).toBe(CLIENT.secret);
    // With it off, the issuer changes and the old secret is dropped, not kept for the new one.
    res = await put(valid({ clientSecret: '', issuer: other }));
    expect(res.status).toBe(200);
    expect(((await res.json()) as OidcSettings).clientSecretSet).toBe(false);
    expect((await srv.deps.settings.auther()).oidc?.clientSecret).toBe('');
    // A new secret with the new issuer is kept, and kept while the issuer stays.
    expect((await put(valid({ clientSecret: 'for-other', issuer: other }))).status).toBe(200);
    expect((await put(valid({ clientSecret: undefined, issuer: other }))).status).toBe(200);
    expect((await srv.deps.settings.auther()).oidc?.clientSecret).toBe('for-other');
  });

  it('answers 422 with a problem per field, and stores nothing', async () => {
    await put(valid());
    const cases: [Record<string, unknown>, Record<string, string>][] = [
      [{ issuer: 'http://auth.example.com' }, { issuer: 'https' }],
      [{ issuer: 'http://10.0.0.5:9000' }, { issuer: 'https' }],
      [{ issuer: 'ftp://auth.example.com' }, { issuer: 'url' }],
      [{ issuer: 'javascript:alert(1)' }, { issuer: 'url' }],
      [{ issuer: 'auth.example.com' }, { issuer: 'url' }],
      [{ issuer: '/../../etc/passwd' }, { issuer: 'url' }],
      [{ issuer: 'https://user:pw@auth.example.com' }, { issuer: 'url' }],
      [{ issuer: 'https://auth.example.com/#x' }, { issuer: 'url' }],
      [{ issuer: 'https://auth.example.com/\nx' }, { issuer: 'text' }],
      [{ redirectUrl: 'https://files.example.com/elsewhere' }, { redirectUrl: 'callback' }],
      [{ redirectUrl: 'http://files.example.com/api/oidc/callback' }, { redirectUrl: 'https' }],
      [{ scopes: 'profile email' }, { scopes: 'openid' }],
      [{ scopes: 'openid "x"' }, { scopes: 'openid' }],
      [{ usernameClaim: '  ' }, { usernameClaim: 'required' }],
      [{ name: '' }, { name: 'required' }],
      [{ adminClaim: 'groups' }, { adminValue: 'together' }],
      [{ adminValue: 'admins' }, { adminClaim: 'together' }],
      [{ method: 'oidc', issuer: '', clientId: '', redirectUrl: '' }, { issuer: 'required', clientId: 'required', redirectUrl: 'required' }],
    ];
    for (const [over, fields] of cases) {
      const res = await put(valid(over));
      expect(res.status, JSON.stringify(over)).toBe(422);
      expect(await res.json(), JSON.stringify(over)).toEqual({ error: 'invalid', fields });
    }
    const stored = (await srv.deps.settings.auther()).oidc!;
    expect(stored).toMatchObject({ issuer: provider.issuer, scopes: 'openid profile email', adminClaim: '' });
    // Loopback http is fine: a provider on the same machine.
    for (const issuer of ['http://127.0.0.1:9999', 'http://localhost:9999/realms/x', 'http://[::1]:9999', 'https://auth.example.com/realms/coffer']) {
      expect((await put(valid({ issuer }))).status, issuer).toBe(200);
    }
    await put(valid());
  });

  it('answers 400 for wrong types, missing and unknown fields, other methods; 413 for a huge body', async () => {
    for (const body of [
      valid({ createUsers: 'yes' }),
      valid({ issuer: 5 }),
      valid({ clientSecret: 7 }),
      valid({ method: 'proxy' }),
      valid({ method: 'noauth' }),
      valid({ extra: true }),
      valid({ name: 'x'.repeat(101) }),
      { issuer: provider.issuer },
      [],
      'text',
      null,
    ]) {
      const res = await put(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(await res.text()).not.toMatch(/\/(src|work|tmp)\//);
    }
    expect((await put(valid({ adminValue: 'x'.repeat(64 * 1024) }))).status).toBe(413);
    expect((await srv.deps.settings.auther()).method).toBe('json');
  });

  it('switches to oidc and back without a restart: the login page and the sign-in route follow at once', async () => {
    expect((await srv.fetch('/api/oidc/login')).status).toBe(404);
    const res = await put(valid({ method: 'oidc', name: 'Keycloak Test' }));
    expect(res.status, await res.clone().text()).toBe(200);
    const login = await srv.fetch('/api/oidc/login');
    expect(login.status).toBe(302);
    expect(login.headers.get('location')).toMatch(new RegExp(`^${provider.issuer}/`));
    const page = await (await srv.fetch('/login')).text();
    expect(page).toContain('Keycloak Test');
    // The password form stays (passwordLogin true): the admin can still sign in with a password.
    expect((await srv.fetch('/api/login', { method: 'POST', json: { username: ADMIN.username, password: ADMIN.password } })).status).toBe(200);
    expect((await put(valid({ method: 'json' }))).status).toBe(200);
    expect((await srv.fetch('/api/oidc/login')).status).toBe(404);
  });

  it('a change made on one instance counts on another on the same database at once', async () => {
    const other = await startServer({ database: srv.config.database });
    try {
      expect((await other.fetch('/api/oidc/login')).status).toBe(404);
      expect((await put(valid({ method: 'oidc', name: 'Seen Elsewhere' }))).status).toBe(200);
      const login = await other.fetch('/api/oidc/login');
      expect(login.status).toBe(302);
      expect(login.headers.get('location')).toMatch(new RegExp(`^${provider.issuer}/`));
      expect(await (await other.fetch('/login')).text()).toContain('Seen Elsewhere');
      expect((await put(valid({ method: 'json' }))).status).toBe(200);
      expect((await other.fetch('/api/oidc/login')).status).toBe(404);
    } finally {
      await other.close();
    }
  });

  it('keeps a proxy, hook or noauth method when no method is sent', async () => {
    const auther = await srv.deps.settings.auther();
    await srv.deps.settings.saveAuther({ ...auther, method: 'hook', command: 'true' });
    try {
      const res = await put(valid({ name: 'Still hook' }));
      expect(res.status).toBe(200);
      expect(((await res.json()) as OidcSettings).method).toBe('hook');
      expect((await srv.deps.settings.auther()).command).toBe('true');
    } finally {
      await srv.deps.settings.saveAuther(auther);
    }
  });

  it('tests discovery: OK against a real provider, and says why not otherwise', async () => {
    const ok = await result(await discover(provider.issuer));
    expect(ok).toMatchObject({ ok: true, problem: '' });
    expect(ok.authorizationEndpoint).toMatch(new RegExp(`^${provider.issuer}/`));
    const cases: [string, string][] = [
      [`${hostileUrl}/missing`, 'status'],
      [`${hostileUrl}/redirect`, 'status'], // redirects are not followed
      [`${hostileUrl}/html`, 'not-json'],
      [`${hostileUrl}/partial`, 'incomplete'],
      [`${hostileUrl}/other`, 'issuer-mismatch'],
      [`${provider.issuer}/`, 'issuer-mismatch'], // the issuer must match exactly
      [`${hostileUrl}/huge`, 'too-large'],
      [`${hostileUrl}/plain-elsewhere`, 'insecure-endpoint'], // the secret would cross the network in the clear
      ['http://auth.example.com', 'invalid-issuer'], // never fetched
      ['file:///etc/passwd', 'invalid-issuer'],
      ['not a url', 'invalid-issuer'],
    ];
    for (const [issuer, problem] of cases) {
      const r = await result(await discover(issuer));
      expect(r.ok, issuer).toBe(false);
      expect(r.problem, issuer).toBe(problem);
    }
    expect(await result(await discover(`${hostileUrl}/plain-same`))).toMatchObject({ ok: true });
    // A port where nothing listens.
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect((await result(await discover(`http://127.0.0.1:${port}`))).problem).toBe('unreachable');
    for (const body of [{ issuer: 5 }, {}, { issuer: 'x'.repeat(3000) }]) {
      expect((await srv.fetch('/api/settings/oidc/discovery', { method: 'POST', token: admin, json: body })).status).toBe(400);
    }
  });

  it('never signs in through a provider whose token endpoint is plain http on another host', async () => {
    try {
      expect((await put(valid({ method: 'oidc', issuer: `${hostileUrl}/plain-elsewhere` }))).status).toBe(200);
      const refused = await srv.fetch('/api/oidc/login');
      expect(refused.status).toBe(302);
      expect(refused.headers.get('location')).toContain('oidc_error=failed');
      // The same document with the token endpoint on the issuer's own origin is used.
      expect((await put(valid({ method: 'oidc', issuer: `${hostileUrl}/plain-same` }))).status).toBe(200);
      const used = await srv.fetch('/api/oidc/login');
      expect(used.status).toBe(302);
      expect(used.headers.get('location')).toMatch(/^https:\/\/x\/auth\?/);
    } finally {
      expect((await put(valid({ method: 'json' }))).status).toBe(200);
    }
  });

  it('gives up on a provider that does not answer after 5 s', async () => {
    const started = Date.now();
    const r = await result(await discover(`${hostileUrl}/slow`));
    expect(r).toMatchObject({ ok: false, problem: 'timeout' });
    expect(Date.now() - started).toBeLessThan(9000);
  }, 15_000);
});
