import { lstat, mkdir, readdir, readFile, stat, symlink } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeIo, type WriteIo } from '../src/fs/atomic.js';
import { useServer } from './harness.js';
import { denyPath, member, put, rawRequest, withIo } from './resources-support.js';

const exists = (p: string) => lstat(p).then(() => true, () => false);
const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });

/** Write calls that fail with ENOSPC after `allow` bytes. */
function fullDiskIo(allow = 0): WriteIo {
  let written = 0;
  return {
    ...nodeIo,
    async write(fh, chunks, position) {
      const n = chunks.reduce((sum, c) => sum + c.length, 0);
      if (written + n > allow) throw enospc();
      written += n;
      return nodeIo.write(fh, chunks, position);
    },
  };
}

async function noTempFiles(dir: string): Promise<void> {
  const names = await readdir(dir, { recursive: true });
  expect(names.filter((n) => String(n).includes('.coffer-tmp-'))).toEqual([]);
}

describe('POST /api/resources/{path}', () => {
  const srv = useServer();

  it('answers 401 without a token (nothing written)', async () => {
    const res = await srv.fetch('/api/resources/x.txt', { method: 'POST', body: 'x' });
    expect(res.status).toBe(401);
    expect(await exists(path.join(srv.root, 'x.txt'))).toBe(false);
  });

  it('answers 403 without the create permission, for files and folders (S11)', async () => {
    const u = await member(srv.get(), { perm: { create: false } });
    expect((await srv.fetch('/api/resources/a.txt', { method: 'POST', token: u.token, body: 'x' })).status).toBe(403);
    expect((await srv.fetch('/api/resources/d/', { method: 'POST', token: u.token })).status).toBe(403);
    expect(await readdir(u.dir)).toEqual([]);
  });

  it('answers 403 for escapes, rule-denied paths and links out of the scope; nothing is created (S4, S5, S12)', async () => {
    const u = await member(srv.get(), { rules: [denyPath('/private')] });
    await mkdir(path.join(srv.root, 'outside'), { recursive: true });
    await symlink(path.join(srv.root, 'outside'), path.join(u.dir, 'out'));
    await symlink(path.join(srv.root, 'outside', 'new.txt'), path.join(u.dir, 'dangling-out.txt'));
    await symlink('inside-missing.txt', path.join(u.dir, 'dangling-in.txt'));
    for (const p of ['../escape.txt', '%2e%2e/escape.txt', 'private/a.txt', 'private/', 'out/new.txt', 'out/sub/', 'dangling-out.txt', 'dangling-in.txt']) {
      const res = await rawRequest(srv.get(), `/api/resources/${p}?override=false`, { method: 'POST', token: u.token, body: 'x' });
      expect(res.status, p).toBe(403);
    }
    expect(await readdir(path.join(srv.root, 'outside'))).toEqual([]);
    expect(await exists(path.join(u.dir, 'private'))).toBe(false);
    expect(await exists(path.join(u.dir, 'inside-missing.txt'))).toBe(false);
    expect(await exists(path.join(path.dirname(u.dir), 'escape.txt'))).toBe(false);
  });

  it('answers 400 for NUL and overlong names', async () => {
    const u = await member(srv.get());
    expect((await rawRequest(srv.get(), '/api/resources/a%00.txt', { method: 'POST', token: u.token, body: 'x' })).status).toBe(400);
    expect((await rawRequest(srv.get(), `/api/resources/${'n'.repeat(300)}`, { method: 'POST', token: u.token, body: 'x' })).status).toBe(400);
    expect(await readdir(u.dir)).toEqual([]);
  });

  it('creates a file from the body (0640, parents 0750) and answers 200 with an ETag (S54)', async () => {
    const u = await member(srv.get());
    const res = await srv.fetch('/api/resources/new/deep/a.txt?override=false', { method: 'POST', token: u.token, body: 'hello', headers: { 'content-type': 'application/octet-stream' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('200 OK\n');
    expect(res.headers.get('etag')).toMatch(/^"[0-9a-f]+"$/);
    const file = path.join(u.dir, 'new/deep/a.txt');
    expect(await readFile(file, 'utf8')).toBe('hello');
    expect((await stat(file)).mode & 0o777).toBe(0o640);
    expect((await stat(path.join(u.dir, 'new'))).mode & 0o777).toBe(0o750);
    await noTempFiles(u.dir);
  });

  it('creates folders for a trailing slash, 200 when it exists already', async () => {
    const u = await member(srv.get());
    expect((await srv.fetch('/api/resources/a/b/', { method: 'POST', token: u.token })).status).toBe(200);
    expect((await stat(path.join(u.dir, 'a/b'))).isDirectory()).toBe(true);
    expect((await stat(path.join(u.dir, 'a/b'))).mode & 0o777).toBe(0o750);
    expect((await srv.fetch('/api/resources/a/b/', { method: 'POST', token: u.token })).status).toBe(200);
  });

  it('answers 409 when the file exists without override, 403 with override but no modify; the file stays (S11)', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'a.txt', 'old');
    expect((await srv.fetch('/api/resources/a.txt?override=false', { method: 'POST', token: u.token, body: 'new' })).status).toBe(409);
    expect((await srv.fetch('/api/resources/a.txt', { method: 'POST', token: u.token, body: 'new' })).status).toBe(409);
    const ro = await member(srv.get(), { perm: { modify: false } });
    await put(ro.dir, 'a.txt', 'old');
    expect((await srv.fetch('/api/resources/a.txt?override=true', { method: 'POST', token: ro.token, body: 'new' })).status).toBe(403);
    expect(await readFile(path.join(ro.dir, 'a.txt'), 'utf8')).toBe('old');
    expect(await readFile(path.join(u.dir, 'a.txt'), 'utf8')).toBe('old');
  });

  it('replaces the file with override=true and modify', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'a.txt', 'old');
    expect((await srv.fetch('/api/resources/a.txt?override=true', { method: 'POST', token: u.token, body: 'new!' })).status).toBe(200);
    expect(await readFile(path.join(u.dir, 'a.txt'), 'utf8')).toBe('new!');
  });

  it('answers 409 for a file over a folder, a folder over a file and a file below a file', async () => {
    const u = await member(srv.get());
    await mkdir(path.join(u.dir, 'd'));
    await put(u.dir, 'f.txt', 'f');
    expect((await srv.fetch('/api/resources/d?override=true', { method: 'POST', token: u.token, body: 'x' })).status).toBe(409);
    expect((await srv.fetch('/api/resources/f.txt/', { method: 'POST', token: u.token })).status).toBe(409);
    expect((await srv.fetch('/api/resources/f.txt/x.txt', { method: 'POST', token: u.token, body: 'x' })).status).toBe(409);
    expect((await stat(path.join(u.dir, 'd'))).isDirectory()).toBe(true);
    expect(await readFile(path.join(u.dir, 'f.txt'), 'utf8')).toBe('f');
  });

  it('answers 507 on a full disk; the old file stays intact and no staging file remains (S51)', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'a.txt', 'precious');
    const res = await withIo(srv.get(), fullDiskIo(2), () =>
      srv.fetch('/api/resources/a.txt?override=true', { method: 'POST', token: u.token, body: 'replacement' }),
    );
    expect(res.status).toBe(507);
    expect(await res.text()).toBe('507 Insufficient Storage\n');
    expect(await readFile(path.join(u.dir, 'a.txt'), 'utf8')).toBe('precious');
    const fresh = await withIo(srv.get(), fullDiskIo(0), () => srv.fetch('/api/resources/b.txt', { method: 'POST', token: u.token, body: 'x' }));
    expect(fresh.status).toBe(507);
    expect(await exists(path.join(u.dir, 'b.txt'))).toBe(false);
    await noTempFiles(u.dir);
  });

  it('keeps the old file when the client goes away mid-upload (S51)', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'a.txt', 'precious');
    const url = new URL(srv.url);
    await new Promise<void>((resolve) => {
      const req = http.request({ host: url.hostname, port: url.port, method: 'POST', path: '/api/resources/a.txt?override=true', headers: { 'X-Auth': u.token, 'Content-Length': '1000000' } });
      req.on('error', () => resolve());
      req.write(Buffer.alloc(1000, 0x62), () => setTimeout(() => {
        req.destroy();
        resolve();
      }, 100));
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(await readFile(path.join(u.dir, 'a.txt'), 'utf8')).toBe('precious');
    await noTempFiles(u.dir);
  });

  it('streams a large body to disk without buffering it whole', async () => {
    const u = await member(srv.get());
    // RSS also holds what the allocator keeps after the request's buffers are freed, and this
    // process is the client too: 50–70 MiB on Node 24 whatever the body's size. A body four times
    // that and a bound of half the body tell streaming from buffering (which grows by the body).
    const size = 256 * 1024 * 1024;
    const before = process.memoryUsage().rss;
    async function* body() {
      const chunk = Buffer.alloc(1024 * 1024, 0x61);
      for (let i = 0; i < size / chunk.length; i++) yield chunk;
    }
    const res = await srv.fetch('/api/resources/big.bin', { method: 'POST', token: u.token, body: ReadableStreamFrom(body()), duplex: 'half' } as RequestInit);
    expect(res.status).toBe(200);
    expect((await stat(path.join(u.dir, 'big.bin'))).size).toBe(size);
    const m = process.memoryUsage();
    console.log('DIAG', JSON.stringify({ rss: (m.rss - before) / 1048576, heap: m.heapUsed / 1048576, ext: m.external / 1048576, ab: m.arrayBuffers / 1048576 }));
    const { spawnSync } = await import('node:child_process');
    const before2 = process.memoryUsage().rss;
    const f = path.join(u.dir, 'src.bin');
    spawnSync('sh', ['-c', `head -c ${size} /dev/zero > ${f}`]);
    const { execFile } = await import('node:child_process');
    await new Promise((r) => execFile('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-H', `X-Auth: ${u.token}`, '--data-binary', `@${f}`, `${srv.url}/api/resources/big2.bin`], (e, out) => { console.log('DIAG curl', out, e); r(null); }));
    const m2 = process.memoryUsage();
    console.log('DIAG2', JSON.stringify({ rss: (m2.rss - before2) / 1048576, heap: m2.heapUsed / 1048576, ext: m2.external / 1048576, ab: m2.arrayBuffers / 1048576 }));
    expect(process.memoryUsage().rss - before).toBeLessThan(size / 2);
  });

  it('never lets a request address a staging file', async () => {
    const u = await member(srv.get());
    await put(u.dir, '.coffer-tmp-abc', 'x');
    expect((await srv.fetch('/api/resources/.coffer-tmp-abc', { token: u.token })).status).toBe(403);
    expect((await srv.fetch('/api/resources/.coffer-tmp-abc', { method: 'POST', token: u.token, body: 'y' })).status).toBe(403);
    const list = await (await srv.fetch('/api/resources/', { token: u.token })).json();
    expect(list.items).toEqual([]);
  });
});

function ReadableStreamFrom(it: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const iter = it[Symbol.asyncIterator]();
  return new ReadableStream({
    async pull(controller) {
      const { value, done } = await iter.next();
      if (done) controller.close();
      else controller.enqueue(value);
    },
  });
}

describe('PUT /api/resources/{path}', () => {
  const srv = useServer();

  it('answers 401 without a token', async () => {
    expect((await srv.fetch('/api/resources/a.txt', { method: 'PUT', body: 'x' })).status).toBe(401);
  });

  it('answers 403 without modify; the file stays (S11)', async () => {
    const u = await member(srv.get(), { perm: { modify: false } });
    await put(u.dir, 'a.txt', 'old');
    expect((await srv.fetch('/api/resources/a.txt', { method: 'PUT', token: u.token, body: 'new' })).status).toBe(403);
    expect(await readFile(path.join(u.dir, 'a.txt'), 'utf8')).toBe('old');
  });

  it('answers 403 for rule-denied paths and links out of the scope', async () => {
    const u = await member(srv.get(), { rules: [denyPath('/locked')] });
    await put(u.dir, 'locked/a.txt', 'old');
    await put(srv.root, 'outside/t.txt', 'outside');
    await symlink(path.join(srv.root, 'outside/t.txt'), path.join(u.dir, 'out.txt'));
    expect((await srv.fetch('/api/resources/locked/a.txt', { method: 'PUT', token: u.token, body: 'x' })).status).toBe(403);
    expect((await srv.fetch('/api/resources/out.txt', { method: 'PUT', token: u.token, body: 'x' })).status).toBe(403);
    expect((await rawRequest(srv.get(), '/api/resources/../outside/t.txt', { method: 'PUT', token: u.token, body: 'x' })).status).toBe(403);
    expect(await readFile(path.join(srv.root, 'outside/t.txt'), 'utf8')).toBe('outside');
  });

  it('answers 404 for a missing file (nothing created), 405 for a trailing slash, 400 for a folder', async () => {
    const u = await member(srv.get());
    await mkdir(path.join(u.dir, 'd'));
    expect((await srv.fetch('/api/resources/missing.txt', { method: 'PUT', token: u.token, body: 'x' })).status).toBe(404);
    expect(await exists(path.join(u.dir, 'missing.txt'))).toBe(false);
    expect((await srv.fetch('/api/resources/d/', { method: 'PUT', token: u.token, body: 'x' })).status).toBe(405);
    expect((await srv.fetch('/api/resources/d', { method: 'PUT', token: u.token, body: 'x' })).status).toBe(400);
  });

  it('saves atomically, keeps the mode, answers 200 with an ETag; an empty body truncates', async () => {
    const u = await member(srv.get());
    const file = await put(u.dir, 'a.txt', 'old content');
    const res = await srv.fetch('/api/resources/a.txt', { method: 'PUT', token: u.token, body: 'new' });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('200 OK\n');
    const st = await stat(file, { bigint: true });
    expect(res.headers.get('etag')).toBe(`"${st.mtimeNs.toString(16)}${st.size.toString(16)}"`);
    expect(await readFile(file, 'utf8')).toBe('new');
    expect(Number(st.mode) & 0o777).toBe(0o644);
    expect((await srv.fetch('/api/resources/a.txt', { method: 'PUT', token: u.token })).status).toBe(200);
    expect(await readFile(file, 'utf8')).toBe('');
  });

  it('saves through a link inside the scope into its target', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'real.txt', 'old');
    await symlink('real.txt', path.join(u.dir, 'link.txt'));
    expect((await srv.fetch('/api/resources/link.txt', { method: 'PUT', token: u.token, body: 'new' })).status).toBe(200);
    expect(await readFile(path.join(u.dir, 'real.txt'), 'utf8')).toBe('new');
    expect((await lstat(path.join(u.dir, 'link.txt'))).isSymbolicLink()).toBe(true);
  });

  it('answers 507 on a full disk with the original intact', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'a.txt', 'precious');
    const res = await withIo(srv.get(), fullDiskIo(3), () => srv.fetch('/api/resources/a.txt', { method: 'PUT', token: u.token, body: 'a longer replacement' }));
    expect(res.status).toBe(507);
    expect(await readFile(path.join(u.dir, 'a.txt'), 'utf8')).toBe('precious');
    await noTempFiles(u.dir);
  });
});

describe('DELETE /api/resources/{path}', () => {
  // Final deletes (the trash off); with the trash on: trash.test.ts.
  const srv = useServer({ trashDays: 0 });

  it('answers 401 without a token', async () => {
    expect((await srv.fetch('/api/resources/a.txt', { method: 'DELETE' })).status).toBe(401);
  });

  it('answers 403 without the delete permission; nothing deleted', async () => {
    const u = await member(srv.get(), { perm: { delete: false } });
    await put(u.dir, 'a.txt', 'a');
    expect((await srv.fetch('/api/resources/a.txt', { method: 'DELETE', token: u.token })).status).toBe(403);
    expect(await exists(path.join(u.dir, 'a.txt'))).toBe(true);
  });

  it('answers 403 for the scope root, escapes, rule-denied paths and links out of the scope (S13)', async () => {
    const u = await member(srv.get(), { rules: [denyPath('/keep')] });
    await put(u.dir, 'keep/a.txt', 'a');
    await put(srv.root, 'outside2/t.txt', 't');
    await symlink(path.join(srv.root, 'outside2'), path.join(u.dir, 'out'));
    for (const p of ['', '/', '%2f', 'x/..', '..', '%2e%2e', 'keep', 'keep/a.txt', 'out/t.txt']) {
      const res = await rawRequest(srv.get(), `/api/resources/${p}`, { method: 'DELETE', token: u.token });
      expect(res.status, p).toBe(403);
    }
    expect(await exists(path.join(u.dir, 'keep/a.txt'))).toBe(true);
    expect(await exists(path.join(srv.root, 'outside2/t.txt'))).toBe(true);
  });

  it('answers 404 for a missing path', async () => {
    const u = await member(srv.get());
    expect((await srv.fetch('/api/resources/missing', { method: 'DELETE', token: u.token })).status).toBe(404);
  });

  it('deletes a file and a folder recursively (204; a trailing slash is optional)', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'a.txt', 'a');
    await put(u.dir, 'd/e/f.txt', 'f');
    await put(u.dir, 'g/h.txt', 'h');
    expect((await srv.fetch('/api/resources/a.txt', { method: 'DELETE', token: u.token })).status).toBe(204);
    expect((await srv.fetch('/api/resources/d', { method: 'DELETE', token: u.token })).status).toBe(204);
    expect((await srv.fetch('/api/resources/g/', { method: 'DELETE', token: u.token })).status).toBe(204);
    expect(await readdir(u.dir)).toEqual([]);
  });

  it('deletes a link, never its target', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'target/t.txt', 't');
    await symlink('target', path.join(u.dir, 'link'));
    expect((await srv.fetch('/api/resources/link', { method: 'DELETE', token: u.token })).status).toBe(204);
    expect(await exists(path.join(u.dir, 'link'))).toBe(false);
    expect(await readFile(path.join(u.dir, 'target/t.txt'), 'utf8')).toBe('t');
  });

  it('leaves denied descendants, hidden files and escaping links in place and deletes the rest (S7)', async () => {
    const u = await member(srv.get(), { rules: [denyPath('/d/secret')], hideDotfiles: true });
    await put(u.dir, 'd/a.txt', 'a');
    await put(u.dir, 'd/secret/s.txt', 's');
    await put(u.dir, 'd/sub/.env', 'e');
    await put(u.dir, 'd/sub/b.txt', 'b');
    await put(srv.root, 'outside3/t.txt', 't');
    await symlink(path.join(srv.root, 'outside3'), path.join(u.dir, 'd/out'));
    expect((await srv.fetch('/api/resources/d', { method: 'DELETE', token: u.token })).status).toBe(204);
    expect(await exists(path.join(u.dir, 'd/a.txt'))).toBe(false);
    expect(await exists(path.join(u.dir, 'd/sub/b.txt'))).toBe(false);
    expect(await readFile(path.join(u.dir, 'd/secret/s.txt'), 'utf8')).toBe('s');
    expect(await readFile(path.join(u.dir, 'd/sub/.env'), 'utf8')).toBe('e');
    expect((await lstat(path.join(u.dir, 'd/out'))).isSymbolicLink()).toBe(true);
    expect(await readFile(path.join(srv.root, 'outside3/t.txt'), 'utf8')).toBe('t');
  });
});

describe('GET /api/usage/{path}', () => {
  const srv = useServer();
  it('answers 401 without a token', async () => {
    expect((await srv.fetch('/api/usage/')).status).toBe(401);
  });
  it('answers 403 for escapes, rules and links out of the scope; 404 when missing', async () => {
    const u = await member(srv.get(), { rules: [denyPath('/no')] });
    await mkdir(path.join(u.dir, 'no'));
    await symlink('/tmp', path.join(u.dir, 'tmp'));
    for (const p of ['..', '%2e%2e/', 'no/', 'tmp/']) {
      expect((await rawRequest(srv.get(), `/api/usage/${p}`, { token: u.token })).status, p).toBe(403);
    }
    expect((await srv.fetch('/api/usage/missing/', { token: u.token })).status).toBe(404);
  });
  it('reports the filesystem of a folder and zeros for a file', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'a.txt', 'a');
    const root = await (await srv.fetch('/api/usage/', { token: u.token })).json();
    // `trash` (docs/api.md §21): bytes in the scope's trash, nothing yet.
    expect(Object.keys(root)).toEqual(['total', 'used', 'trash']);
    expect(root.trash).toBe(0);
    expect(root.total).toBeGreaterThan(0);
    expect(root.used).toBeGreaterThan(0);
    expect(root.used).toBeLessThanOrEqual(root.total);
    expect(await (await srv.fetch('/api/usage/a.txt', { token: u.token })).json()).toEqual({ total: 0, used: 0 });
  });
});

describe('POST/PUT with --max-upload-size', () => {
  const srv = useServer({ maxUploadSize: 10 });
  it('answers 413 for a larger body; nothing is written and an old file stays', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'a.txt', 'old');
    expect((await srv.fetch('/api/resources/b.txt', { method: 'POST', token: u.token, body: 'x'.repeat(11) })).status).toBe(413);
    expect((await srv.fetch('/api/resources/a.txt?override=true', { method: 'POST', token: u.token, body: 'x'.repeat(11) })).status).toBe(413);
    expect((await srv.fetch('/api/resources/a.txt', { method: 'PUT', token: u.token, body: 'x'.repeat(11) })).status).toBe(413);
    // A chunked body (no declared length) is cut off while streaming.
    async function* chunks() {
      for (let i = 0; i < 4; i++) yield Buffer.from('xxxx');
    }
    const streamed = await srv.fetch('/api/resources/c.txt', { method: 'POST', token: u.token, body: ReadableStreamFrom(chunks()), duplex: 'half' } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(await readFile(path.join(u.dir, 'a.txt'), 'utf8')).toBe('old');
    expect((await readdir(u.dir)).sort()).toEqual(['a.txt']);
    expect((await srv.fetch('/api/resources/d.txt', { method: 'POST', token: u.token, body: 'x'.repeat(10) })).status).toBe(200);
  });
});
