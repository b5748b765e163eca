import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { buildApp, loggerOptions } from '../src/app.js';
import { startServer, useServer } from './harness.js';

/** Sends raw bytes and resolves with the raw answer (the server closes or answers once). */
function raw(url: string, text: string): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const sock = connect(Number(port), '127.0.0.1', () => sock.write(text));
    let out = '';
    sock.setEncoding('utf8');
    sock.on('data', (d) => {
      out += d;
      if (out.includes('\r\n\r\n')) sock.end();
    });
    sock.on('end', () => resolve(out));
    sock.on('close', () => resolve(out));
    sock.on('error', reject);
    setTimeout(() => {
      sock.destroy();
      resolve(out);
    }, 3000);
  });
}

describe('cross-cutting HTTP behaviour', () => {
  const srv = useServer();

  it('sends the security headers on API answers, 404s included', async () => {
    for (const p of ['/health', '/api/does-not-exist']) {
      const res = await srv.fetch(p);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('same-origin');
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(res.headers.get('x-request-id')).toBeTruthy();
    }
    const api = await srv.fetch('/api/does-not-exist');
    expect(api.status).toBe(404);
    expect(api.headers.get('cache-control')).toBe('no-cache, no-store, must-revalidate');
    expect(await api.text()).toBe('404 Not Found\n');
  });

  it('answers 400 and closes for Content-Length with Transfer-Encoding (S65)', async () => {
    const answer = await raw(
      srv.url,
      'POST /api/login HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
  });

  it('answers 400 for two Content-Length headers and for bad chunk framing (S65)', async () => {
    expect(await raw(srv.url, 'POST /api/login HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab')).toMatch(/^HTTP\/1\.1 400/);
    expect(await raw(srv.url, 'POST /api/login HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nab\r\n0\r\n\r\n')).toMatch(/^HTTP\/1\.1 400/);
    expect(await raw(srv.url, 'GET /health HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n folded\r\n\r\n')).toMatch(/^HTTP\/1\.1 400/);
  });

  it('keeps answering /health while a 10 MB body is refused (S80)', async () => {
    const big = 'x'.repeat(10 * 1024 * 1024);
    const [res, health] = await Promise.all([
      srv.fetch('/api/users', { method: 'POST', body: big, headers: { 'content-type': 'application/json' } }).catch(() => null),
      srv.fetch('/health'),
    ]);
    if (res) expect([401, 413]).toContain(res.status);
    expect(health.status).toBe(200);
    expect((await srv.fetch('/health')).status).toBe(200);
  });

  it('refuses a cross-origin state change before anything runs (S27)', async () => {
    const res = await srv.fetch('/api/logout', { method: 'POST', headers: { Origin: 'https://evil.example' } });
    expect(res.status).toBe(403);
    const site = await srv.fetch('/api/logout', { method: 'POST', headers: { 'Sec-Fetch-Site': 'cross-site' } });
    expect(site.status).toBe(403);
    const same = await srv.fetch('/api/logout', { method: 'POST', headers: { Origin: new URL(srv.url).origin } });
    expect(same.status).not.toBe(403);
  });

  it('sends no CORS allow headers, so preflights fail', async () => {
    const res = await srv.fetch('/api/login', { method: 'OPTIONS', headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' } });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('logging (S25)', () => {
  it('never writes tokens, cookies or secret query values to the log', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(chunk.toString());
        cb();
      },
    });
    const srv = await startServer();
    try {
      const logged = await buildApp(srv.deps, { logger: { ...(loggerOptions({ log: 'stdout' }) as object), stream: sink } as never });
      await logged.listen({ host: '127.0.0.1', port: 0 });
      const addr = logged.server.address() as { port: number };
      const base = `http://127.0.0.1:${addr.port}`;
      await fetch(`${base}/api/raw/x?auth=SECRET-QUERY-TOKEN&inline=true`, {
        headers: { 'X-Auth': 'aaa.SECRET-HEADER.ccc', Cookie: 'auth=aaa.SECRET-COOKIE.ccc', 'X-SHARE-PASSWORD': 'SECRET-SHARE' },
      });
      await fetch(`${base}/api/login`, { method: 'POST', body: JSON.stringify({ username: 'u', password: 'SECRET-PASSWORD' }) });
      await logged.close();
      const all = lines.join('');
      expect(all).toContain('/api/raw/x');
      for (const secret of ['SECRET-QUERY-TOKEN', 'SECRET-HEADER', 'SECRET-COOKIE', 'SECRET-SHARE', 'SECRET-PASSWORD']) {
        expect(all).not.toContain(secret);
      }
    } finally {
      await srv.close();
    }
  });
});

describe('access log (S25, E1–E4)', () => {
  it('writes one line per answered request with status, duration, user id and request id; health, ready and metrics stay out', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        cb();
      },
    });
    const srv = await startServer();
    try {
      const token = await srv.login();
      const logged = await buildApp(srv.deps, { logger: { ...(loggerOptions({ log: 'stdout' }) as object), stream: sink } as never });
      await logged.listen({ host: '127.0.0.1', port: 0 });
      const addr = logged.server.address() as { port: number };
      const base = `http://127.0.0.1:${addr.port}`;
      for (const p of ['/health', '/ready', '/metrics']) expect((await fetch(`${base}${p}`)).status, p).toBeLessThan(500);
      const res = await fetch(`${base}/api/raw/missing.txt?token=SECRET-Q`, { headers: { 'X-Auth': token, 'X-Request-Id': 'access-1' } });
      expect(res.status).toBe(404);
      expect((await fetch(`${base}/api/usage/`, { headers: { 'X-Request-Id': 'access-2' } })).status).toBe(401);
      await logged.close();
      const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(entries.some((e) => e.msg === 'incoming request')).toBe(false);
      const access = entries.filter((e) => e.msg === 'request completed');
      expect(access.map((e) => e.reqId)).toEqual(['access-1', 'access-2']); // nothing for /health, /ready, /metrics
      // Other lines about a request (its refusal reason) carry its id too (E4).
      for (const e of entries.filter((x) => x.reqId !== undefined)) expect(['access-1', 'access-2']).toContain(e.reqId);
      type Line = { msg: string; req: { method: string; url: string }; res: { statusCode: number }; responseTime: unknown; userId?: number };
      const [first, second] = access as unknown as [Line, Line];
      expect(first.msg).toBe('request completed');
      expect(first.req).toMatchObject({ method: 'GET', url: '/api/raw/missing.txt?token=[redacted]' });
      expect(first.res).toEqual({ statusCode: 404 });
      expect(typeof first.responseTime).toBe('number');
      expect(first.userId).toBe(1);
      expect(second.res).toEqual({ statusCode: 401 });
      expect(second.userId).toBeUndefined();
      expect(lines.join('\n')).not.toContain(token.split('.')[2]);
    } finally {
      await srv.close();
    }
  });
});

describe('router-level refusals (S2)', () => {
  const srv = useServer();
  it('answers a bad percent escape with the plain 400 body, never echoing the URL', async () => {
    for (const p of ['/api/resources/%c0%ae%c0%ae/x', '/api/resources/%E0%A4%A', '/api/raw/%ff']) {
      const res = await srv.fetch(p);
      expect(res.status, p).toBe(400);
      const body = await res.text();
      expect(body).toBe('400 Bad Request\n');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });
});
