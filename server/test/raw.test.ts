/** GET /api/raw/{file} (docs/api.md §8; S1, S2, S4, S10, S12, S60, S61, S64). */
import { execFileSync } from 'node:child_process';
import { mkdir, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useServer } from './harness.js';
import { rawGet } from './raw-helpers.js';

const srv = useServer();
let admin: string;
const MTIME = new Date('2024-03-01T10:20:30Z');
const DATA = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));

async function put(rel: string, content: string | Buffer): Promise<void> {
  const full = path.join(srv.root, rel);
  await mkdir(path.dirname(full), { recursive: true });
  await writeFile(full, content);
  await utimes(full, MTIME, MTIME);
}

beforeAll(async () => {
  admin = await srv.login();
  await put('docs/data.bin', DATA);
  await put('docs/page.html', '<script>alert(1)</script>');
  await put('docs/img.svg', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
  await put('docs/pic.png', Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'));
  await put('docs/notes', 'plain words, no extension\n');
  await put('docs/empty.txt', '');
  await put('docs/a "quoted"; name é.txt', 'q');
  await put('private/secret.txt', 'secret');
  await put('.hidden.txt', 'dot');
  await mkdir(path.join(path.dirname(srv.root), 'outside'), { recursive: true });
  await writeFile(path.join(path.dirname(srv.root), 'outside', 'x.txt'), 'outside');
  await symlink(
    path.join(path.dirname(srv.root), 'outside', 'x.txt'),
    path.join(srv.root, 'docs', 'escape.txt'),
  );
  await symlink('data.bin', path.join(srv.root, 'docs', 'inside.bin'));
  execFileSync('mkfifo', [path.join(srv.root, 'docs', 'pipe')]);
});

const get = (p: string, init: RequestInit & { token?: string } = {}) =>
  srv.fetch(p, { token: admin, ...init });

describe('GET /api/raw: access', () => {
  it('answers 401 without a token and ignores a token in the query (S25)', async () => {
    expect((await srv.fetch('/api/raw/docs/data.bin')).status).toBe(401);
    expect((await srv.fetch(`/api/raw/docs/data.bin?auth=${admin}`)).status).toBe(401);
  });

  it('accepts the auth cookie on GET', async () => {
    const res = await srv.fetch('/api/raw/docs/data.bin', { headers: { cookie: `auth=${admin}` } });
    expect(res.status).toBe(200);
  });

  it('answers 403 without perm.download, for files, folders and selections alike (S10)', async () => {
    const u = await srv.createUser({ perm: { download: false } });
    const token = await srv.login(u.username, u.password);
    for (const p of [
      '/api/raw/docs/data.bin',
      '/api/raw/docs/',
      '/api/raw/docs?algo=tarxz',
      '/api/raw/?files=%2Fdocs%2Fdata.bin',
    ]) {
      const res = await srv.fetch(p, { token });
      expect(res.status, p).toBe(403);
      expect(await res.text()).toBe('403 Forbidden\n');
    }
  });

  it('answers 403 for rule-denied paths and hidden dotfiles (S12)', async () => {
    const u = await srv.createUser({
      rules: [{ regex: false, allow: false, path: '/private', regexp: { raw: '' } }],
      hideDotfiles: true,
    });
    const token = await srv.login(u.username, u.password);
    expect((await srv.fetch('/api/raw/private/secret.txt', { token })).status).toBe(403);
    expect((await srv.fetch('/api/raw/.hidden.txt', { token })).status).toBe(403);
    expect((await srv.fetch('/api/raw/docs/data.bin', { token })).status).toBe(200);
  });

  it('keeps a scoped user inside its scope', async () => {
    const u = await srv.createUser({ scope: '/docs' });
    const token = await srv.login(u.username, u.password);
    expect(
      Buffer.from(await (await srv.fetch('/api/raw/data.bin', { token })).arrayBuffer()).equals(DATA),
    ).toBe(true);
    for (const p of [
      '/api/raw/../private/secret.txt',
      '/api/raw/%2e%2e/private/secret.txt',
      '/api/raw/..%2fprivate%2fsecret.txt',
    ]) {
      expect((await rawGet(srv, p, { 'X-Auth': token })).status, p).toBe(403);
    }
  });
});

describe('GET /api/raw: hostile paths (S1, S2, S4)', () => {
  const cases: [string, number][] = [
    ['/api/raw/..%2f..%2fetc%2fpasswd', 403],
    ['/api/raw/../../etc/passwd', 403],
    ['/api/raw/docs/../../../etc/passwd', 403],
    ['/api/raw/docs/%2e%2e/%2e%2e/%2e%2e/etc/passwd', 403],
    ['/api/raw/docs/escape.txt', 403],
    ['/api/raw/docs/a%00b', 400],
    ['/api/raw/docs/%0a', 400],
    ['/api/raw/%c0%ae%c0%ae/etc/passwd', 400],
    ['/api/raw/docs/%zz', 400],
    ['/api/raw/docs/..;/private/secret.txt', 404],
    ['/api/raw/docs/%252e%252e/private/secret.txt', 404],
    ['/api/raw/docs/..\\private\\secret.txt', 404],
    ['/api/raw/missing.txt', 404],
  ];
  for (const [p, status] of cases) {
    it(`${p} → ${status}`, async () => {
      const res = await rawGet(srv, p, { 'X-Auth': admin });
      expect(res.status).toBe(status);
      expect(res.headers.location).toBeUndefined();
    });
  }

  it('follows links that stay inside the scope', async () => {
    const res = await get('/api/raw/docs/inside.bin');
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(DATA)).toBe(true);
  });
});

describe('GET /api/raw: headers (S60, S61, S64)', () => {
  it('sends an attachment of type application/octet-stream with the file headers', async () => {
    const res = await get('/api/raw/docs/data.bin');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="data.bin"; filename*=utf-8''data.bin`,
    );
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBe(
      "script-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'",
    );
    expect(res.headers.get('cache-control')).toBe('private');
    expect(res.headers.get('last-modified')).toBe(MTIME.toUTCString());
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('etag')).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    expect(res.headers.get('content-length')).toBe('1000');
    expect(Buffer.from(await res.arrayBuffer()).equals(DATA)).toBe(true);
  });

  it('never renders HTML or SVG as a page: attachment by default, sandboxed inline', async () => {
    const att = await get('/api/raw/docs/page.html');
    expect(att.headers.get('content-type')).toBe('application/octet-stream');
    expect(att.headers.get('content-disposition')).toMatch(/^attachment;/);
    for (const [file, type] of [
      ['page.html', 'text/html; charset=utf-8'],
      ['img.svg', 'image/svg+xml'],
    ]) {
      const res = await get(`/api/raw/docs/${file}?inline=true`);
      expect(res.headers.get('content-type')).toBe(type);
      expect(res.headers.get('content-disposition')).toMatch(/^inline; filename="/);
      expect(res.headers.get('content-security-policy')).toMatch(/script-src 'none'.*; sandbox$/);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('labels passive inline types from the extension or by sniffing, without a sandbox', async () => {
    const png = await get('/api/raw/docs/pic.png?inline=true');
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(png.headers.get('content-security-policy')).not.toMatch(/sandbox/);
    const txt = await get('/api/raw/docs/notes?inline=true');
    expect(txt.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(txt.headers.get('content-security-policy')).not.toMatch(/sandbox/);
  });

  it('encodes odd names in both filename parameters (S61)', async () => {
    const res = await get('/api/raw/docs/a%20%22quoted%22%3B%20name%20%C3%A9.txt');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="a _quoted__ name _.txt"; filename*=utf-8''a%20%22quoted%22%3B%20name%20%C3%A9.txt`,
    );
  });

  it('answers an empty file with 200 and Content-Length 0', async () => {
    const res = await get('/api/raw/docs/empty.txt');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe('0');
    expect(await res.text()).toBe('');
  });

  it('answers a named pipe with 200, the disposition and no body, without opening it', async () => {
    const res = await get('/api/raw/docs/pipe');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="pipe"/);
    expect(await res.text()).toBe('');
  });

  it('answers HEAD with the headers and no body', async () => {
    const res = await get('/api/raw/docs/data.bin', { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe('1000');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment;/);
    expect(await res.text()).toBe('');
  });
});

describe('GET /api/raw: conditional and range requests', () => {
  it('answers 304 to If-Modified-Since at or after the mtime and to a matching If-None-Match', async () => {
    const first = await get('/api/raw/docs/data.bin');
    const etag = first.headers.get('etag')!;
    await first.arrayBuffer();
    const a = await get('/api/raw/docs/data.bin', { headers: { 'If-Modified-Since': MTIME.toUTCString() } });
    expect(a.status).toBe(304);
    expect(await a.text()).toBe('');
    const b = await get('/api/raw/docs/data.bin', { headers: { 'If-None-Match': etag } });
    expect(b.status).toBe(304);
    const c = await get('/api/raw/docs/data.bin', {
      headers: { 'If-Modified-Since': new Date(MTIME.getTime() - 1000).toUTCString() },
    });
    expect(c.status).toBe(200);
    await c.arrayBuffer();
  });

  it('answers 412 when If-Unmodified-Since is before the mtime', async () => {
    const res = await get('/api/raw/docs/data.bin', {
      headers: { 'If-Unmodified-Since': new Date(MTIME.getTime() - 5000).toUTCString() },
    });
    expect(res.status).toBe(412);
  });

  it('serves a single range with 206 and Content-Range, also inline', async () => {
    for (const q of ['', '?inline=true']) {
      const res = await get(`/api/raw/docs/data.bin${q}`, { headers: { Range: 'bytes=10-19' } });
      expect(res.status).toBe(206);
      expect(res.headers.get('content-range')).toBe('bytes 10-19/1000');
      expect(res.headers.get('content-length')).toBe('10');
      expect(Buffer.from(await res.arrayBuffer()).equals(DATA.subarray(10, 20))).toBe(true);
    }
    const suffix = await get('/api/raw/docs/data.bin', { headers: { Range: 'bytes=-5' } });
    expect(suffix.headers.get('content-range')).toBe('bytes 995-999/1000');
    expect(Buffer.from(await suffix.arrayBuffer()).equals(DATA.subarray(995))).toBe(true);
    const clamped = await get('/api/raw/docs/data.bin', { headers: { Range: 'bytes=990-5000' } });
    expect(clamped.headers.get('content-range')).toBe('bytes 990-999/1000');
    await clamped.arrayBuffer();
  });

  it('serves several ranges as multipart/byteranges', async () => {
    const res = await get('/api/raw/docs/data.bin', { headers: { Range: 'bytes=0-3,100-104' } });
    expect(res.status).toBe(206);
    const type = res.headers.get('content-type')!;
    const boundary = /^multipart\/byteranges; boundary=(\S+)$/.exec(type)![1]!;
    const body = Buffer.from(await res.arrayBuffer());
    expect(res.headers.get('content-length')).toBe(String(body.length));
    const text = body.toString('latin1');
    const parts = text.split(`--${boundary}`).slice(1, -1);
    expect(parts).toHaveLength(2);
    const expectPart = (part: string, range: string, bytes: Buffer) => {
      const [headers, data] = part.split('\r\n\r\n');
      expect(headers).toContain(`Content-Range: bytes ${range}/1000`);
      expect(headers).toContain('Content-Type: application/octet-stream');
      expect(Buffer.from(data!.replace(/\r\n$/, ''), 'latin1').equals(bytes)).toBe(true);
    };
    expectPart(parts[0]!, '0-3', DATA.subarray(0, 4));
    expectPart(parts[1]!, '100-104', DATA.subarray(100, 105));
    expect(text.endsWith(`--${boundary}--\r\n`)).toBe(true);
  });

  it('answers 416 with Content-Range for an unsatisfiable range', async () => {
    for (const range of ['bytes=1000-', 'bytes=5000-6000', 'bytes=abc']) {
      const res = await get('/api/raw/docs/data.bin', { headers: { Range: range } });
      expect(res.status, range).toBe(416);
      expect(res.headers.get('content-range')).toBe('bytes */1000');
      await res.arrayBuffer();
    }
  });

  it('honours If-Range: ranges only while the validator matches', async () => {
    const ok = await get('/api/raw/docs/data.bin', {
      headers: { Range: 'bytes=0-0', 'If-Range': MTIME.toUTCString() },
    });
    expect(ok.status).toBe(206);
    await ok.arrayBuffer();
    const stale = await get('/api/raw/docs/data.bin', {
      headers: { Range: 'bytes=0-0', 'If-Range': new Date(MTIME.getTime() - 60_000).toUTCString() },
    });
    expect(stale.status).toBe(200);
    expect((await stale.arrayBuffer()).byteLength).toBe(1000);
  });

  it('answers HEAD with a range without a body', async () => {
    const res = await get('/api/raw/docs/data.bin', { method: 'HEAD', headers: { Range: 'bytes=0-9' } });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-length')).toBe('10');
  });
});
