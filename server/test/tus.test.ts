/**
 * tus 1.0.0 at /api/tus (docs/api.md §13) over real HTTP: discovery, version, creation, offsets,
 * termination, permissions (docs/api.md §6.1, S11, S12), paths and links (S1, S4, S5, S8), strict lengths
 * (S50), staging (S51), expiry (S52), one upload per path (S53), modes (S54), cache (S64), E3.
 * Runs on SQLite, and on PostgreSQL with COFFER_TEST_PG_URL.
 */
import http from 'node:http';
import net from 'node:net';
import { lstat, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { useServer, type TestServer } from './harness.js';
import { bytes, sha256, sha256File, startUpload, statusOf } from './tus-support.js';

const TUS = { 'Tus-Resumable': '1.0.0' };
const SMALL = { chunkSize: 64 * 1024, retryCount: 0 };

function stagingDir(srv: TestServer): string {
  return path.join(path.dirname(srv.root), 'coffer-data', 'uploads');
}

async function stagedFiles(srv: TestServer): Promise<string[]> {
  return (await readdir(stagingDir(srv)).catch(() => [] as string[])).sort();
}

async function exists(p: string): Promise<boolean> {
  return lstat(p).then(
    () => true,
    () => false,
  );
}

/** A request whose path is sent exactly as written (fetch would resolve `..` and `%2e%2e` itself). */
function rawRequest(srv: TestServer, method: string, p: string, headers: Record<string, string>, body?: string): Promise<{ status: number; headers: http.IncomingHttpHeaders }> {
  const u = new URL(srv.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, method, path: u.pathname.replace(/\/$/, '') + p, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * A request written byte for byte on a socket (fetch turns a raw backslash into `/`). Answers the
 * status and the headers.
 */
function rawSocketRequest(srv: TestServer, requestLine: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string> }> {
  const u = new URL(srv.url);
  const head = [`${requestLine} HTTP/1.1`, `Host: ${u.host}`, 'Connection: close', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', ''].join('\r\n');
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(u.port), u.hostname, () => socket.write(Buffer.from(head, 'utf8')));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('end', () => {
      const [top = ''] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n');
      const [status = '', ...lines] = top.split('\r\n');
      const out: Record<string, string> = {};
      for (const line of lines) out[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
      resolve({ status: Number(status.split(' ')[1]), headers: out });
    });
  });
}

function create(srv: TestServer, token: string | undefined, p: string, length: string | undefined, extra: Record<string, string> = {}) {
  const headers: Record<string, string> = { ...TUS, ...extra };
  if (length !== undefined) headers['Upload-Length'] = length;
  return srv.fetch(`/api/tus${p}`, { method: 'POST', token, headers });
}

function patch(srv: TestServer, token: string | undefined, p: string, offset: string | undefined, body: Buffer, extra: Record<string, string> = {}) {
  const headers: Record<string, string> = { ...TUS, 'Content-Type': 'application/offset+octet-stream', ...extra };
  if (offset !== undefined) headers['Upload-Offset'] = offset;
  return srv.fetch(`/api/tus${p}`, { method: 'PATCH', token, headers, body });
}

function head(srv: TestServer, token: string | undefined, p: string) {
  return srv.fetch(`/api/tus${p}`, { method: 'HEAD', token, headers: TUS });
}

function del(srv: TestServer, token: string | undefined, p: string) {
  return srv.fetch(`/api/tus${p}`, { method: 'DELETE', token, headers: TUS });
}

describe('tus discovery and version', () => {
  const srv = useServer();
  it('answers OPTIONS with the protocol, its extensions and no size limit by default', async () => {
    for (const p of ['/api/tus', '/api/tus/', '/api/tus/a.txt']) {
      const res = await srv.fetch(p, { method: 'OPTIONS' });
      expect(res.status).toBe(204);
      expect(res.headers.get('tus-resumable')).toBe('1.0.0');
      expect(res.headers.get('tus-version')).toBe('1.0.0');
      expect(res.headers.get('tus-extension')).toBe('creation,termination');
      expect(res.headers.get('tus-max-size')).toBeNull();
    }
  });

  it('answers 412 with Tus-Version for another Tus-Resumable, before anything else', async () => {
    const token = await srv.login();
    for (const method of ['POST', 'HEAD', 'PATCH', 'DELETE']) {
      const res = await srv.fetch('/api/tus/v.txt', { method, token, headers: { 'Tus-Resumable': '0.2.2', 'Upload-Length': '1' } });
      expect(res.status, method).toBe(412);
      expect(res.headers.get('tus-version')).toBe('1.0.0');
      expect(res.headers.get('tus-resumable')).toBe('1.0.0');
    }
    expect(await exists(path.join(srv.root, 'v.txt'))).toBe(false);
  });

  it('accepts a request without Tus-Resumable, as File Browser does', async () => {
    const token = await srv.login();
    const res = await srv.fetch('/api/tus/no-version.txt', { method: 'POST', token, headers: { 'Upload-Length': '3' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('tus-resumable')).toBe('1.0.0');
    expect((await del(srv, token, '/no-version.txt')).status).toBe(204);
  });

  it('answers 401 without a token on every verb, with Tus-Resumable', async () => {
    expect((await create(srv, undefined, '/x.txt', '1')).status).toBe(401);
    expect((await head(srv, undefined, '/x.txt')).status).toBe(401);
    expect((await patch(srv, undefined, '/x.txt', '0', Buffer.from('a'))).status).toBe(401);
    const res = await del(srv, undefined, '/x.txt');
    expect(res.status).toBe(401);
    expect(res.headers.get('tus-resumable')).toBe('1.0.0');
  });
});

describe('tus creation (POST)', () => {
  const srv = useServer();
  let admin: string;
  beforeAll(async () => {
    admin = await srv.login();
  });

  it('creates an upload: 201, Location = the path, nothing visible in the folder yet (S51)', async () => {
    const res = await create(srv, admin, '/new%20dir/a%20b.txt?override=false', '5');
    expect(res.status).toBe(201);
    expect(await res.text()).toBe('201 Created\n');
    expect(res.headers.get('location')).toBe('/api/tus/new%20dir/a%20b.txt');
    expect(res.headers.get('tus-resumable')).toBe('1.0.0');
    expect(await exists(path.join(srv.root, 'new dir'))).toBe(false);
    const h = await head(srv, admin, '/new%20dir/a%20b.txt');
    expect(h.status).toBe(200);
    expect(h.headers.get('upload-offset')).toBe('0');
    expect(h.headers.get('upload-length')).toBe('5');
    expect(h.headers.get('cache-control')).toBe('no-store');
    const p = await patch(srv, admin, '/new%20dir/a%20b.txt', '0', Buffer.from('hello'));
    expect(p.status).toBe(204);
    expect(p.headers.get('upload-offset')).toBe('5');
    expect(await readFile(path.join(srv.root, 'new dir', 'a b.txt'), 'utf8')).toBe('hello');
    // A completed upload is forgotten.
    expect((await head(srv, admin, '/new%20dir/a%20b.txt')).status).toBe(404);
  });

  it('gives the canonical path as Location when the request path was not canonical', async () => {
    const res = await create(srv, admin, '/x/../canon.txt', '1');
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe('/api/tus/canon.txt');
    expect((await del(srv, admin, '/canon.txt')).status).toBe(204);
  });

  it('builds Location from the canonical name, percent-encoded, whatever the request held; following it reaches the same upload', async () => {
    // [path as sent on the wire, the name it means]; raw backslashes included (Node's parser
    // refuses raw UTF-8 in a request target: 400, so non-ASCII names arrive percent-encoded).
    const cases: [string, string][] = [
      ['/loc/x\\y.txt', 'loc/x\\y.txt'],
      ['/loc/p%5Cq.txt', 'loc/p\\q.txt'],
      ['/loc/50%25.txt', 'loc/50%.txt'],
      ['/loc/a%23b.txt', 'loc/a#b.txt'],
      ['/loc/q%3F.txt', 'loc/q?.txt'],
      ['/loc/sp%20ace.txt', 'loc/sp ace.txt'],
      ['/loc/%C3%BCn%C3%AF%E2%82%AC%F0%9F%98%80.txt', 'loc/ünï€😀.txt'],
      [`/loc/${encodeURIComponent('名前 b.txt')}`, 'loc/名前 b.txt'],
      ['/loc\\d%20%23%3F%25/..\\n%C3%A4me.txt', 'loc\\d #?%/..\\näme.txt'],
    ];
    for (const [i, [wire, name]] of cases.entries()) {
      const length = String(10 + i);
      const created = await rawSocketRequest(srv, `POST /api/tus${wire}?override=false`, { 'X-Auth': admin, 'Upload-Length': length, ...TUS });
      expect(created.status, wire).toBe(201);
      const location = created.headers.location ?? '';
      expect(location, wire).toBe('/api/tus/' + name.split('/').map(encodeURIComponent).join('/'));
      expect(location, wire).not.toMatch(/[\\\s#?]|[^\x21-\x7e]/);
      // Follow it as a URL parser (tus-js-client, a browser) does.
      const url = new URL(location, srv.url).toString();
      const h = await fetch(url, { method: 'HEAD', headers: { 'X-Auth': admin, ...TUS } });
      expect(h.status, wire).toBe(200);
      expect(h.headers.get('upload-length'), wire).toBe(length);
      const body = Buffer.alloc(Number(length), 'x');
      const p = await fetch(url, { method: 'PATCH', headers: { 'X-Auth': admin, ...TUS, 'Content-Type': 'application/offset+octet-stream', 'Upload-Offset': '0' }, body });
      expect(p.status, wire).toBe(204);
      expect(await readFile(path.join(srv.root, ...name.split('/'))), wire).toEqual(body);
    }
  });

  it('refuses Upload-Length that is missing, empty or not a plain decimal (S50), creating nothing', async () => {
    const before = await stagedFiles(srv);
    // (Leading and trailing spaces never reach the server: HTTP trims header values.)
    for (const bad of [undefined, '', 'abc', '-1', '1e3', '+5', '5 5', '0x10', '1.0']) {
      const res = await create(srv, admin, '/len.txt', bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
    }
    expect(await exists(path.join(srv.root, 'len.txt'))).toBe(false);
    expect(await stagedFiles(srv)).toEqual(before);
    expect((await head(srv, admin, '/len.txt')).status).toBe(404);
  });

  it('answers 413 for a length too large to represent', async () => {
    const res = await create(srv, admin, '/huge.txt', '99999999999999999999999');
    expect(res.status).toBe(413);
    expect((await head(srv, admin, '/huge.txt')).status).toBe(404);
  });

  it('answers 507 for a length larger than the free space, creating nothing', async () => {
    const res = await create(srv, admin, '/too-big-for-disk.bin', String(2 ** 52));
    expect(res.status).toBe(507);
    expect((await head(srv, admin, '/too-big-for-disk.bin')).status).toBe(404);
  });

  it('answers 400 for a folder and leaves it alone (S53)', async () => {
    await mkdir(path.join(srv.root, 'folder'));
    await writeFile(path.join(srv.root, 'folder', 'inside.txt'), 'keep');
    for (const p of ['/folder', '/folder/', '/']) {
      const res = await create(srv, admin, `${p}?override=true`, '3');
      expect(res.status, p).toBe(400);
    }
    expect(await readFile(path.join(srv.root, 'folder', 'inside.txt'), 'utf8')).toBe('keep');
  });

  it('answers 409 when the target exists and override is not true, and keeps it', async () => {
    await writeFile(path.join(srv.root, 'exists.txt'), 'old');
    for (const q of ['', '?override=false', '?override=1', '?override=TRUE']) {
      expect((await create(srv, admin, `/exists.txt${q}`, '3')).status, q).toBe(409);
    }
    expect(await readFile(path.join(srv.root, 'exists.txt'), 'utf8')).toBe('old');
  });

  it('answers 409 when a file is in the way of the parent folders', async () => {
    await writeFile(path.join(srv.root, 'plain.txt'), 'x');
    expect((await create(srv, admin, '/plain.txt/child.txt', '1')).status).toBe(409);
  });

  it('answers 409 to a second upload on the same path and leaves the first alone (S53)', async () => {
    expect((await create(srv, admin, '/twice.txt', '4')).status).toBe(201);
    expect((await patch(srv, admin, '/twice.txt', '0', Buffer.from('ab'))).status).toBe(204);
    expect((await create(srv, admin, '/twice.txt?override=true', '10')).status).toBe(409);
    const other = await srv.createUser({ perm: { create: true, modify: true } as never });
    const otherToken = await srv.login(other.username, other.password);
    expect((await create(srv, otherToken, '/twice.txt?override=true', '4')).status).toBe(409);
    const h = await head(srv, admin, '/twice.txt');
    expect(h.headers.get('upload-offset')).toBe('2');
    expect(h.headers.get('upload-length')).toBe('4');
    expect((await patch(srv, admin, '/twice.txt', '2', Buffer.from('cd'))).status).toBe(204);
    expect(await readFile(path.join(srv.root, 'twice.txt'), 'utf8')).toBe('abcd');
  });

  it('completes a zero-length upload at once', async () => {
    const res = await create(srv, admin, '/empty.txt', '0');
    expect(res.status).toBe(201);
    expect((await stat(path.join(srv.root, 'empty.txt'))).size).toBe(0);
    expect((await head(srv, admin, '/empty.txt')).status).toBe(404);
  });

  it('creates files 0640 and folders 0750 (S54)', async () => {
    expect((await create(srv, admin, '/modes/deep/m.txt', '2')).status).toBe(201);
    expect((await patch(srv, admin, '/modes/deep/m.txt', '0', Buffer.from('hi'))).status).toBe(204);
    expect((await stat(path.join(srv.root, 'modes/deep/m.txt'))).mode & 0o777).toBe(0o640);
    expect((await stat(path.join(srv.root, 'modes/deep'))).mode & 0o777).toBe(0o750);
    expect((await stat(path.join(srv.root, 'modes'))).mode & 0o777).toBe(0o750);
  });
});

describe('tus paths, rules and links (S1, S4, S5, S8, S12)', () => {
  const srv = useServer();
  let admin: string;
  beforeAll(async () => {
    admin = await srv.login();
  });

  it('answers 403 to a path that climbs out and 400 to control characters, creating nothing', async () => {
    const before = await stagedFiles(srv);
    for (const p of ['/..%2f..%2fescape.txt', '/a/%2e%2e/%2e%2e/escape.txt', '/../escape.txt', '/a/../../escape.txt']) {
      for (const method of ['POST', 'HEAD', 'PATCH', 'DELETE']) {
        const headers: Record<string, string> = { ...TUS, 'X-Auth': admin, 'Upload-Length': '1', 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' };
        const body = method === 'PATCH' ? 'x' : undefined;
        expect((await rawRequest(srv, method, `/api/tus${p}`, headers, body)).status, `${method} ${p}`).toBe(403);
      }
    }
    expect((await create(srv, admin, '/bad%00name.txt', '1')).status).toBe(400);
    expect((await create(srv, admin, '/bad%0aname.txt', '1')).status).toBe(400);
    expect(await exists(path.join(path.dirname(srv.root), 'escape.txt'))).toBe(false);
    expect(await stagedFiles(srv)).toEqual(before);
  });

  it('treats odd names as literal names inside the scope (S2)', async () => {
    const res = await create(srv, admin, '/%252e%252e', '1');
    expect(res.status).toBe(201);
    expect((await patch(srv, admin, '/%252e%252e', '0', Buffer.from('z'))).status).toBe(204);
    expect(await readFile(path.join(srv.root, '%2e%2e'), 'utf8')).toBe('z');
  });

  it('answers 403 for a link out of the root, existing or dangling, and writes nothing through it (S4, S5)', async () => {
    const outside = path.join(path.dirname(srv.root), 'outside');
    await mkdir(outside, { recursive: true });
    await symlink(outside, path.join(srv.root, 'out-dir'));
    await symlink(path.join(outside, 'nothing-yet.txt'), path.join(srv.root, 'dangling.txt'));
    expect((await create(srv, admin, '/out-dir/f.txt', '1')).status).toBe(403);
    expect((await create(srv, admin, '/dangling.txt?override=true', '1')).status).toBe(403);
    expect(await readdir(outside)).toEqual([]);
  });

  it('writes through a link that stays inside the scope to its target', async () => {
    await mkdir(path.join(srv.root, 'real-dir'));
    await symlink('real-dir', path.join(srv.root, 'in-link'));
    expect((await create(srv, admin, '/in-link/t.txt', '3')).status).toBe(201);
    expect((await patch(srv, admin, '/in-link/t.txt', '0', Buffer.from('abc'))).status).toBe(204);
    expect(await readFile(path.join(srv.root, 'real-dir', 't.txt'), 'utf8')).toBe('abc');
  });

  it('answers 403 on rule-denied paths and hidden dotfiles for every verb (S12)', async () => {
    await mkdir(path.join(srv.root, 'private'));
    const u = await srv.createUser({
      perm: { create: true, delete: true, modify: true } as never,
      rules: [{ regex: false, allow: false, path: '/private', regexp: { raw: '' } }],
      hideDotfiles: true,
    });
    const token = await srv.login(u.username, u.password);
    for (const p of ['/private/a.txt', '/.hidden']) {
      expect((await create(srv, token, p, '1')).status, p).toBe(403);
      expect((await head(srv, token, p)).status, p).toBe(403);
      expect((await patch(srv, token, p, '0', Buffer.from('x'))).status, p).toBe(403);
      expect((await del(srv, token, p)).status, p).toBe(403);
    }
    expect(await readdir(path.join(srv.root, 'private'))).toEqual([]);
    // A user rule that does not match leaves the rest writable.
    expect((await create(srv, token, '/private_backup.txt', '0')).status).toBe(201);
  });

  it('confines a scoped user to the scope', async () => {
    await mkdir(path.join(srv.root, 'home', 'u1'), { recursive: true });
    const u = await srv.createUser({ scope: '/home/u1', perm: { create: true } as never });
    const token = await srv.login(u.username, u.password);
    expect((await rawRequest(srv, 'POST', '/api/tus/../x.txt', { ...TUS, 'X-Auth': token, 'Upload-Length': '1' })).status).toBe(403);
    expect((await create(srv, token, '/mine.txt', '2')).status).toBe(201);
    expect((await patch(srv, token, '/mine.txt', '0', Buffer.from('ok'))).status).toBe(204);
    expect(await readFile(path.join(srv.root, 'home', 'u1', 'mine.txt'), 'utf8')).toBe('ok');
  });
});

describe('tus permissions (docs/api.md §6.1, S11)', () => {
  const srv = useServer();

  it('needs create for POST, HEAD and PATCH', async () => {
    const admin = await srv.login();
    expect((await create(srv, admin, '/perm.txt', '2')).status).toBe(201);
    const u = await srv.createUser({ perm: { create: false, delete: true, modify: true } as never });
    const token = await srv.login(u.username, u.password);
    expect((await create(srv, token, '/p2.txt', '2')).status).toBe(403);
    expect((await head(srv, token, '/perm.txt')).status).toBe(403);
    expect((await patch(srv, token, '/perm.txt', '0', Buffer.from('ab'))).status).toBe(403);
    expect(await exists(path.join(srv.root, 'p2.txt'))).toBe(false);
  });

  it('needs modify to override an existing file; the file stays intact', async () => {
    await writeFile(path.join(srv.root, 'keep.txt'), 'keep me');
    const u = await srv.createUser({ perm: { create: true, modify: false } as never });
    const token = await srv.login(u.username, u.password);
    expect((await create(srv, token, '/keep.txt?override=true', '3')).status).toBe(403);
    expect(await readFile(path.join(srv.root, 'keep.txt'), 'utf8')).toBe('keep me');
  });

  it('guards DELETE by delete, never by create; a refused DELETE leaves the upload running', async () => {
    const u = await srv.createUser({ perm: { create: true, delete: false } as never });
    const token = await srv.login(u.username, u.password);
    expect((await create(srv, token, '/nodelete.txt', '4')).status).toBe(201);
    expect((await patch(srv, token, '/nodelete.txt', '0', Buffer.from('ab'))).status).toBe(204);
    expect((await del(srv, token, '/nodelete.txt')).status).toBe(403);
    expect((await head(srv, token, '/nodelete.txt')).headers.get('upload-offset')).toBe('2');
    expect((await patch(srv, token, '/nodelete.txt', '2', Buffer.from('cd'))).status).toBe(204);
    expect(await readFile(path.join(srv.root, 'nodelete.txt'), 'utf8')).toBe('abcd');
    const deleter = await srv.createUser({ perm: { create: false, delete: true } as never });
    const dt = await srv.login(deleter.username, deleter.password);
    expect((await del(srv, dt, '/')).status).toBe(403);
  });

  it('binds an upload to its user: another user sees no upload there', async () => {
    const a = await srv.createUser({ perm: { create: true, delete: true } as never });
    const b = await srv.createUser({ perm: { create: true, delete: true } as never });
    const ta = await srv.login(a.username, a.password);
    const tb = await srv.login(b.username, b.password);
    expect((await create(srv, ta, '/bound.txt', '2')).status).toBe(201);
    expect((await head(srv, tb, '/bound.txt')).status).toBe(404);
    expect((await patch(srv, tb, '/bound.txt', '0', Buffer.from('xx'))).status).toBe(404);
    expect((await del(srv, tb, '/bound.txt')).status).toBe(404);
    expect((await head(srv, ta, '/bound.txt')).status).toBe(200);
  });

  it('checks permissions again at the end: create taken away mid-upload → 403, nothing written', async () => {
    const u = await srv.createUser({ perm: { create: true, delete: true } as never });
    const token = await srv.login(u.username, u.password);
    expect((await create(srv, token, '/revoked.txt', '4')).status).toBe(201);
    expect((await patch(srv, token, '/revoked.txt', '0', Buffer.from('ab'))).status).toBe(204);
    const before = await stagedFiles(srv);
    await srv.deps.users.update({ ...u, perm: { ...u.perm, create: false } });
    expect((await patch(srv, token, '/revoked.txt', '2', Buffer.from('cd'))).status).toBe(403);
    expect(await exists(path.join(srv.root, 'revoked.txt'))).toBe(false);
    expect(before.length).toBeGreaterThan(0);
  });

  it('checks rules again at the end: a path denied mid-upload → 403, staging removed, target untouched', async () => {
    const u = await srv.createUser({ perm: { create: true, delete: true } as never });
    const token = await srv.login(u.username, u.password);
    expect((await create(srv, token, '/later-denied.txt', '4')).status).toBe(201);
    expect((await patch(srv, token, '/later-denied.txt', '0', Buffer.from('ab'))).status).toBe(204);
    const staged = await stagedFiles(srv);
    await srv.deps.users.update({ ...u, rules: [{ regex: false, allow: false, path: '/later-denied.txt', regexp: { raw: '' } }] });
    // The denial applies at once: even the chunk is refused before a byte is written.
    expect((await patch(srv, token, '/later-denied.txt', '2', Buffer.from('cd'))).status).toBe(403);
    await srv.deps.users.update({ ...u, rules: [] });
    expect((await head(srv, token, '/later-denied.txt')).headers.get('upload-offset')).toBe('2');
    expect(await exists(path.join(srv.root, 'later-denied.txt'))).toBe(false);
    expect((await stagedFiles(srv)).length).toBe(staged.length);
  });

  it('answers 409 at the end when the target appeared meanwhile and override is false; the new file is kept', async () => {
    const admin = await srv.login();
    expect((await create(srv, admin, '/appeared.txt', '3')).status).toBe(201);
    await writeFile(path.join(srv.root, 'appeared.txt'), 'someone else');
    expect((await patch(srv, admin, '/appeared.txt', '0', Buffer.from('abc'))).status).toBe(409);
    expect(await readFile(path.join(srv.root, 'appeared.txt'), 'utf8')).toBe('someone else');
    expect((await head(srv, admin, '/appeared.txt')).status).toBe(404);
  });
});

describe('tus chunks (PATCH, S50, S51)', () => {
  const srv = useServer();
  let admin: string;
  beforeAll(async () => {
    admin = await srv.login();
  });

  it('checks Content-Type (415), Upload-Offset (400), the upload (404), the length (400), the offset (409) in that order', async () => {
    expect((await patch(srv, admin, '/nothing.txt', '0', Buffer.from('x'))).status).toBe(404);
    expect((await create(srv, admin, '/order.txt', '4')).status).toBe(201);
    for (const ct of ['application/octet-stream', 'text/plain', 'application/offset+octet-stream; charset=utf-8']) {
      expect((await patch(srv, admin, '/order.txt', '0', Buffer.from('x'), { 'Content-Type': ct })).status, ct).toBe(415);
    }
    for (const bad of [undefined, '', 'abc', '-1', '1e1', '+0']) {
      expect((await patch(srv, admin, '/order.txt', bad, Buffer.from('x'))).status, String(bad)).toBe(400);
    }
    expect((await patch(srv, admin, '/order.txt', '5', Buffer.from('x'))).status).toBe(400);
    expect((await patch(srv, admin, '/order.txt', '1', Buffer.from('x'))).status).toBe(409);
    expect((await head(srv, admin, '/order.txt')).headers.get('upload-offset')).toBe('0');
  });

  it('refuses a chunk longer than the rest with 413, writes nothing of it and stays resumable', async () => {
    expect((await create(srv, admin, '/long.txt', '6')).status).toBe(201);
    expect((await patch(srv, admin, '/long.txt', '0', Buffer.from('abc'))).status).toBe(204);
    const res = await patch(srv, admin, '/long.txt', '3', Buffer.from('defXYZ'));
    expect(res.status).toBe(413);
    expect((await head(srv, admin, '/long.txt')).headers.get('upload-offset')).toBe('3');
    // Without Content-Length (chunked body) the same holds.
    const chunked = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode('def'));
        c.enqueue(new TextEncoder().encode('XYZ'));
        c.close();
      },
    });
    const res2 = await srv.fetch('/api/tus/long.txt', {
      method: 'PATCH',
      token: admin,
      headers: { ...TUS, 'Content-Type': 'application/offset+octet-stream', 'Upload-Offset': '3' },
      body: chunked,
      duplex: 'half',
    } as RequestInit);
    expect(res2.status).toBe(413);
    expect((await head(srv, admin, '/long.txt')).headers.get('upload-offset')).toBe('3');
    expect(await exists(path.join(srv.root, 'long.txt'))).toBe(false);
    expect((await patch(srv, admin, '/long.txt', '3', Buffer.from('def'))).status).toBe(204);
    const done = await readFile(path.join(srv.root, 'long.txt'));
    expect(done.toString()).toBe('abcdef');
  });

  it('keeps an old file byte for byte until an override upload completes (S51)', async () => {
    const old = bytes(50_000);
    await writeFile(path.join(srv.root, 'over.bin'), old);
    const next = bytes(70_000);
    expect((await create(srv, admin, '/over.bin?override=true', String(next.length))).status).toBe(201);
    expect((await patch(srv, admin, '/over.bin', '0', next.subarray(0, 40_000))).status).toBe(204);
    expect(sha256(await readFile(path.join(srv.root, 'over.bin')))).toBe(sha256(old));
    expect((await patch(srv, admin, '/over.bin', '40000', next.subarray(40_000))).status).toBe(204);
    expect(sha256(await readFile(path.join(srv.root, 'over.bin')))).toBe(sha256(next));
  });

  it('removes the staging data on DELETE; HEAD, PATCH and DELETE then answer 404 (S51)', async () => {
    const before = await stagedFiles(srv);
    expect((await create(srv, admin, '/cancel.txt', '10')).status).toBe(201);
    expect((await patch(srv, admin, '/cancel.txt', '0', Buffer.from('abc'))).status).toBe(204);
    expect((await stagedFiles(srv)).length).toBe(before.length + 1);
    expect((await del(srv, admin, '/cancel.txt')).status).toBe(204);
    expect(await stagedFiles(srv)).toEqual(before);
    expect((await head(srv, admin, '/cancel.txt')).status).toBe(404);
    expect((await patch(srv, admin, '/cancel.txt', '3', Buffer.from('d'))).status).toBe(404);
    expect((await del(srv, admin, '/cancel.txt')).status).toBe(404);
    expect(await exists(path.join(srv.root, 'cancel.txt'))).toBe(false);
  });

  it('reports active uploads in coffer_tus_uploads_active (E3)', async () => {
    const metric = async () => {
      const text = await (await srv.fetch('/metrics')).text();
      return Number(/^coffer_tus_uploads_active (\d+)$/m.exec(text)?.[1]);
    };
    const start = await metric();
    expect((await create(srv, admin, '/metric.txt', '2')).status).toBe(201);
    expect(await metric()).toBe(start + 1);
    expect((await patch(srv, admin, '/metric.txt', '0', Buffer.from('ok'))).status).toBe(204);
    expect(await metric()).toBe(start);
  });
});

describe('tus with tus-js-client configured as File Browser configures it', () => {
  const srv = useServer();
  let admin: string;
  beforeAll(async () => {
    admin = await srv.login();
  });

  it('uploads a multi-chunk file byte for byte, chunk size from the settings', async () => {
    const settings = (await (await srv.fetch('/api/settings', { token: admin })).json()) as { tus: { chunkSize: number; retryCount: number } };
    expect(settings.tus).toEqual({ chunkSize: 10 * 1024 * 1024, retryCount: 5 });
    const put = await srv.fetch('/api/settings', { method: 'PUT', token: admin, json: { ...settings, tus: { chunkSize: 100_000, retryCount: 2 } } });
    expect(put.status).toBe(200);
    const tus = ((await (await srv.fetch('/api/settings', { token: admin })).json()) as { tus: { chunkSize: number; retryCount: number } }).tus;
    const data = bytes(1_234_567);
    const run = startUpload({ url: srv.url, token: admin, path: '/multi/ä b#c.bin', source: data, tus });
    await run.done;
    expect(run.chunks.length).toBe(Math.ceil(data.length / 100_000));
    expect(await sha256File(path.join(srv.root, 'multi', 'ä b#c.bin'))).toBe(sha256(data));
  });

  it('overrides only with override=true', async () => {
    const first = bytes(300_000);
    const second = bytes(200_000);
    await startUpload({ url: srv.url, token: admin, path: '/ov.bin', source: first, tus: SMALL }).done;
    const refused = startUpload({ url: srv.url, token: admin, path: '/ov.bin', source: second, tus: SMALL });
    const err = await refused.done.then(
      () => null,
      (e: unknown) => e,
    );
    expect(statusOf(err)).toBe(409);
    expect(await sha256File(path.join(srv.root, 'ov.bin'))).toBe(sha256(first));
    await startUpload({ url: srv.url, token: admin, path: '/ov.bin', source: second, tus: SMALL, override: true }).done;
    expect(await sha256File(path.join(srv.root, 'ov.bin'))).toBe(sha256(second));
  });

  it('runs 5 uploads at once, each byte for byte', async () => {
    const files = Array.from({ length: 5 }, (_, i) => ({ path: `/five/f${i}.bin`, data: bytes(400_000 + i * 12_345) }));
    await Promise.all(files.map((f) => startUpload({ url: srv.url, token: admin, path: f.path, source: f.data, tus: SMALL }).done));
    for (const f of files) expect(await sha256File(path.join(srv.root, f.path))).toBe(sha256(f.data));
  });

  it('aborts: abort(true) terminates the upload, no file and no staging data remain', async () => {
    const before = await stagedFiles(srv);
    const data = bytes(2_000_000);
    let aborted = false;
    const run = startUpload({
      url: srv.url,
      token: admin,
      path: '/aborted.bin',
      source: data,
      tus: SMALL,
      onChunk: (offset) => {
        if (offset >= 200_000 && !aborted) {
          aborted = true;
          void run.upload.abort(true);
        }
      },
    });
    const deadline = Date.now() + 5000;
    while (!(aborted && (await stagedFiles(srv)).length === before.length) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(aborted).toBe(true);
    expect(await exists(path.join(srv.root, 'aborted.bin'))).toBe(false);
    expect(await stagedFiles(srv)).toEqual(before);
    expect((await head(srv, admin, '/aborted.bin')).status).toBe(404);
  });

  it('gives the second of two simultaneous uploads to one path a 409; the first completes', async () => {
    const a = bytes(800_000);
    const b = bytes(800_000);
    const first = startUpload({ url: srv.url, token: admin, path: '/race.bin', source: a, tus: SMALL });
    // Let the first one create its upload.
    await new Promise<void>((resolve) => {
      const t = setInterval(() => {
        if (first.chunks.length > 0) {
          clearInterval(t);
          resolve();
        }
      }, 5);
    });
    const second = startUpload({ url: srv.url, token: admin, path: '/race.bin', source: b, tus: SMALL, override: true });
    const err = await second.done.then(
      () => null,
      (e: unknown) => e,
    );
    expect(statusOf(err)).toBe(409);
    await first.done;
    expect(await sha256File(path.join(srv.root, 'race.bin'))).toBe(sha256(a));
  });

  it('resumes after a page reload: a new client continues at the offset the server reports', async () => {
    const data = bytes(1_000_000);
    let aborted: Promise<void> | undefined;
    const run = startUpload({
      url: srv.url,
      token: admin,
      path: '/reload.bin',
      source: data,
      tus: SMALL,
      onChunk: (offset) => {
        if (offset >= 300_000) aborted ??= run.upload.abort(false);
      },
    });
    await vi.waitUntil(() => aborted !== undefined, { timeout: 40_000, interval: 20 });
    await aborted;
    // The page is gone, but the PATCH it dropped mid-body may still be recording its bytes on a
    // loaded machine: like a reloaded page that HEADs a moment later, read the offset once it
    // stops moving.
    let offset = -1;
    for (let seen = -2; offset !== seen; ) {
      seen = offset;
      await new Promise((r) => setTimeout(r, 250));
      const h = await head(srv, admin, '/reload.bin');
      expect(h.status).toBe(200);
      offset = Number(h.headers.get('upload-offset'));
    }
    expect(offset).toBeGreaterThanOrEqual(300_000);
    expect(offset).toBeLessThan(data.length);
    // The reloaded page knows only the path: the upload URL is the path itself.
    const resumed = startUpload({ url: srv.url, token: admin, path: '/reload.bin', source: data, tus: SMALL, uploadUrl: `${srv.url}/api/tus/reload.bin` });
    await resumed.done;
    expect(resumed.chunks[0]).toBe(offset + SMALL.chunkSize);
    expect(await sha256File(path.join(srv.root, 'reload.bin'))).toBe(sha256(data));
  });
});

describe('tus under a base URL', () => {
  const srv = useServer({ baseURL: '/coffer' });
  it('puts the prefix in Location and uploads through it', async () => {
    const admin = await srv.login();
    const res = await create(srv, admin, '/based.txt?override=false', '3');
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe('/coffer/api/tus/based.txt');
    expect((await del(srv, admin, '/based.txt')).status).toBe(204);
    const data = bytes(150_000);
    await startUpload({ url: srv.url, token: admin, path: '/based.bin', source: data, tus: SMALL }).done;
    expect(await sha256File(path.join(srv.root, 'based.bin'))).toBe(sha256(data));
  });
});

describe('tus size limit and expiry', () => {
  const srv = useServer({ maxUploadSize: 1000, uploadExpiry: 1 });
  it('advertises Tus-Max-Size and answers 413 above it, creating nothing (S50)', async () => {
    const admin = await srv.login();
    expect((await srv.fetch('/api/tus/x', { method: 'OPTIONS' })).headers.get('tus-max-size')).toBe('1000');
    expect((await create(srv, admin, '/big.bin', '1001')).status).toBe(413);
    expect((await head(srv, admin, '/big.bin')).status).toBe(404);
    expect((await create(srv, admin, '/ok.bin', '1000')).status).toBe(201);
    expect((await del(srv, admin, '/ok.bin')).status).toBe(204);
  });

  it('removes an upload without a PATCH for the expiry time (S52)', async () => {
    const admin = await srv.login();
    const before = await stagedFiles(srv);
    expect((await create(srv, admin, '/stale.bin', '10')).status).toBe(201);
    expect((await patch(srv, admin, '/stale.bin', '0', Buffer.from('abc'))).status).toBe(204);
    expect((await stagedFiles(srv)).length).toBe(before.length + 1);
    // The sweep runs every quarter of the expiry: wait for it to remove the staging file.
    const deadline = Date.now() + 5000;
    while ((await stagedFiles(srv)).length > before.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await stagedFiles(srv)).toEqual(before);
    expect((await head(srv, admin, '/stale.bin')).status).toBe(404);
    expect((await patch(srv, admin, '/stale.bin', '3', Buffer.from('d'))).status).toBe(404);
    expect((await del(srv, admin, '/stale.bin')).status).toBe(404);
    expect(await exists(path.join(srv.root, 'stale.bin'))).toBe(false);
    // The path is free again.
    expect((await create(srv, admin, '/stale.bin', '1')).status).toBe(201);
  });
});
