/**
 * How many archive downloads run at once (--archive-downloads-per-user, --archive-downloads) over
 * real HTTP: slow-reading clients hold archives open; past the limit per user (per client address
 * on public links) or in total the next download is 429 with Retry-After and an empty body; a slot
 * comes back when a download finishes, when its client goes away and when it fails mid-stream.
 * Runs on SQLite, and on PostgreSQL with COFFER_TEST_PG_URL.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, truncate, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useServer, type TestServer } from './harness.js';
import { actor, share, type Actor } from './shares-support.js';

/** A download whose client reads nothing until told to: the archive stalls with its buffers full. */
interface Held {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Reads the rest; resolves with the byte count at the end, rejects when the server cuts it. */
  drain(): Promise<number>;
  /** The client goes away. */
  close(): void;
}

/** Resolves at the answer's head, or with `firstBytes` once the first body bytes arrived. */
function open(srv: TestServer, p: string, token?: string, opts: { firstBytes?: boolean; headers?: Record<string, string> } = {}): Promise<Held> {
  const u = new URL(srv.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname.replace(/\/$/, '') + p, headers: { ...(token ? { 'X-Auth': token } : {}), ...opts.headers } }, (res) => {
      const held = (): Held => ({
        status: res.statusCode ?? 0,
        headers: res.headers,
        drain: () =>
          new Promise<number>((done, fail) => {
            let bytes = 0;
            res.on('data', (c: Buffer) => (bytes += c.length));
            res.on('end', () => done(bytes));
            res.on('error', fail);
            res.on('aborted', () => fail(new Error('cut')));
            res.resume();
          }),
        close: () => req.destroy(),
      });
      if (!opts.firstBytes) {
        res.pause();
        resolve(held());
        return;
      }
      res.once('data', () => {
        res.pause();
        resolve(held());
      });
    });
    req.on('error', (err) => {
      if ((err as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(err);
    });
    req.end();
  });
}

async function until(what: string, ok: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await ok()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function expectRefused(srv: TestServer, p: string, token?: string): Promise<void> {
  const res = await open(srv, p, token);
  expect(res.status, p).toBe(429);
  expect(res.headers['retry-after'], p).toMatch(/^[1-9]\d*$/);
  expect(res.headers['content-disposition'], p).toBeUndefined();
  expect(await res.drain(), p).toBe(0);
}

/** A new user's download of `p` whose client reads nothing is cut after the stall time and gives its slot back. */
async function expectCutWhenStalled(srv: TestServer, p: string): Promise<void> {
  const a = await actor(srv);
  srv.deps.archiveSlots.stallMs = 400;
  try {
    const held = await open(srv, p, a.token);
    expect(held.status).toBe(200);
    expect(srv.deps.archiveSlots.active).toBe(1);
    await until('the stalled download to be cut', () => srv.deps.archiveSlots.active === 0);
    await expect(held.drain()).rejects.toThrow();
  } finally {
    srv.deps.archiveSlots.stallMs = 60_000;
  }
}

/** 64 MiB (sparse): far more than the socket buffers, so a stalled download stays open. */
const BIG = 64 * 1024 * 1024;
const HELD = '/api/raw/big/?algo=tar';
const SMALL = '/api/raw/small/?algo=zip';

describe('archive download limits', () => {
  const srv = useServer({ archiveDownloadsPerUser: 2, archiveDownloads: 3 });
  let alice: Actor;
  let bob: Actor;
  let carol: Actor;
  let shareHash: string;
  const active = () => srv.deps.archiveSlots.active;

  beforeAll(async () => {
    await mkdir(path.join(srv.root, 'big'), { recursive: true });
    await writeFile(path.join(srv.root, 'big', 'zeros.bin'), '');
    await truncate(path.join(srv.root, 'big', 'zeros.bin'), BIG);
    await mkdir(path.join(srv.root, 'small'), { recursive: true });
    await writeFile(path.join(srv.root, 'small', 'a.txt'), 'hello');
    [alice, bob, carol] = await Promise.all([actor(srv.get()), actor(srv.get()), actor(srv.get())]);
    shareHash = (await share(srv.get(), alice, '/big/')).hash;
  });

  it('refuses a user\'s third download at once with 429 and Retry-After; one that finishes gives its slot back', async () => {
    const a1 = await open(srv.get(), HELD, alice.token);
    const a2 = await open(srv.get(), HELD, alice.token);
    expect([a1.status, a2.status]).toEqual([200, 200]);
    await expectRefused(srv.get(), SMALL, alice.token);
    await expectRefused(srv.get(), HELD, alice.token);
    // HEAD streams nothing and takes no slot.
    expect((await srv.fetch(HELD, { method: 'HEAD', token: alice.token })).status).toBe(200);
    // Another user still has room (the total is 3).
    const b1 = await open(srv.get(), SMALL, bob.token);
    expect(b1.status).toBe(200);
    expect(await b1.drain()).toBeGreaterThan(0);
    // a2 is read to its end: its slot comes back.
    expect(await a2.drain()).toBeGreaterThan(BIG);
    await until('a finished download to give its slot back', () => active() === 1);
    const a3 = await open(srv.get(), HELD, alice.token);
    expect(a3.status).toBe(200);
    a1.close();
    a3.close();
    await until('all slots back', () => active() === 0);
  });

  it('refuses every download past the total, public links included, until one ends', async () => {
    const held = [await open(srv.get(), HELD, bob.token), await open(srv.get(), HELD, bob.token), await open(srv.get(), HELD, carol.token)];
    expect(held.map((h) => h.status)).toEqual([200, 200, 200]);
    expect(active()).toBe(3);
    await expectRefused(srv.get(), SMALL, carol.token); // carol has one of her two, but the server is full
    await expectRefused(srv.get(), `/api/public/dl/${shareHash}?algo=tar`);
    held.pop()!.close(); // carol's client goes away
    await until('the aborted download to give its slot back', () => active() === 2);
    const visitor = await open(srv.get(), `/api/public/dl/${shareHash}?algo=tar`);
    expect(visitor.status).toBe(200);
    await expectRefused(srv.get(), SMALL, carol.token);
    for (const h of [...held, visitor]) h.close();
    await until('all slots back', () => active() === 0);
  });

  it('counts public-link visitors by client address', async () => {
    const v1 = await open(srv.get(), `/api/public/dl/${shareHash}?algo=tar`);
    const v2 = await open(srv.get(), `/api/public/dl/${shareHash}/?algo=zip`);
    expect([v1.status, v2.status]).toEqual([200, 200]);
    await expectRefused(srv.get(), `/api/public/dl/${shareHash}?algo=tar`);
    // The owner's own downloads are not the visitors' (the total still has one free).
    const own = await open(srv.get(), SMALL, alice.token);
    expect(own.status).toBe(200);
    await own.drain();
    v1.close();
    v2.close();
    await until('all slots back', () => active() === 0);
  });

  it('gives the slots back when clients go away and when an archive fails mid-stream', async () => {
    for (let round = 0; round < 3; round++) {
      const held = [await open(srv.get(), HELD, alice.token), await open(srv.get(), HELD, alice.token)];
      expect(held.map((h) => h.status)).toEqual([200, 200]);
      for (const h of held) h.close();
      await until('aborted downloads to give their slots back', () => active() === 0);
    }
    // A file that shrinks while it is archived: the server cuts the connection (S57).
    const file = path.join(srv.root, 'shrink', 'huge.bin');
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, '');
    await truncate(file, BIG);
    // Its first bytes (the entry's header, with the size it had) are out before it shrinks.
    const failing = await open(srv.get(), '/api/raw/shrink/?algo=tar', alice.token, { firstBytes: true });
    expect(failing.status).toBe(200);
    expect(active()).toBe(1);
    await truncate(file, 1024 * 1024);
    await expect(failing.drain()).rejects.toThrow();
    await until('the failed download to give its slot back', () => active() === 0);
    const again = [await open(srv.get(), HELD, alice.token), await open(srv.get(), HELD, alice.token)];
    expect(again.map((h) => h.status)).toEqual([200, 200]);
    for (const h of again) h.close();
    await until('all slots back', () => active() === 0);
  });
});

describe('archive download limits: 0 means none', () => {
  const srv = useServer({ archiveDownloadsPerUser: 0, archiveDownloads: 0 });

  it('runs any number of downloads at once', async () => {
    await mkdir(path.join(srv.root, 'big'), { recursive: true });
    await writeFile(path.join(srv.root, 'big', 'zeros.bin'), '');
    await truncate(path.join(srv.root, 'big', 'zeros.bin'), BIG);
    const token = await srv.login();
    const held = await Promise.all(Array.from({ length: 12 }, () => open(srv.get(), HELD, token)));
    expect(held.map((h) => h.status)).toEqual(Array(12).fill(200));
    for (const h of held) h.close();
    await until('all slots back', () => srv.deps.archiveSlots.active === 0);
  });
});

describe('archive downloads: clients that never read, and IPv6 visitors', () => {
  const srv = useServer({ archiveDownloadsPerUser: 2, archiveDownloads: 8, trustedProxies: ['127.0.0.1'] });
  const active = () => srv.deps.archiveSlots.active;

  beforeAll(async () => {
    await mkdir(path.join(srv.root, 'big'), { recursive: true });
    await writeFile(path.join(srv.root, 'big', 'zeros.bin'), '');
    await truncate(path.join(srv.root, 'big', 'zeros.bin'), BIG);
  });

  it('cuts a download whose client reads nothing for the stall time and gives its slot back', async () => {
    await expectCutWhenStalled(srv.get(), HELD);
  });

  it('counts public-link visitors of one IPv6 /64 as one address', async () => {
    const a = await actor(srv.get());
    const hash = (await share(srv.get(), a, '/big/')).hash;
    const from = (ip: string) => ({ headers: { 'X-Forwarded-For': ip } });
    const v1 = await open(srv.get(), `/api/public/dl/${hash}?algo=tar`, undefined, from('2001:db8:1:2::1'));
    const v2 = await open(srv.get(), `/api/public/dl/${hash}?algo=tar`, undefined, from('2001:db8:1:2::2'));
    expect([v1.status, v2.status]).toEqual([200, 200]);
    const v3 = await open(srv.get(), `/api/public/dl/${hash}?algo=tar`, undefined, from('2001:db8:1:2:ffff::3'));
    expect(v3.status).toBe(429);
    await v3.drain();
    const other = await open(srv.get(), `/api/public/dl/${hash}?algo=tar`, undefined, from('2001:db8:1:3::1'));
    expect(other.status).toBe(200);
    for (const h of [v1, v2, other]) h.close();
    await until('all slots back', () => active() === 0);
  });
});

describe('looking inside archives takes the same slots (docs/api.md §18 E13)', () => {
  // A listing or an entry download holds a decompressor (xz: up to 256 MiB) and reads the archive
  // as far as it must: without a slot, one user could run any number at once and never read.
  const srv = useServer({ archiveDownloadsPerUser: 2, archiveDownloads: 3 });
  const active = () => srv.deps.archiveSlots.active;
  const ENTRY = '/api/archive-entry/ar/big.tar?name=zeros.bin';
  const LIST = '/api/archive-entries/ar/big.tar';

  beforeAll(async () => {
    const src = path.join(srv.root, 'ar-src');
    await mkdir(src, { recursive: true });
    await writeFile(path.join(src, 'zeros.bin'), '');
    await truncate(path.join(src, 'zeros.bin'), BIG);
    await mkdir(path.join(srv.root, 'ar'), { recursive: true });
    execFileSync('tar', ['-C', src, '-cf', path.join(srv.root, 'ar', 'big.tar'), 'zeros.bin']);
  });

  it("refuses a user's third listing or entry download with 429 while two are held; they give their slots back", async () => {
    const a = await actor(srv.get());
    const held = [await open(srv.get(), ENTRY, a.token), await open(srv.get(), ENTRY, a.token)];
    expect(held.map((h) => h.status)).toEqual([200, 200]);
    expect(active()).toBe(2);
    await expectRefused(srv.get(), LIST, a.token);
    await expectRefused(srv.get(), ENTRY, a.token);
    await expectRefused(srv.get(), '/api/raw/ar/?algo=zip', a.token);
    // Another user is counted apart, within the total.
    const b = await actor(srv.get());
    const list = await open(srv.get(), LIST, b.token);
    expect(list.status).toBe(200);
    expect(await list.drain()).toBeGreaterThan(0);
    for (const h of held) h.close();
    await until('the entry downloads to give their slots back', () => active() === 0);
    const again = await open(srv.get(), ENTRY, a.token);
    expect(again.status).toBe(200);
    expect(await again.drain()).toBe(BIG);
    await until('all slots back', () => active() === 0);
  });

  it('cuts an entry download whose client reads nothing for the stall time and gives its slot back', async () => {
    await expectCutWhenStalled(srv.get(), ENTRY);
  });
});
