/**
 * Plain uploads, POST /api/resources/{path} with the raw bytes as body (docs/api.md §7.7), seen from the upload issue: streamed to a hidden staging file, never half-written
 * (S51), override semantics (docs/api.md §6.1, S11), events (§16.4), bounded memory (S80), a full disk and a
 * client that goes away. Runs on SQLite, and on PostgreSQL with COFFER_TEST_PG_URL.
 */
import http from 'node:http';
import { lstat, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileEventContext } from '../src/events/index.js';
import { useServer, type TestServer } from './harness.js';
import { childServer, type ChildServer } from './tus-child.js';
import { bytes, sha256, sha256File } from './tus-support.js';

async function exists(p: string): Promise<boolean> {
  return lstat(p).then(
    () => true,
    () => false,
  );
}

function post(srv: TestServer, token: string, p: string, body: Buffer | string) {
  return srv.fetch(`/api/resources${p}`, { method: 'POST', token, body, headers: { 'Content-Type': 'application/octet-stream' } });
}

async function waitFor(cond: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A POST whose body is sent in two parts with a pause in between; `finish` sends the rest or drops the connection. */
function slowPost(srv: TestServer, token: string, p: string, data: Buffer, firstPart: number) {
  const u = new URL(srv.url);
  const req = http.request({
    host: u.hostname,
    port: u.port,
    method: 'POST',
    path: `/api/resources${p}`,
    headers: { 'X-Auth': token, 'Content-Type': 'application/octet-stream', 'Content-Length': String(data.length) },
  });
  const answer = new Promise<number>((resolve) => {
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
  });
  req.write(data.subarray(0, firstPart));
  return {
    answer,
    finish: () => req.end(data.subarray(firstPart)),
    vanish: () => req.destroy(),
  };
}

describe('POST /api/resources/{path} as a plain upload', () => {
  const srv = useServer();
  let admin: string;
  beforeAll(async () => {
    admin = await srv.login();
  });

  it('stores the exact bytes of a body far above the JSON limit; answers 200 OK with an ETag', async () => {
    const data = bytes(5 * 1024 * 1024 + 7);
    const res = await post(srv, admin, '/plain/big.bin?override=false', data);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('200 OK\n');
    expect(res.headers.get('etag')).toMatch(/^"[0-9a-f]+"$/);
    expect(await sha256File(path.join(srv.root, 'plain', 'big.bin'))).toBe(sha256(data));
    expect((await stat(path.join(srv.root, 'plain', 'big.bin'))).mode & 0o777).toBe(0o640);
    expect((await stat(path.join(srv.root, 'plain'))).mode & 0o777).toBe(0o750);
  });

  it('never shows a half file: the bytes go to a hidden staging file first (S51)', async () => {
    const data = bytes(3 * 1024 * 1024);
    const up = slowPost(srv, admin, '/slow.bin', data, 1024 * 1024);
    await waitFor(async () => (await readdir(srv.root)).some((n) => n.startsWith('.coffer-tmp-')));
    expect(await exists(path.join(srv.root, 'slow.bin'))).toBe(false);
    // The listing shows neither the staging file nor the target.
    const listing = (await (await srv.fetch('/api/resources/', { token: admin })).json()) as { items: { name: string }[] };
    expect(listing.items.map((i) => i.name).filter((n) => n.startsWith('.coffer') || n === 'slow.bin')).toEqual([]);
    up.finish();
    expect(await up.answer).toBe(200);
    expect(await sha256File(path.join(srv.root, 'slow.bin'))).toBe(sha256(data));
    expect((await readdir(srv.root)).filter((n) => n.startsWith('.coffer-tmp-'))).toEqual([]);
  });

  it('keeps the old file byte for byte until an override completes, and after a client that vanished', async () => {
    const old = bytes(200_000);
    await writeFile(path.join(srv.root, 'keep.bin'), old);
    const next = bytes(2 * 1024 * 1024);
    const gone = slowPost(srv, admin, '/keep.bin?override=true', next, 1024 * 1024);
    await waitFor(async () => (await readdir(srv.root)).some((n) => n.startsWith('.coffer-tmp-')));
    expect(sha256(await readFile(path.join(srv.root, 'keep.bin')))).toBe(sha256(old));
    gone.vanish();
    await waitFor(async () => !(await readdir(srv.root)).some((n) => n.startsWith('.coffer-tmp-')));
    expect(sha256(await readFile(path.join(srv.root, 'keep.bin')))).toBe(sha256(old));
    const ok = await post(srv, admin, '/keep.bin?override=true', next);
    expect(ok.status).toBe(200);
    expect(await sha256File(path.join(srv.root, 'keep.bin'))).toBe(sha256(next));
  });

  it('leaves nothing behind when a new upload is dropped half-way', async () => {
    const gone = slowPost(srv, admin, '/never.bin', bytes(2 * 1024 * 1024), 512 * 1024);
    await waitFor(async () => (await readdir(srv.root)).some((n) => n.startsWith('.coffer-tmp-')));
    gone.vanish();
    await waitFor(async () => !(await readdir(srv.root)).some((n) => n.startsWith('.coffer-tmp-')));
    expect(await exists(path.join(srv.root, 'never.bin'))).toBe(false);
  });

  it('answers 409 on an existing file without override=true, and 403 to override without modify (S11)', async () => {
    await writeFile(path.join(srv.root, 'exists.txt'), 'old');
    for (const q of ['', '?override=false', '?override=1']) expect((await post(srv, admin, `/exists.txt${q}`, 'new')).status, q).toBe(409);
    const u = await srv.createUser({ perm: { create: true, modify: false } as never });
    const token = await srv.login(u.username, u.password);
    expect((await post(srv, token, '/exists.txt?override=true', 'new')).status).toBe(403);
    expect(await readFile(path.join(srv.root, 'exists.txt'), 'utf8')).toBe('old');
    const noCreate = await srv.createUser({ perm: { create: false, modify: true } as never });
    const t2 = await srv.login(noCreate.username, noCreate.password);
    expect((await post(srv, t2, '/fresh.txt', 'x')).status).toBe(403);
    expect(await exists(path.join(srv.root, 'fresh.txt'))).toBe(false);
    expect((await post(srv, admin, '/exists.txt?override=true', 'new')).status).toBe(200);
    expect(await readFile(path.join(srv.root, 'exists.txt'), 'utf8')).toBe('new');
  });

  it('answers 403 on a rule-denied path and writes nothing (S12)', async () => {
    await mkdir(path.join(srv.root, 'private'), { recursive: true });
    const u = await srv.createUser({ perm: { create: true } as never, rules: [{ regex: false, allow: false, path: '/private', regexp: { raw: '' } }] });
    const token = await srv.login(u.username, u.password);
    expect((await post(srv, token, '/private/x.txt', 'x')).status).toBe(403);
    expect(await readdir(path.join(srv.root, 'private'))).toEqual([]);
  });

  it('creates a folder for a trailing slash', async () => {
    expect((await post(srv, admin, '/made/deep/', '')).status).toBe(200);
    expect((await stat(path.join(srv.root, 'made', 'deep'))).isDirectory()).toBe(true);
  });

  it('fires before and after upload around the write (docs/api.md §16.4)', async () => {
    const seen: string[] = [];
    const off = srv.deps.events.on((phase, event, ctx: FileEventContext) => {
      seen.push(`${phase}:${event}:${ctx.file.virtual}`);
    });
    try {
      expect((await post(srv, admin, '/evented.txt', 'e')).status).toBe(200);
      expect(seen).toEqual(['before:upload:/evented.txt', 'after:upload:/evented.txt']);
    } finally {
      off();
    }
  });
});

describe('a plain upload on a full disk', () => {
  let child: ChildServer;
  beforeAll(async () => {
    child = await childServer();
    await child.start({ fileSizeLimitKiB: 2048 });
  }, 60_000);
  afterAll(async () => {
    await child?.close();
  });

  it('fails with a 5xx, leaves no staging file and the old file untouched', async () => {
    const token = await child.login();
    const small = Buffer.from('old content');
    const first = await fetch(`${child.url}/api/resources/disk.bin`, { method: 'POST', headers: { 'X-Auth': token }, body: small });
    expect(first.status).toBe(200);
    const res = await fetch(`${child.url}/api/resources/disk.bin?override=true`, { method: 'POST', headers: { 'X-Auth': token }, body: bytes(3 * 1024 * 1024) });
    expect(res.status).toBeGreaterThanOrEqual(500);
    expect(await readFile(path.join(child.root, 'disk.bin'), 'utf8')).toBe('old content');
    expect((await readdir(child.root)).filter((n) => n.startsWith('.coffer-tmp-'))).toEqual([]);
  }, 60_000);
});
