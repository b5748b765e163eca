/** POST /api/login with the json method: docs/api.md §2, S30–S32, S34. */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hash as bcryptHash } from '@node-rs/bcrypt';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultAuther } from '../src/features/settings/repository.js';
import { ADMIN, startServer, useServer, type TestServer } from './harness.js';

function loginAs(srv: TestServer, body: unknown, headers: Record<string, string> = {}) {
  return srv.fetch('/api/login', { method: 'POST', json: body, headers });
}
const creds = (username: string, password: string) => ({ username, password, recaptcha: '' });

/** Headers that must match between two 403s (everything but the per-request id and date). */
function comparable(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    if (k !== 'x-request-id' && k !== 'date') out[k] = v;
  });
  return out;
}

describe('POST /api/login (json)', () => {
  // Every test from its own address, so the failures of one never throttle another (S30).
  const srv = useServer({ trustedProxies: ['127.0.0.1'] });
  let seq = 0;
  beforeEach(() => {
    seq++;
  });
  const login = (s: TestServer, body: unknown, headers: Record<string, string> = {}) =>
    loginAs(s, body, { 'X-Forwarded-For': `10.1.${seq}.1`, ...headers });

  it('answers 200 text/plain (no charset) with a bare JWT of the user', async () => {
    const res = await login(srv, creds(ADMIN.username, ADMIN.password));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain');
    const token = await res.text();
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const payload = decodeJwt(token) as { user: { id: number; username: string; perm: { admin: boolean } }; jti: string };
    expect(payload.user.username).toBe(ADMIN.username);
    expect(payload.user.perm.admin).toBe(true);
    expect(payload.jti.length).toBeGreaterThanOrEqual(22);
    expect(JSON.stringify(payload)).not.toMatch(/password_hash|passwordHash|\$argon2/);
  });

  it('answers 403 "403 Forbidden\\n" for a wrong password', async () => {
    const res = await login(srv, creds(ADMIN.username, 'wrong-password'));
    expect(res.status).toBe(403);
    expect(await res.text()).toBe('403 Forbidden\n');
  });

  it('answers an unknown user exactly like a wrong password (S31)', async () => {
    const wrong = await login(srv, creds(ADMIN.username, 'not-the-password'));
    const unknown = await login(srv, creds('nobody-here', 'not-the-password'));
    expect(unknown.status).toBe(403);
    expect(wrong.status).toBe(403);
    expect(await unknown.text()).toBe(await wrong.text());
    expect(comparable(unknown)).toEqual(comparable(wrong));
  });

  it('is case-sensitive on the user name', async () => {
    expect((await login(srv, creds(ADMIN.username.toUpperCase(), ADMIN.password))).status).toBe(403);
  });

  it('answers 400 for malformed JSON, an empty body, non-objects and wrong types (S32)', async () => {
    const bodies: unknown[] = [
      '{"username": "admin", "password": ',
      'not json at all',
      '[]',
      '"admin"',
      '42',
      'null',
      { username: 42, password: ADMIN.password },
      { username: ADMIN.username, password: ['a', 'b'] },
      { username: ADMIN.username },
      { password: ADMIN.password },
      { username: ADMIN.username, password: ADMIN.password, recaptcha: 5 },
    ];
    for (const body of bodies) {
      const res = await login(srv, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(await res.text()).toMatch(/^400 Bad Request( \(.+\))?\n$/);
    }
    const empty = await srv.fetch('/api/login', { method: 'POST' });
    expect(empty.status).toBe(400);
    const blank = await srv.fetch('/api/login', { method: 'POST', body: '', headers: { 'content-type': 'application/json' } });
    expect(blank.status).toBe(400);
  });

  it('ignores unknown fields', async () => {
    const res = await login(srv, { ...creds(ADMIN.username, ADMIN.password), perm: { admin: false }, extra: [1, 2] });
    expect(res.status).toBe(200);
  });

  it('parses the body as JSON whatever the content type (text/plain from FB\'s client)', async () => {
    const res = await srv.fetch('/api/login', { method: 'POST', body: JSON.stringify(creds(ADMIN.username, ADMIN.password)), headers: { 'content-type': 'text/plain;charset=UTF-8' } });
    expect(res.status).toBe(200);
  });

  it('answers 413 above 64 KiB of body and for a password above 1024 bytes (S32)', async () => {
    const big = await login(srv, { username: ADMIN.username, password: 'x', pad: 'y'.repeat(65 * 1024) });
    expect(big.status).toBe(413);
    const longPassword = await login(srv, creds(ADMIN.username, 'p'.repeat(2000)));
    expect(longPassword.status).toBe(413);
    const multiByte = await login(srv, creds(ADMIN.username, 'é'.repeat(513))); // 1026 bytes
    expect(multiByte.status).toBe(413);
    expect((await login(srv, creds(ADMIN.username, ADMIN.password))).status).toBe(200);
    expect((await srv.fetch('/health')).status).toBe(200);
  });

  it('treats SQL metacharacters as plain text', async () => {
    for (const name of ["' OR 1=1 --", "admin'--", '" OR ""="', "admin' /*", '%', '_']) {
      const res = await login(srv, creds(name, "' OR '1'='1"));
      expect(res.status, name).toBe(403);
    }
    expect((await login(srv, creds(ADMIN.username, "' OR '1'='1"))).status).toBe(403);
    expect((await login(srv, creds(ADMIN.username, ADMIN.password))).status).toBe(200);
    expect((await srv.deps.users.list()).length).toBeGreaterThanOrEqual(1);
  });

  it('logs in users whose password has non-ASCII characters', async () => {
    const u = await srv.createUser({ password: 'pässwörd-ünïcödé-🔑' });
    expect((await login(srv, creds(u.username, u.password))).status).toBe(200);
    expect((await login(srv, creds(u.username, u.password.normalize('NFD')))).status).toBe(403);
  });

  it('accepts a bcrypt hash imported from File Browser and re-hashes it to argon2id (S34)', async () => {
    const password = 'imported-from-filebrowser';
    const u = await srv.createUser({ passwordHash: await bcryptHash(password, { cost: 10 }) });
    expect((await srv.deps.users.byId(u.id))!.passwordHash).toMatch(/^\$2[aby]\$10\$/);
    expect((await login(srv, creds(u.username, 'wrong-password-here'))).status).toBe(403);
    expect((await srv.deps.users.byId(u.id))!.passwordHash).toMatch(/^\$2[aby]\$/);
    const ok = await login(srv, creds(u.username, password));
    expect(ok.status).toBe(200);
    expect((await srv.deps.users.byId(u.id))!.passwordHash).toMatch(/^\$argon2id\$/);
    expect((await login(srv, creds(u.username, password))).status).toBe(200);
    expect((await login(srv, creds(u.username, 'wrong-password-here'))).status).toBe(403);
  });

  it('refuses the login of a state change from another origin (S27)', async () => {
    const res = await login(srv, creds(ADMIN.username, ADMIN.password), { Origin: 'https://evil.example' });
    expect(res.status).toBe(403);
  });
});

describe('login throttling per address (S30)', () => {
  const srv = useServer({ trustedProxies: ['127.0.0.1'] });
  const from = (ip: string) => ({ 'X-Forwarded-For': ip });

  it('answers 429 with Retry-After and an empty body from the 11th attempt, even with the right password', async () => {
    const ip = '203.0.113.10';
    for (let i = 0; i < 10; i++) expect((await loginAs(srv, creds(ADMIN.username, `wrong-${i}`), from(ip))).status).toBe(403);
    const blocked = await loginAs(srv, creds(ADMIN.username, ADMIN.password), from(ip));
    expect(blocked.status).toBe(429);
    expect(await blocked.text()).toBe('');
    const retry = blocked.headers.get('retry-after');
    expect(retry).toMatch(/^\d+$/);
    expect(Number(retry)).toBeGreaterThan(800);
    expect(Number(retry)).toBeLessThanOrEqual(900);
    const unknown = await loginAs(srv, creds('nobody', 'x'), from(ip));
    expect(unknown.status).toBe(429);
    // Another address is not affected (no account-wide lockout).
    expect((await loginAs(srv, creds(ADMIN.username, ADMIN.password), from('203.0.113.11'))).status).toBe(200);
    // The throttled address stays throttled after that success.
    expect((await loginAs(srv, creds(ADMIN.username, ADMIN.password), from(ip))).status).toBe(429);
  });

  it('counts only well-formed attempts with wrong credentials', async () => {
    const ip = '203.0.113.20';
    for (let i = 0; i < 12; i++) expect((await loginAs(srv, '{"username":', from(ip))).status).toBe(400);
    for (let i = 0; i < 12; i++) expect((await loginAs(srv, { username: 1, password: 2 }, from(ip))).status).toBe(400);
    for (let i = 0; i < 12; i++) expect((await loginAs(srv, creds(ADMIN.username, 'p'.repeat(1100)), from(ip))).status).toBe(413);
    for (let i = 0; i < 12; i++) expect((await loginAs(srv, creds(ADMIN.username, ADMIN.password), from(ip))).status).toBe(200);
    for (let i = 0; i < 9; i++) expect((await loginAs(srv, creds(ADMIN.username, 'nope'), from(ip))).status).toBe(403);
    expect((await loginAs(srv, creds(ADMIN.username, ADMIN.password), from(ip))).status).toBe(200);
  });

  it('throttles an IPv6 /64 as one address', async () => {
    for (let i = 0; i < 10; i++) expect((await loginAs(srv, creds(ADMIN.username, 'bad'), from(`2001:db8:1:2::${i + 1}`))).status).toBe(403);
    expect((await loginAs(srv, creds(ADMIN.username, ADMIN.password), from('2001:db8:1:2:ffff::9'))).status).toBe(429);
    expect((await loginAs(srv, creds(ADMIN.username, ADMIN.password), from('2001:db8:1:3::1'))).status).toBe(200);
  });

  it('stops a burst of parallel guesses at the limit', async () => {
    const ip = '203.0.113.30';
    expect((await loginAs(srv, creds(ADMIN.username, 'first-guess'), from(ip))).status).toBe(403);
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => loginAs(srv, creds(ADMIN.username, `guess-${i}`), from(ip))));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 403).length).toBeLessThanOrEqual(9);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(21);
  });

  it('throttles a name under a distributed attack only for addresses that failed on it (never the real user)', async () => {
    const victim = await srv.createUser();
    // 30 addresses, one failure each: below the per-address limit everywhere.
    for (let i = 1; i <= 30; i++) expect((await loginAs(srv, creds(victim.username, `guess-${i}`), from(`198.51.100.${i}`))).status).toBe(403);
    // An address that already failed on this name is refused, right password or not…
    const refused = await loginAs(srv, creds(victim.username, victim.password), from('198.51.100.1'));
    expect(refused.status).toBe(429);
    expect(await refused.text()).toBe('');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // …but not for other names…
    expect((await loginAs(srv, creds(ADMIN.username, ADMIN.password), from('198.51.100.1'))).status).toBe(200);
    // …and an address without a recent failure on it still gets through (the real user).
    expect((await loginAs(srv, creds(victim.username, victim.password), from('192.0.2.77'))).status).toBe(200);
    expect((await loginAs(srv, creds(victim.username, 'still-wrong'), from('192.0.2.78'))).status).toBe(403);
  });

  it('counts failures and throttled logins in /metrics (E3)', async () => {
    const text = await (await srv.fetch('/metrics')).text();
    // Per-instance series carry an `instance` label (E3).
    const failures = Number(/^coffer_login_failures_total\{instance="[^"]+"\} (\d+)$/m.exec(text)?.[1]);
    const throttled = Number(/^coffer_throttled_total\{kind="login",instance="[^"]+"\} (\d+)$/m.exec(text)?.[1]);
    expect(failures).toBeGreaterThanOrEqual(10 + 9 + 10 + 30);
    expect(throttled).toBeGreaterThanOrEqual(3);
    expect(text).not.toMatch(/admin|203\.0\.113/);
  });

  it('uses the TCP peer and ignores X-Forwarded-For from an untrusted peer', async () => {
    const other = await startServer();
    try {
      for (let i = 0; i < 10; i++) {
        const res = await other.fetch('/api/login', { method: 'POST', json: creds(ADMIN.username, 'bad'), headers: from(`192.0.2.${i + 1}`) });
        expect(res.status).toBe(403);
      }
      const res = await other.fetch('/api/login', { method: 'POST', json: creds(ADMIN.username, ADMIN.password), headers: from('192.0.2.200') });
      expect(res.status).toBe(429);
    } finally {
      await other.close();
    }
  });
});

describe('failed-login delay', () => {
  const srv = useServer({}, { failureDelayMs: 300 });
  it('waits before answering 403, and not before a success', async () => {
    await loginAs(srv, creds(ADMIN.username, ADMIN.password)); // warm-up (dummy hash, JIT)
    let t = performance.now();
    expect((await loginAs(srv, creds(ADMIN.username, 'wrong'))).status).toBe(403);
    expect(performance.now() - t).toBeGreaterThanOrEqual(290);
    t = performance.now();
    expect((await loginAs(srv, creds('unknown-user', 'wrong'))).status).toBe(403);
    expect(performance.now() - t).toBeGreaterThanOrEqual(290);
    t = performance.now();
    expect((await loginAs(srv, creds(ADMIN.username, ADMIN.password))).status).toBe(200);
    expect(performance.now() - t).toBeLessThan(290);
  });
});

describe('reCAPTCHA (json auther)', () => {
  const srv = useServer();
  let verifier: Server;
  let verifierUrl = '';
  const seen: { path: string; type: string; form: URLSearchParams }[] = [];

  const read = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => resolve(text));
    });

  beforeAll(async () => {
    verifier = createServer((req, res) => {
      void read(req).then((text) => {
        const form = new URLSearchParams(text);
        seen.push({ path: req.url ?? '', type: req.headers['content-type'] ?? '', form });
        const response = form.get('response');
        if (req.method !== 'POST' || req.url !== '/recaptcha/api/siteverify' || form.get('secret') !== 'the-secret') {
          res.writeHead(404).end();
        } else if (response === 'good') {
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"success": true, "hostname": "x"}');
        } else if (response === 'good-but-500') {
          res.writeHead(500, { 'content-type': 'application/json' }).end('{"success": true}');
        } else if (response === 'not-json') {
          res.writeHead(200, { 'content-type': 'text/html' }).end('<html>oops</html>');
        } else if (response === 'truthy') {
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"success": "true"}');
        } else {
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"success": false, "error-codes": ["invalid-input-response"]}');
        }
      });
    });
    await new Promise<void>((resolve) => verifier.listen(0, '127.0.0.1', resolve));
    verifierUrl = `http://127.0.0.1:${(verifier.address() as AddressInfo).port}`;
    await srv.deps.settings.saveAuther({ ...defaultAuther('json'), recaptcha: { host: verifierUrl, key: 'site-key', secret: 'the-secret' } });
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => verifier.close(() => resolve()));
  });

  const withCaptcha = (recaptcha: unknown, password = ADMIN.password) => loginAs(srv, { username: ADMIN.username, password, recaptcha });

  it('posts secret and response form-encoded and logs in on {"success":true}', async () => {
    seen.length = 0;
    const res = await withCaptcha('good');
    expect(res.status).toBe(200);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.path).toBe('/recaptcha/api/siteverify');
    expect(seen[0]!.type).toBe('application/x-www-form-urlencoded');
    expect(seen[0]!.form.get('secret')).toBe('the-secret');
    expect(seen[0]!.form.get('response')).toBe('good');
  });

  it('answers 403 when the verifier says no, answers non-200, or success is not exactly true', async () => {
    for (const r of ['bad', '', 'good-but-500', 'truthy']) expect((await withCaptcha(r)).status, r).toBe(403);
    expect((await loginAs(srv, { username: ADMIN.username, password: ADMIN.password })).status).toBe(403);
  });

  it('still checks the password after a passing reCAPTCHA', async () => {
    expect((await withCaptcha('good', 'wrong-password')).status).toBe(403);
  });

  it('answers 500 when the verifier answers no JSON or cannot be reached', async () => {
    const notJson = await withCaptcha('not-json');
    expect(notJson.status).toBe(500);
    expect(await notJson.json()).toEqual({ error: 'internal', requestId: notJson.headers.get('x-request-id') });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await srv.deps.settings.saveAuther({ ...defaultAuther('json'), recaptcha: { host: `http://127.0.0.1:${port}`, key: 'k', secret: 'the-secret' } });
    try {
      expect((await withCaptcha('good')).status).toBe(500);
    } finally {
      await srv.deps.settings.saveAuther({ ...defaultAuther('json'), recaptcha: { host: verifierUrl, key: 'site-key', secret: 'the-secret' } });
    }
  });

  it('skips reCAPTCHA when the secret is empty', async () => {
    seen.length = 0;
    await srv.deps.settings.saveAuther({ ...defaultAuther('json'), recaptcha: { host: verifierUrl, key: 'site-key', secret: '' } });
    try {
      expect((await loginAs(srv, creds(ADMIN.username, ADMIN.password))).status).toBe(200);
      expect(seen).toHaveLength(0);
    } finally {
      await srv.deps.settings.saveAuther({ ...defaultAuther('json'), recaptcha: { host: verifierUrl, key: 'site-key', secret: 'the-secret' } });
    }
  });
});
