/**
 * Filesystem errors on every route that creates (issue 17 item 2), over real HTTP: the answer is a
 * mapped status whose body names no server path (never Node's message), and a refused creation
 * leaves nothing behind — the folders the request made are removed again, folders that were there
 * before stay. Routes: POST /api/resources (file, folder), PATCH copy and rename destinations, tus
 * creation, POST /api/users (scope folder). Runs on SQLite, and on PostgreSQL with COFFER_TEST_PG_URL.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeIo, type WriteIo } from '../src/fs/atomic.js';
import { ADMIN, useServer, type TestServer } from './harness.js';
import { member, rawRequest, withIo, type Member } from './resources-support.js';
import { newUserData } from './users-support.js';

/** Linux's PATH_MAX, its terminating NUL included. */
const PATH_MAX = 4096;
const TUS = { 'Tus-Resumable': '1.0.0' };

/** Every file and folder below `dir`, sorted. */
async function tree(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).map(String).sort();
}

/**
 * A relative folder path starting with `first` whose absolute form under `base` is exactly `total`
 * bytes long, made of names of at most 250 bytes.
 */
function folderOfLength(base: string, first: string, total: number): string {
  const segs = [first];
  let len = Buffer.byteLength(base) + 1 + first.length;
  while (len < total) {
    const room = total - len - 1; // the "/" before the next name
    const n = room > 250 ? Math.min(250, room - 2) : room; // never leave room for an empty name
    segs.push('d'.repeat(n));
    len += 1 + n;
  }
  expect(Buffer.byteLength(path.join(base, ...segs))).toBe(total);
  return segs.join('/');
}

/** The body names nothing of the server's disk: not the root, not its first segment, no errno text. */
function expectNoServerPath(srv: TestServer, text: string, what: string): void {
  const top = '/' + srv.root.split('/')[1] + '/';
  expect(text, what).not.toContain(srv.root);
  expect(text, what).not.toContain(top);
  expect(text, what).not.toContain(tmpdir());
  expect(text, what).not.toContain('/tmp');
  expect(text, what).not.toMatch(/\bE[A-Z]{4,}\b|mkdir|syscall/);
  expect(text.length, what).toBeLessThan(200);
}

const errno = (code: string, syscall: string, p: string) =>
  Object.assign(new Error(`${code}: failed, ${syscall} '${p}'`), { code, errno: -1, syscall, path: p });

/** A user whose scope already holds `keep/old.txt` (a folder that was there before). */
async function memberWithKeep(srv: TestServer): Promise<Member> {
  const u = await member(srv);
  await mkdir(path.join(u.dir, 'keep'));
  await writeFile(path.join(u.dir, 'keep', 'old.txt'), 'old');
  return u;
}

describe('filesystem errors on creation', () => {
  const srv = useServer();

  it('POST of a file whose name the disk cannot take: 400 "name too long", no path, no folder left', async () => {
    const u = await memberWithKeep(srv.get());
    const before = await tree(u.dir);
    // The folders fit, the file's own path fits, its staging file beside it does not.
    const dir = folderOfLength(u.dir, 'keep/a', PATH_MAX - 10);
    // The folders fit, the file's path does not; a/b/c/<a name over 255 bytes>.
    const deep = folderOfLength(u.dir, 'keep/x', PATH_MAX - 200);
    for (const p of [`${dir}/f.txt`, `${deep}/${'n'.repeat(250)}.txt`, `keep/a/b/c/${'n'.repeat(256)}.txt`, `a/b/c/${'n'.repeat(256)}.txt`]) {
      const res = await rawRequest(srv.get(), `/api/resources/${p}`, { method: 'POST', token: u.token, body: 'hello' });
      expect(res.status, p.slice(-40)).toBe(400);
      expect(res.text).toBe('400 Bad Request (name too long)\n');
      expectNoServerPath(srv.get(), res.text, p.slice(-40));
      expect(await tree(u.dir)).toEqual(before);
    }
  });

  it('POST of a folder whose path the disk cannot take: 400, no path, nothing made', async () => {
    const u = await memberWithKeep(srv.get());
    const before = await tree(u.dir);
    const deep = folderOfLength(u.dir, 'keep/a', PATH_MAX - 100);
    for (const p of [`${deep}/${'n'.repeat(200)}/`, `a/b/c/${folderOfLength(path.join(u.dir, 'a/b/c'), 'd', PATH_MAX + 300)}/`]) {
      const res = await rawRequest(srv.get(), `/api/resources/${p}`, { method: 'POST', token: u.token });
      expect(res.status).toBe(400);
      expectNoServerPath(srv.get(), res.text, p.slice(-40));
      expect(await tree(u.dir)).toEqual(before);
    }
  });

  it('a disk that fills up while the folders are made: 507, the folders made so far are removed, older ones stay', async () => {
    const u = await memberWithKeep(srv.get());
    const before = await tree(u.dir);
    let made = 0;
    const io: WriteIo = {
      ...nodeIo,
      async mkdir(p, mode) {
        if (++made === 3) throw errno('ENOSPC', 'mkdir', p);
        await nodeIo.mkdir(p, mode);
      },
    };
    for (const p of ['keep/a/b/c/d/', 'keep/a/b/c/d/file.txt', 'a/b/c/d/']) {
      made = 0;
      const res = await withIo(srv.get(), io, () => rawRequest(srv.get(), `/api/resources/${p}`, { method: 'POST', token: u.token, body: 'x' }));
      expect(res.status, p).toBe(507);
      expect(res.text).toBe('507 Insufficient Storage\n');
      expect(await tree(u.dir), p).toEqual(before);
    }
  });

  it('PATCH copy of a file to a destination the disk cannot take: 400, no path, nothing left, the source intact', async () => {
    const u = await memberWithKeep(srv.get());
    await writeFile(path.join(u.dir, 'src.txt'), 'source');
    const before = await tree(u.dir);
    const dir = folderOfLength(u.dir, 'keep/a', PATH_MAX - 10);
    for (const dest of [`/${dir}/f.txt`, `/keep/a/b/c/${'n'.repeat(250)}/${'m'.repeat(250)}/${'o'.repeat(250)}`.padEnd(4200, 'x')]) {
      const q = new URLSearchParams({ action: 'copy', destination: encodeURIComponent(dest) });
      const res = await rawRequest(srv.get(), `/api/resources/src.txt?${q}`, { method: 'PATCH', token: u.token });
      expect(res.status).toBe(400);
      expectNoServerPath(srv.get(), res.text, dest.slice(-40));
      expect(await tree(u.dir)).toEqual(before);
    }
    expect(await readFile(path.join(u.dir, 'src.txt'), 'utf8')).toBe('source');
  });

  it('PATCH copy of a folder that fails part way: 400, the copied files and made folders are taken back', async () => {
    const u = await memberWithKeep(srv.get());
    await mkdir(path.join(u.dir, 'tree', 'long'), { recursive: true });
    await writeFile(path.join(u.dir, 'tree', 'a.txt'), 'a');
    await writeFile(path.join(u.dir, 'tree', 'long', `${'L'.repeat(240)}.txt`), 'l');
    const before = await tree(u.dir);
    // tree/a.txt fits at the destination; tree/long/LLL….txt does not.
    const dest = '/' + folderOfLength(u.dir, 'keep/copy', PATH_MAX - 100);
    const q = new URLSearchParams({ action: 'copy', destination: encodeURIComponent(dest) });
    const res = await rawRequest(srv.get(), `/api/resources/tree?${q}`, { method: 'PATCH', token: u.token });
    expect(res.status).toBe(400);
    expectNoServerPath(srv.get(), res.text, 'folder copy');
    expect(await tree(u.dir)).toEqual(before);
  });

  it('PATCH rename to a destination the disk cannot take, or refused by the disk: nothing moves, nothing is left', async () => {
    const u = await memberWithKeep(srv.get());
    await writeFile(path.join(u.dir, 'src.txt'), 'source');
    const before = await tree(u.dir);
    const dir = folderOfLength(u.dir, 'keep/a', PATH_MAX - 100);
    const long = `/${dir}/${'n'.repeat(200)}`;
    const q = new URLSearchParams({ action: 'rename', destination: encodeURIComponent(long) });
    const res = await rawRequest(srv.get(), `/api/resources/src.txt?${q}`, { method: 'PATCH', token: u.token });
    expect(res.status).toBe(400);
    expectNoServerPath(srv.get(), res.text, 'rename');
    expect(await tree(u.dir)).toEqual(before);

    const denied: WriteIo = { ...nodeIo, rename: (_from, to) => Promise.reject(errno('EACCES', 'rename', to)) };
    const q2 = new URLSearchParams({ action: 'rename', destination: encodeURIComponent('/keep/new/deeper/moved.txt') });
    const res2 = await withIo(srv.get(), denied, () => rawRequest(srv.get(), `/api/resources/src.txt?${q2}`, { method: 'PATCH', token: u.token }));
    expect(res2.status).toBe(403);
    expect(res2.text).toBe('403 Forbidden\n');
    expect(await tree(u.dir)).toEqual(before);
  });

  it('tus creation of a path the disk cannot take: 400 before any byte is accepted, no path, nothing staged', async () => {
    const u = await memberWithKeep(srv.get());
    const before = await tree(u.dir);
    const staging = path.join(path.dirname(srv.root), 'coffer-data', 'uploads');
    const staged = async () => (await readdir(staging).catch(() => [] as string[])).sort();
    const stagedBefore = await staged();
    const fits = folderOfLength(u.dir, 'keep/a', PATH_MAX - 100);
    const over = folderOfLength(u.dir, 'keep/b', PATH_MAX + 100);
    for (const p of [`${fits}/${'n'.repeat(200)}.txt`, `${over}/f.txt`]) {
      const res = await rawRequest(srv.get(), `/api/tus/${p}?override=false`, { method: 'POST', token: u.token, headers: { ...TUS, 'Upload-Length': '5' } });
      expect(res.status).toBe(400);
      expectNoServerPath(srv.get(), res.text, p.slice(-30));
      expect(res.headers.location).toBeUndefined();
      expect(await tree(u.dir)).toEqual(before);
      expect(await staged()).toEqual(stagedBefore);
    }
  });

  it('POST /api/users with a scope the disk cannot take: 400, no path, no folder made', async () => {
    const admin = await srv.login();
    const before = await tree(srv.root);
    const scope = '/' + folderOfLength(srv.root, 'homes', PATH_MAX + 50);
    const res = await rawRequest(srv.get(), '/api/users', {
      method: 'POST',
      token: admin,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ what: 'user', which: [], current_password: ADMIN.password, data: newUserData({ username: 'longscope', scope }) }),
    });
    expect(res.status).toBe(400);
    expect(res.text).toBe('400 Bad Request (name too long)\n');
    expectNoServerPath(srv.get(), res.text, 'users');
    expect(await tree(srv.root)).toEqual(before);
    // The same user with a scope that fits is created (the body above was fine but for the scope).
    const ok = await rawRequest(srv.get(), '/api/users', {
      method: 'POST',
      token: admin,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ what: 'user', which: [], current_password: ADMIN.password, data: newUserData({ username: 'longscope', scope: '/homes/fits' }) }),
    });
    expect(ok.status).toBe(201);
  });
});

/** An io whose `nth` staging-file open in `dir` waits for `go()`, then fails with ENOSPC. */
function pausingIo(dir: string, nth: number) {
  let opens = 0;
  let reached!: () => void;
  let go!: () => void;
  const paused = new Promise<void>((r) => (reached = r));
  const gate = new Promise<void>((r) => (go = r));
  const io: WriteIo = {
    ...nodeIo,
    open: async (p, flags, mode) => {
      if (path.dirname(p) === dir && ++opens === nth) {
        reached();
        await gate;
        throw errno('ENOSPC', 'open', p);
      }
      return nodeIo.open(p, flags, mode);
    },
  };
  return { io, paused, go };
}

describe('taking back never removes what another request counts on', () => {
  const srv = useServer();

  it('a folder another request created (200) while a failing upload made it stays', async () => {
    const u = await member(srv.get());
    const { io, paused, go } = pausingIo(path.join(u.dir, 'new', 'deep'), 1);
    await withIo(srv.get(), io, async () => {
      const upload = rawRequest(srv.get(), '/api/resources/new/deep/f.txt', { method: 'POST', token: u.token, body: 'x' });
      await paused; // new/ and new/deep/ are made, the upload is about to fail
      const folder = await rawRequest(srv.get(), '/api/resources/new/deep/', { method: 'POST', token: u.token });
      expect(folder.status).toBe(200);
      go();
      expect((await upload).status).toBe(507);
    });
    expect(await tree(u.dir)).toEqual(['new', 'new/deep']);
  });

  it('a copied file another request replaced before the copy failed is not deleted', async () => {
    const u = await member(srv.get());
    await mkdir(path.join(u.dir, 'tree'));
    await writeFile(path.join(u.dir, 'tree', 'a.txt'), 'a');
    await writeFile(path.join(u.dir, 'tree', 'b.txt'), 'b');
    const { io, paused, go } = pausingIo(path.join(u.dir, 'dst'), 2);
    await withIo(srv.get(), io, async () => {
      const q = new URLSearchParams({ action: 'copy', destination: '/dst' });
      const copy = rawRequest(srv.get(), `/api/resources/tree?${q}`, { method: 'PATCH', token: u.token });
      await paused; // one file is copied, the second is about to fail
      const [first] = await readdir(path.join(u.dir, 'dst'));
      const saved = await rawRequest(srv.get(), `/api/resources/dst/${first}?override=true`, { method: 'POST', token: u.token, body: 'theirs' });
      expect(saved.status).toBe(200);
      go();
      expect((await copy).status).toBe(507);
      expect(await readFile(path.join(u.dir, 'dst', first!), 'utf8')).toBe('theirs');
    });
  });
});
