/**
 * WebDAV bodies that barely move are cut off (--webdav-idle-timeout, features/webdav/idle.ts): a
 * PUT that trickles its bytes leaves nothing behind and the old file intact; a GET whose client
 * stopped reading has its connection and its file closed. A transfer that keeps moving is not cut.
 */
import { readdirSync, readlinkSync } from 'node:fs';
import http from 'node:http';
import { mkdir, readFile, readdir, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEMP_PREFIX } from '../src/fs/names.js';
import { ADMIN, useServer, type TestServer } from './harness.js';
import { basic, davRaw } from './webdav-helpers.js';

const PERIOD_S = 0.5;

/** A request whose body the test writes itself; `closed` settles when the connection ends (true) or after `waitMs` (false). */
function open(srv: TestServer, method: string, p: string, headers: Record<string, string>) {
  const base = new URL(srv.url);
  const req = http.request({
    host: base.hostname,
    port: base.port,
    method,
    path: base.pathname.replace(/\/$/, '') + p,
    headers: { authorization: basic(ADMIN.username, ADMIN.password), ...headers },
  });
  let status = 0;
  let settle: (v: boolean) => void = () => {};
  const closedOrTimeout = new Promise<boolean>((resolve) => (settle = resolve));
  req.on('response', (res) => {
    status = res.statusCode ?? 0;
    res.resume(); // a test that wants to stop reading pauses it in its own listener, after this one
    res.on('close', () => settle(res.complete ? false : true));
    res.on('end', () => settle(false));
  });
  req.on('error', () => settle(true));
  req.on('close', () => {
    if (!status) settle(true);
  });
  return {
    req,
    status: () => status,
    closed: (waitMs: number) => Promise.race([closedOrTimeout, new Promise<boolean>((r) => setTimeout(() => r(false), waitMs))]),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('WebDAV idle timeout', () => {
  const srv = useServer({ webdavIdleTimeout: PERIOD_S });

  it('cuts off a PUT that trickles its body: no staging file left, the old file intact', async () => {
    await writeFile(path.join(srv.root, 'slow.txt'), 'old');
    const put = open(srv, 'PUT', '/dav/slow.txt', { 'content-length': '100000' });
    let sent = 0;
    const trickle = setInterval(() => {
      if (!put.req.destroyed) put.req.write('x');
      sent++;
    }, 50);
    try {
      expect(await put.closed(8000)).toBe(true);
    } finally {
      clearInterval(trickle);
      put.req.destroy();
    }
    // A few periods' worth of single bytes went out before the cut, far fewer than the body.
    expect(sent).toBeLessThan(200);
    await sleep(200);
    expect(await readFile(path.join(srv.root, 'slow.txt'), 'utf8')).toBe('old');
    expect((await readdir(srv.root)).filter((n) => n.startsWith(TEMP_PREFIX))).toEqual([]);
  });

  it('lets a PUT through that keeps moving, over several periods', async () => {
    const chunk = Buffer.alloc(32 * 1024, 'y');
    const put = open(srv, 'PUT', '/dav/steady.bin', { 'content-length': String(chunk.length * 8) });
    for (let i = 0; i < 8; i++) {
      put.req.write(chunk);
      await sleep(150); // 8 × 150 ms: more than two periods, 32 KiB every 150 ms
    }
    put.req.end();
    expect(await put.closed(8000)).toBe(false);
    expect(put.status()).toBe(201);
    expect((await readFile(path.join(srv.root, 'steady.bin'))).length).toBe(chunk.length * 8);
  });

  // PROPFIND, PROPPATCH and LOCK read an XML body too (up to 1 MiB for PROPPATCH): one trickled a
  // byte at a time held its connection for as long as the client liked (no request timeout).
  for (const method of ['PROPFIND', 'PROPPATCH', 'LOCK']) {
    it(`cuts off a ${method} that trickles its XML body`, async () => {
      await writeFile(path.join(srv.root, 'props.txt'), 'p');
      const req = open(srv, method, '/dav/props.txt', { 'content-type': 'application/xml', 'content-length': '60000', depth: '0' });
      req.req.write('<?xml version="1.0" encoding="utf-8"?>');
      const trickle = setInterval(() => {
        if (!req.req.destroyed) req.req.write(' ');
      }, 50);
      try {
        expect(await req.closed(8000)).toBe(true);
      } finally {
        clearInterval(trickle);
        req.req.destroy();
      }
    });
  }

  it('cuts off a PROPFIND whose client stopped reading the answer', async () => {
    const dir = path.join(srv.root, 'many');
    await mkdir(dir);
    for (let i = 0; i < 3000; i++) await writeFile(path.join(dir, String(i)), '');
    // Shared locks on the folder, each with a long owner, are repeated in every member's answer:
    // tens of MiB, more than the connection's buffers hold.
    for (let i = 0; i < 5; i++) {
      const body = `<?xml version="1.0" encoding="utf-8"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:shared/></D:lockscope><D:locktype><D:write/></D:locktype><D:owner>${'o'.repeat(4000)}</D:owner></D:lockinfo>`;
      const lock = await davRaw(srv, 'LOCK', '/dav/many/', { auth: ADMIN, headers: { 'content-type': 'application/xml', depth: 'infinity' }, body });
      expect(lock.status).toBe(200);
    }
    // The client stops reading for a few periods, then reads what is left: a cut answer ends
    // early (the server's end of the connection was closed meanwhile), a whole one would not.
    const base = new URL(srv.url);
    const outcome = await new Promise<{ complete: boolean; tail: string }>((resolve, reject) => {
      const req = http.request(
        { host: base.hostname, port: base.port, method: 'PROPFIND', path: base.pathname.replace(/\/$/, '') + '/dav/many/', headers: { authorization: basic(ADMIN.username, ADMIN.password), depth: '1' } },
        (res) => {
          expect(res.statusCode).toBe(207);
          let tail = '';
          res.on('data', (c: Buffer) => (tail = (tail + c.toString('latin1')).slice(-64)));
          res.pause();
          setTimeout(() => res.resume(), PERIOD_S * 1000 * 6);
          const done = () => resolve({ complete: res.complete, tail });
          res.on('end', done);
          res.on('close', done);
          res.on('error', done);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(outcome.complete).toBe(false);
    expect(outcome.tail).not.toContain('</D:multistatus>');
  });

  it('cuts off a GET whose client stopped reading, and closes the file', async () => {
    const big = path.join(srv.root, 'big.bin');
    await writeFile(big, Buffer.alloc(64 * 1024 * 1024, 'z'));
    const real = await realpath(big);
    // The server runs in this process: its descriptors on the file are ours to see.
    const openOnIt = () =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`) === real;
        } catch {
          return false;
        }
      }).length;
    const get = open(srv, 'GET', '/dav/big.bin', {});
    const answered = new Promise<void>((resolve) =>
      get.req.on('response', (res) => {
        res.pause(); // reads nothing more: the connection's buffers fill and the server waits
        resolve();
      }),
    );
    get.req.end();
    try {
      await answered;
      expect(get.status()).toBe(200);
      expect(openOnIt()).toBe(1);
      // Closed within a few periods (not at once: a client may pause for less than a period).
      const t0 = Date.now();
      while (openOnIt() > 0 && Date.now() - t0 < 10_000) await sleep(100);
      expect(openOnIt()).toBe(0);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(PERIOD_S * 1000 - 100);
    } finally {
      get.req.destroy();
    }
  });
});

describe('WebDAV idle timeout while the server is not reading', () => {
  const srv = useServer({ webdavIdleTimeout: PERIOD_S, disableExec: false });

  it('does not cut off a PUT whose body waits for a before_upload hook', async () => {
    const s = await srv.deps.settings.settings();
    await srv.deps.settings.saveSettings({ ...s, commands: { ...s.commands, before_upload: [`sleep ${PERIOD_S * 5}`] } });
    try {
      // Larger than what the connection's buffers take in while the hook runs.
      const body = Buffer.alloc(32 * 1024 * 1024, 'h');
      const put = open(srv, 'PUT', '/dav/hooked.bin', { 'content-length': String(body.length) });
      put.req.end(body);
      expect(await put.closed(20_000)).toBe(false);
      expect(put.status()).toBe(201);
      expect((await readFile(path.join(srv.root, 'hooked.bin'))).length).toBe(body.length);
    } finally {
      await srv.deps.settings.saveSettings(s);
    }
  });
});
