/**
 * Uploads that survive what happens to them: the server killed (SIGKILL) and restarted mid-upload,
 * the machine crashing under it, bytes another machine answered but has not synced, the client
 * vanishing mid-chunk, a token expiring half-way, a full disk mid-chunk, and the upload events
 * (docs/api.md §13, §16, S50–S52). Every result is checked byte for byte by sha256.
 * Runs on SQLite, and on PostgreSQL with COFFER_TEST_PG_URL.
 */
import http from 'node:http';
import { lstat, open, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileEventContext } from '../src/events/index.js';
import { ADMIN, useServer, type TestServer } from './harness.js';
import { childServer, type ChildServer } from './tus-child.js';
import { bytes, sha256, sha256File, startUpload } from './tus-support.js';

const TUS = { 'Tus-Resumable': '1.0.0' };
const OCTETS = 'application/offset+octet-stream';
const MiB = 1024 * 1024;
/** A boot id no running kernel has: the writer of bytes from before a crash. */
const OTHER_KERNEL = 'boot:00000000-0000-4000-8000-000000000000';

async function exists(p: string): Promise<boolean> {
  return lstat(p).then(
    () => true,
    () => false,
  );
}

async function stagedIn(dataParent: string): Promise<string[]> {
  return readdir(path.join(dataParent, 'coffer-data', 'uploads')).catch(() => []);
}

async function headOffset(base: string, token: string, p: string): Promise<{ status: number; offset: number }> {
  const res = await fetch(`${base}/api/tus${p}`, { method: 'HEAD', headers: { ...TUS, 'X-Auth': token } });
  return { status: res.status, offset: Number(res.headers.get('upload-offset')) };
}

async function waitFor(cond: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('a server killed mid-upload', () => {
  let child: ChildServer;
  beforeAll(async () => {
    child = await childServer();
    await child.start();
  }, 60_000);
  afterAll(async () => {
    await child?.close();
  });

  it('resumes after SIGKILL and a restart; the file arrives byte for byte and never half', async () => {
    const token = await child.login();
    const data = bytes(24 * 1024 * 1024);
    // Retries as the settings give them (8 → delays up to 20 s): room for a slow restart.
    const tus = { chunkSize: 1024 * 1024, retryCount: 8 };
    let killedAt = -1;
    let restarted: Promise<void> | undefined;
    const run = startUpload({
      url: child.url,
      token,
      path: '/killed/big.bin',
      source: data,
      tus,
      onChunk: (offset) => {
        if (killedAt < 0 && offset >= 6 * 1024 * 1024) {
          killedAt = offset;
          // Kill during the next chunk, then bring the server back on the same port.
          restarted = new Promise<void>((r) => setTimeout(r, 15)).then(async () => {
            await child.kill();
            expect(await exists(path.join(child.root, 'killed', 'big.bin'))).toBe(false);
            await child.start();
          });
        }
      },
    });
    await run.done;
    await restarted;
    expect(killedAt).toBeGreaterThan(0);
    expect(await sha256File(path.join(child.root, 'killed', 'big.bin'))).toBe(sha256(data));
    expect(await stagedIn(child.dir)).toEqual([]);
  }, 120_000);

  it('resumes an upload interrupted by the kill from a new client (page reload after the restart)', async () => {
    const token = await child.login();
    const data = bytes(6 * 1024 * 1024);
    const tus = { chunkSize: 512 * 1024, retryCount: 0 };
    const first = startUpload({ url: child.url, token, path: '/reload-after-kill.bin', source: data, tus });
    const failed = first.done.then(
      () => 'done',
      () => 'failed',
    );
    await waitFor(() => first.chunks.length >= 3);
    await child.kill();
    expect(await failed).toBe('failed');
    await child.start();
    const h = await headOffset(child.url, token, '/reload-after-kill.bin');
    expect(h.status).toBe(200);
    expect(h.offset).toBeGreaterThanOrEqual(3 * 512 * 1024);
    const second = startUpload({
      url: child.url,
      token,
      path: '/reload-after-kill.bin',
      source: data,
      tus,
      uploadUrl: `${child.url}/api/tus/reload-after-kill.bin`,
    });
    await second.done;
    expect(await sha256File(path.join(child.root, 'reload-after-kill.bin'))).toBe(sha256(data));
  }, 120_000);
});

describe('a machine crash mid-upload', () => {
  let child: ChildServer;
  beforeAll(async () => {
    child = await childServer();
    await child.start();
  }, 60_000);
  afterAll(async () => {
    await child?.close();
  });

  it('resumes from the bytes known to be synced, never from what the crash left; the file arrives byte for byte', async () => {
    const token = await child.login();
    const data = bytes(8 * MiB);
    const tus = { chunkSize: 512 * 1024, retryCount: 0 };
    const first = startUpload({ url: child.url, token, path: '/crashed.bin', source: data, tus });
    const failed = first.done.then(
      () => 'done',
      () => 'failed',
    );
    await waitFor(() => first.chunks.length >= 6);
    await child.kill();
    expect(await failed).toBe('failed');
    const [id] = await stagedIn(child.dir);
    expect(id).toBeDefined();
    const staged = path.join(child.dir, 'coffer-data', 'uploads', id!);
    const size = (await stat(staged)).size;
    expect(size).toBeGreaterThanOrEqual(6 * 512 * 1024);
    // What a crash of the kernel can leave behind: a new boot (the row's writer is the kernel
    // before), the records of the last syncs lost, unsynced bytes turned to zeros, and junk
    // past the end of what was written.
    const durable = await child.withDb(async (db) => {
      const row = await db.kysely.selectFrom('uploads').select(['upload_offset', 'writer']).where('id', '=', id!).executeTakeFirstOrThrow();
      expect(row.writer).toMatch(/^(boot|process):/);
      const kept = Math.min(Number(row.upload_offset), 2 * 512 * 1024);
      await db.kysely.updateTable('uploads').set({ writer: OTHER_KERNEL, upload_offset: kept }).where('id', '=', id!).execute();
      return kept;
    });
    const fh = await open(staged, 'r+');
    await fh.write(Buffer.alloc(size - durable), 0, size - durable, durable);
    await fh.write(Buffer.alloc(MiB, 0xff), 0, MiB, size);
    await fh.close();
    await child.start();
    expect(await headOffset(child.url, token, '/crashed.bin')).toEqual({ status: 200, offset: durable });
    await startUpload({ url: child.url, token, path: '/crashed.bin', source: data, tus, uploadUrl: `${child.url}/api/tus/crashed.bin` }).done;
    expect(await sha256File(path.join(child.root, 'crashed.bin'))).toBe(sha256(data));
    expect(await stagedIn(child.dir)).toEqual([]);
  }, 120_000);
});

describe('bytes another machine answered but has not synced yet', () => {
  const srv = useServer();
  const staged = (id: string) => path.join(path.dirname(srv.root), 'coffer-data', 'uploads', id);
  const row = async (virtualPath: string) =>
    srv.deps.db.kysely.selectFrom('uploads').select(['id', 'upload_offset', 'writer']).where('virtual_path', '=', virtualPath).executeTakeFirstOrThrow();
  const patch = (token: string, p: string, data: Buffer, from: number, to: number) =>
    srv.fetch(`/api/tus${p}`, { method: 'PATCH', token, headers: { ...TUS, 'Content-Type': OCTETS, 'Upload-Offset': String(from) }, body: data.subarray(from, to) });

  /** Two chunks sent; then the second is made to look written by another kernel whose sync has not landed. */
  async function handOver(token: string, p: string, data: Buffer): Promise<string> {
    expect((await srv.fetch(`/api/tus${p}`, { method: 'POST', token, headers: { ...TUS, 'Upload-Length': String(data.length) } })).status).toBe(201);
    expect((await patch(token, p, data, 0, MiB)).status).toBe(204);
    const second = await patch(token, p, data, MiB, 2 * MiB);
    expect(second.status).toBe(204);
    expect(second.headers.get('upload-offset')).toBe(String(2 * MiB));
    const { id } = await row(p);
    // This server's own syncs are recorded in the background.
    await waitFor(async () => Number((await row(p)).upload_offset) === 2 * MiB);
    expect((await row(p)).writer).toMatch(/^(boot|process):/);
    await srv.deps.db.kysely.updateTable('uploads').set({ writer: OTHER_KERNEL, upload_offset: MiB }).where('id', '=', id).execute();
    return id;
  }

  it('waits for that machine to record them as synced, then continues', async () => {
    const token = await srv.login();
    const data = bytes(3 * MiB);
    const id = await handOver(token, '/confirmed.bin', data);
    expect((await headOffset(srv.url, token, '/confirmed.bin')).offset).toBe(MiB);
    const confirm = setTimeout(() => void srv.deps.db.kysely.updateTable('uploads').set({ upload_offset: 2 * MiB }).where('id', '=', id).execute(), 300);
    try {
      const last = await patch(token, '/confirmed.bin', data, 2 * MiB, 3 * MiB);
      expect(last.status).toBe(204);
    } finally {
      clearTimeout(confirm);
    }
    expect(await sha256File(path.join(srv.root, 'confirmed.bin'))).toBe(sha256(data));
  });

  it('answers 423 when they stay unconfirmed; the retry starts from the synced offset and cuts the rest away', async () => {
    const token = await srv.login();
    const data = bytes(3 * MiB);
    const id = await handOver(token, '/unconfirmed.bin', data);
    // The unconfirmed bytes are junk now, as a crash of that machine could leave them.
    const fh = await open(staged(id), 'r+');
    await fh.write(Buffer.alloc(MiB, 0xee), 0, MiB, MiB);
    await fh.close();
    const t0 = Date.now();
    expect((await patch(token, '/unconfirmed.bin', data, 2 * MiB, 3 * MiB)).status).toBe(423);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1500);
    expect(await headOffset(srv.url, token, '/unconfirmed.bin')).toEqual({ status: 200, offset: MiB });
    await startUpload({
      url: srv.url,
      token,
      path: '/unconfirmed.bin',
      source: data,
      tus: { chunkSize: MiB, retryCount: 0 },
      uploadUrl: `${srv.url}/api/tus/unconfirmed.bin`,
    }).done;
    expect(await sha256File(path.join(srv.root, 'unconfirmed.bin'))).toBe(sha256(data));
  });
});

describe('a full disk mid-upload', () => {
  let child: ChildServer;
  beforeAll(async () => {
    child = await childServer();
    // Files may not grow past 2 MiB in this process: writes beyond fail like a full disk.
    await child.start({ fileSizeLimitKiB: 2048 });
  }, 60_000);
  afterAll(async () => {
    await child?.close();
  });

  it('answers 507 for the chunk, keeps the upload at its old offset and the target untouched', async () => {
    const token = await child.login();
    const data = bytes(3 * 1024 * 1024);
    const post = await fetch(`${child.url}/api/tus/full.bin`, { method: 'POST', headers: { ...TUS, 'X-Auth': token, 'Upload-Length': String(data.length) } });
    expect(post.status).toBe(201);
    const ok = await fetch(`${child.url}/api/tus/full.bin`, {
      method: 'PATCH',
      headers: { ...TUS, 'X-Auth': token, 'Content-Type': OCTETS, 'Upload-Offset': '0' },
      body: data.subarray(0, 1024 * 1024),
    });
    expect(ok.status).toBe(204);
    const full = await fetch(`${child.url}/api/tus/full.bin`, {
      method: 'PATCH',
      headers: { ...TUS, 'X-Auth': token, 'Content-Type': OCTETS, 'Upload-Offset': String(1024 * 1024) },
      body: data.subarray(1024 * 1024),
    });
    expect(full.status).toBe(507);
    expect((await headOffset(child.url, token, '/full.bin')).offset).toBe(1024 * 1024);
    expect(await exists(path.join(child.root, 'full.bin'))).toBe(false);
    const del = await fetch(`${child.url}/api/tus/full.bin`, { method: 'DELETE', headers: { ...TUS, 'X-Auth': token } });
    expect(del.status).toBe(204);
    expect(await stagedIn(child.dir)).toEqual([]);
  }, 60_000);
});

/** Sends `part` of a PATCH that declares `declared` bytes, then drops the connection. */
function vanishingPatch(srv: TestServer, token: string, p: string, offset: number, declared: number, part: Buffer): Promise<void> {
  const u = new URL(srv.url);
  return new Promise((resolve) => {
    const req = http.request({
      host: u.hostname,
      port: u.port,
      method: 'PATCH',
      path: `/api/tus${p}`,
      headers: { ...TUS, 'X-Auth': token, 'Content-Type': OCTETS, 'Upload-Offset': String(offset), 'Content-Length': String(declared) },
    });
    req.on('error', () => resolve());
    req.write(part, () => {
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 100);
    });
  });
}

describe('a client vanishing mid-chunk', () => {
  const srv = useServer();
  it('keeps what arrived, lets the client resume from there, never shows a half file', async () => {
    const token = await srv.login();
    const data = bytes(3_000_000);
    const post = await srv.fetch('/api/tus/vanish.bin', { method: 'POST', token, headers: { ...TUS, 'Upload-Length': String(data.length) } });
    expect(post.status).toBe(201);
    await vanishingPatch(srv, token, '/vanish.bin', 0, 2_000_000, data.subarray(0, 1_200_000));
    let offset = 0;
    await waitFor(async () => {
      offset = (await headOffset(srv.url, token, '/vanish.bin')).offset;
      return offset > 0;
    });
    expect(offset).toBeLessThanOrEqual(1_200_000);
    expect(await exists(path.join(srv.root, 'vanish.bin'))).toBe(false);
    // As a tus client does: the vanished chunk's handler may still record a sync after our HEAD
    // (it has not noticed the client is gone), so the offset can move on once — 409, HEAD again.
    let rest: Response | undefined;
    for (let attempt = 0; attempt < 5; attempt++) {
      if (attempt > 0) offset = (await headOffset(srv.url, token, '/vanish.bin')).offset;
      expect(offset).toBeLessThanOrEqual(1_200_000);
      rest = await srv.fetch('/api/tus/vanish.bin', {
        method: 'PATCH',
        token,
        headers: { ...TUS, 'Content-Type': OCTETS, 'Upload-Offset': String(offset) },
        body: data.subarray(offset),
      });
      if (rest.status !== 409) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(rest!.status).toBe(204);
    expect(await sha256File(path.join(srv.root, 'vanish.bin'))).toBe(sha256(data));
  });

  it('lets a new PATCH take over from one whose client is gone but whose socket is still open', async () => {
    const token = await srv.login();
    const data = bytes(1_000_000);
    expect((await srv.fetch('/api/tus/stuck.bin', { method: 'POST', token, headers: { ...TUS, 'Upload-Length': String(data.length) } })).status).toBe(201);
    // A chunk that declares everything, sends a little and then stalls without closing.
    const u = new URL(srv.url);
    const stalled = http.request({
      host: u.hostname,
      port: u.port,
      method: 'PATCH',
      path: '/api/tus/stuck.bin',
      headers: { ...TUS, 'X-Auth': token, 'Content-Type': OCTETS, 'Upload-Offset': '0', 'Content-Length': String(data.length) },
    });
    stalled.on('error', () => undefined);
    stalled.write(data.subarray(0, 100_000));
    await waitFor(async () => (await headOffset(srv.url, token, '/stuck.bin')).status === 200);
    await new Promise((r) => setTimeout(r, 100));
    // The retry asks the stalled request to stop, then finds the offset it left.
    let offset = -1;
    await waitFor(async () => {
      const res = await srv.fetch('/api/tus/stuck.bin', { method: 'PATCH', token, headers: { ...TUS, 'Content-Type': OCTETS, 'Upload-Offset': '0' }, body: Buffer.alloc(0) });
      if (res.status === 204) offset = Number(res.headers.get('upload-offset'));
      const h = await headOffset(srv.url, token, '/stuck.bin');
      offset = h.offset;
      return res.status === 409 || res.status === 204;
    });
    const rest = await srv.fetch('/api/tus/stuck.bin', {
      method: 'PATCH',
      token,
      headers: { ...TUS, 'Content-Type': OCTETS, 'Upload-Offset': String(offset) },
      body: data.subarray(offset),
    });
    expect(rest.status).toBe(204);
    expect(await sha256File(path.join(srv.root, 'stuck.bin'))).toBe(sha256(data));
    stalled.destroy();
  });
});

describe('a token that expires half-way', () => {
  const srv = useServer({ tokenExpirationTime: 2 });
  it('finishes the upload its session created, and nothing else', async () => {
    const token = await srv.login();
    const other = await srv.login();
    const data = bytes(200_000);
    expect((await srv.fetch('/api/tus/long.bin', { method: 'POST', token, headers: { ...TUS, 'Upload-Length': String(data.length) } })).status).toBe(201);
    expect((await srv.fetch('/api/tus/other.bin', { method: 'POST', token, headers: { ...TUS, 'Upload-Length': '10' } })).status).toBe(201);
    const first = await srv.fetch('/api/tus/long.bin', { method: 'PATCH', token, headers: { ...TUS, 'Content-Type': OCTETS, 'Upload-Offset': '0' }, body: data.subarray(0, 100_000) });
    expect(first.status).toBe(204);
    await new Promise((r) => setTimeout(r, 3100));
    // The token is expired for everything else…
    expect((await srv.fetch('/api/resources/', { token })).status).toBe(401);
    expect((await srv.fetch('/api/tus/new.bin', { method: 'POST', token, headers: { ...TUS, 'Upload-Length': '1' } })).status).toBe(401);
    // …and an expired token of another session cannot touch this upload.
    expect((await headOffset(srv.url, other, '/long.bin')).status).toBe(401);
    // The upload's own token continues it.
    expect((await headOffset(srv.url, token, '/long.bin')).offset).toBe(100_000);
    const rest = await srv.fetch('/api/tus/long.bin', { method: 'PATCH', token, headers: { ...TUS, 'Content-Type': OCTETS, 'Upload-Offset': '100000' }, body: data.subarray(100_000) });
    expect(rest.status).toBe(204);
    expect(await sha256File(path.join(srv.root, 'long.bin'))).toBe(sha256(data));
  });

  it('refuses a token revoked by logout even though it has not expired', async () => {
    const token = await srv.login();
    expect((await srv.fetch('/api/tus/revoked.bin', { method: 'POST', token, headers: { ...TUS, 'Upload-Length': '10' } })).status).toBe(201);
    expect((await srv.fetch('/api/logout', { method: 'POST', token })).status).toBe(204);
    expect((await headOffset(srv.url, token, '/revoked.bin')).status).toBe(401);
  });

  it('refuses, once expired, the token of a session ended by logout, a password change or deleting the user', async () => {
    /** A new session of a new user with 5 of its upload's 10 bytes sent. */
    async function halfUpload(name: string) {
      const user = await srv.createUser();
      const token = await srv.login(user.username, user.password);
      expect((await srv.fetch(`/api/tus/${name}`, { method: 'POST', token, headers: { ...TUS, 'Upload-Length': '10' } })).status).toBe(201);
      const first = await srv.fetch(`/api/tus/${name}`, { method: 'PATCH', token, headers: { ...TUS, 'Content-Type': OCTETS, 'Upload-Offset': '0' }, body: Buffer.from('12345') });
      expect(first.status).toBe(204);
      return { user, token };
    }
    const loggedOut = await halfUpload('ended-logout.bin');
    expect((await srv.fetch('/api/logout', { method: 'POST', token: loggedOut.token })).status).toBe(204);
    const changed = await halfUpload('ended-password.bin');
    const deleted = await halfUpload('ended-user.bin');
    await new Promise((r) => setTimeout(r, 3100));
    // Ended after their tokens expired, by an admin with a fresh session.
    const admin = await srv.login();
    const change = { what: 'user', which: ['password'], current_password: ADMIN.password, data: { id: changed.user.id, password: 'changed-password-77' } };
    expect((await srv.fetch(`/api/users/${changed.user.id}`, { method: 'PUT', token: admin, json: change })).status).toBe(200);
    expect((await srv.fetch(`/api/users/${deleted.user.id}`, { method: 'DELETE', token: admin, json: { current_password: ADMIN.password } })).status).toBe(200);
    for (const [{ token }, name] of [[loggedOut, 'ended-logout.bin'], [changed, 'ended-password.bin'], [deleted, 'ended-user.bin']] as const) {
      expect((await headOffset(srv.url, token, `/${name}`)).status).toBe(401);
      const rest = await srv.fetch(`/api/tus/${name}`, { method: 'PATCH', token, headers: { ...TUS, 'Content-Type': OCTETS, 'Upload-Offset': '5' }, body: Buffer.from('67890') });
      expect(rest.status).toBe(401);
      expect((await srv.fetch(`/api/tus/${name}`, { method: 'DELETE', token })).status).toBe(401);
      expect(await exists(path.join(srv.root, name))).toBe(false);
    }
  });
});

describe('upload events (docs/api.md §16.4, §16.5)', () => {
  const srv = useServer();
  it('fires before and after upload on completion; their failures do not change the answer', async () => {
    const token = await srv.login();
    const seen: string[] = [];
    const off = srv.deps.events.on((phase, event, ctx: FileEventContext) => {
      seen.push(`${phase}:${event}:${ctx.file.virtual}:${ctx.user.username}`);
      if (phase === 'before') throw new Error('hook fails');
    });
    try {
      const data = bytes(150_000);
      await startUpload({ url: srv.url, token, path: '/evented.bin', source: data, tus: { chunkSize: 64 * 1024, retryCount: 0 } }).done;
      expect(seen).toEqual(['before:upload:/evented.bin:admin', 'after:upload:/evented.bin:admin']);
      expect(await sha256File(path.join(srv.root, 'evented.bin'))).toBe(sha256(data));
    } finally {
      off();
    }
  });
});
