import http from 'node:http';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { useServer } from './harness.js';
import { denyPath, denyRegex, member, put, rawRequest } from './resources-support.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
const RFC3339_NANO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$/;

describe('GET /api/resources/{path}', () => {
  const srv = useServer();

  it('answers 401 without a token', async () => {
    expect((await srv.fetch('/api/resources/')).status).toBe(401);
  });

  it('redirects the bare prefix to the scope root', async () => {
    const u = await member(srv.get());
    const res = await srv.fetch('/api/resources', { token: u.token });
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('/api/resources/');
  });

  it('answers 403 for paths that climb out of the scope, encoded or not, and never redirects (S1, S2)', async () => {
    const u = await member(srv.get());
    await put(srv.root, 'top-secret.txt', 'x');
    for (const p of ['/api/resources/..', '/api/resources/../top-secret.txt', '/api/resources/%2e%2e/%2e%2e/top-secret.txt', '/api/resources/a%2f..%2f..%2f..%2fetc']) {
      const res = await rawRequest(srv.get(), p, { token: u.token });
      expect(res.status, p).toBe(403);
    }
  });

  it('answers 403 for a link out of the scope, for what is below it, and leaves it out of listings (S4, S6)', async () => {
    const u = await member(srv.get());
    await put(srv.root, 'outside/secret.txt', 'secret');
    await symlink(path.join(srv.root, 'outside'), path.join(u.dir, 'out'));
    await symlink(path.join(srv.root, 'outside/secret.txt'), path.join(u.dir, 'out.txt'));
    await symlink('/etc/passwd', path.join(u.dir, 'passwd'));
    await symlink('/nonexistent/x', path.join(u.dir, 'dangling-out'));
    await put(u.dir, 'ok.txt', 'ok');
    for (const p of ['out', 'out/', 'out/secret.txt', 'out.txt', 'passwd', 'dangling-out']) {
      expect((await srv.fetch(`/api/resources/${p}`, { token: u.token })).status, p).toBe(403);
    }
    const list = await (await srv.fetch('/api/resources/', { token: u.token })).json();
    expect(list.items.map((i: { name: string }) => i.name)).toEqual(['ok.txt']);
    expect(list.numFiles).toBe(1);
  });

  it('compresses a big listing when the client accepts it, and sends the same JSON plain otherwise', async () => {
    const u = await member(srv.get());
    for (let i = 0; i < 400; i++) await put(u.dir, `many/file-${String(i).padStart(4, '0')}.txt`, 'x');
    const plain = await rawRequest(srv.get(), '/api/resources/many/', { token: u.token });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    // Big listings leave while they are written: no length up front.
    expect(plain.headers['content-length']).toBeUndefined();
    expect(plain.headers['transfer-encoding']).toBe('chunked');
    const listing = JSON.parse(plain.text);
    expect(listing.items).toHaveLength(400);
    for (const [accept, coding, decode] of [
      ['gzip, deflate, br, zstd', 'br', brotliDecompressSync],
      ['gzip, deflate', 'gzip', gunzipSync],
      ['br;q=0, gzip', 'gzip', gunzipSync],
    ] as const) {
      const res = await rawRequest(srv.get(), '/api/resources/many/', { token: u.token, headers: { 'Accept-Encoding': accept } });
      expect(res.status, accept).toBe(200);
      expect(res.headers['content-encoding'], accept).toBe(coding);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.body.length, accept).toBeLessThan(plain.body.length / 5);
      expect(JSON.parse(decode(res.body).toString('utf8')), accept).toEqual(listing);
    }
    // Small answers stay plain whatever is accepted.
    const small = await rawRequest(srv.get(), '/api/resources/', { token: u.token, headers: { 'Accept-Encoding': 'br, gzip' } });
    expect(small.status).toBe(200);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(Number(small.headers['content-length'])).toBe(small.body.length);
    expect(JSON.parse(small.text).items.map((i: { name: string }) => i.name)).toEqual(['many']);
  });

  it('streams a big listing in order, and survives a client that leaves halfway', async () => {
    const u = await member(srv.get());
    const N = 5000; // more than two pieces of the streamed answer
    await mkdir(path.join(u.dir, 'huge', 'sub'), { recursive: true });
    await Promise.all(Array.from({ length: N }, (_, i) => writeFile(path.join(u.dir, 'huge', `f${i}.txt`), 'x'.repeat(i % 3))));
    await symlink('f7.txt', path.join(u.dir, 'huge', 'a-link'));
    // Leaves after the first bytes of the answer.
    const url = new URL(srv.url);
    await new Promise<void>((resolve, reject) => {
      const req = http.get({ host: url.hostname, port: url.port, path: '/api/resources/huge/', headers: { 'X-Auth': u.token } }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (e) => (req.destroyed ? resolve() : reject(e)));
    });
    const res = await rawRequest(srv.get(), '/api/resources/huge/', { token: u.token });
    expect(res.status).toBe(200);
    const list = JSON.parse(res.text);
    expect(list.numDirs).toBe(1);
    expect(list.numFiles).toBe(N + 1);
    const names = list.items.map((i: { name: string }) => i.name);
    // Folders first, then natural name order (descending for asc: true, docs/api.md §7.5).
    const aToZ = ['a-link', ...Array.from({ length: N }, (_, i) => `f${i}.txt`)];
    expect(names).toEqual(['sub', ...(list.sorting.asc ? aToZ.reverse() : aToZ)]);
    expect(list.items.find((i: { name: string }) => i.name === 'a-link')).toMatchObject({ isSymlink: true, size: 7 % 3 });
    expect(list.items.find((i: { name: string }) => i.name === 'f4999.txt')).toMatchObject({ size: 4999 % 3, path: '/huge/f4999.txt' });
  });

  it('answers 400 for NUL, control characters, bad UTF-8 and overlong names', async () => {
    const u = await member(srv.get());
    for (const p of ['a%00b', 'a%0a', '%c0%ae%c0%ae', '%ff', 'x'.repeat(300)]) {
      const res = await rawRequest(srv.get(), `/api/resources/${p}`, { token: u.token });
      expect(res.status, p).toBe(400);
    }
  });

  it('treats odd but harmless paths as literal names (404, S2)', async () => {
    const u = await member(srv.get());
    for (const p of ['..;', '%252e%252e/x', '..%5Cx', 'a\\b']) {
      const res = await rawRequest(srv.get(), `/api/resources/${p}`, { token: u.token });
      expect(res.status, p).toBe(404);
    }
  });

  it('answers 403 for rule-denied and hidden paths and leaves them out of listings (S3, S12)', async () => {
    const u = await member(srv.get(), { rules: [denyPath('/private'), denyRegex('\\.key$')], hideDotfiles: true });
    await put(u.dir, 'private/a.txt', 'a');
    await put(u.dir, 'private_backup/b.txt', 'b');
    await put(u.dir, 'id.key', 'k');
    await put(u.dir, '.env', 'e');
    await put(u.dir, 'visible.txt', 'v');
    for (const p of ['private', 'private/', 'private/a.txt', 'id.key', '.env', 'x/../private/a.txt']) {
      const res = await rawRequest(srv.get(), `/api/resources/${p}`, { token: u.token });
      expect(res.status, p).toBe(403);
    }
    const list = await (await srv.fetch('/api/resources/', { token: u.token })).json();
    expect(list.items.map((i: { name: string }) => i.name).sort()).toEqual(['private_backup', 'visible.txt']);
    expect([list.numDirs, list.numFiles]).toEqual([1, 1]);
  });

  it('applies global rules to admins too', async () => {
    const admin = await srv.login();
    await srv.deps.settings.saveSettings({ ...(await srv.deps.settings.settings()), rules: [denyPath('/global-deny')] });
    try {
      await put(srv.root, 'global-deny/x.txt', 'x');
      expect((await srv.fetch('/api/resources/global-deny/x.txt', { token: admin })).status).toBe(403);
    } finally {
      await srv.deps.settings.saveSettings({ ...(await srv.deps.settings.settings()), rules: [] });
    }
  });

  it('answers 400 for an unknown checksum algorithm and 404 for a missing path', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'a.txt', 'a');
    expect((await srv.fetch('/api/resources/a.txt?checksum=crc32', { token: u.token })).status).toBe(400);
    expect((await srv.fetch('/api/resources/a.txt?checksum=SHA256', { token: u.token })).status).toBe(400);
    expect((await srv.fetch('/api/resources/missing.txt', { token: u.token })).status).toBe(404);
  });

  it('lists a folder with exactly the fields of docs/api.md §7.2', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'docs/a.txt', 'hello');
    await mkdir(path.join(u.dir, 'docs/sub'));
    await put(u.dir, 'docs/pic.png', PNG);
    const res = await srv.fetch('/api/resources/docs/', { token: u.token });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = await res.json();
    // `sorting` comes before `items` (unlike File Browser): a client reading the streamed answer
    // knows the order of the rows from the first piece on. JSON member order means nothing else.
    expect(Object.keys(body)).toEqual(['path', 'name', 'size', 'extension', 'modified', 'mode', 'isDir', 'isSymlink', 'type', 'sorting', 'items', 'numDirs', 'numFiles']);
    expect(body).toMatchObject({ path: '/docs', name: 'docs', extension: '', isDir: true, isSymlink: false, type: '', numDirs: 1, numFiles: 2 });
    expect(body.modified).toMatch(RFC3339_NANO);
    expect(body.mode).toBeGreaterThanOrEqual(2 ** 31);
    const a = body.items.find((i: { name: string }) => i.name === 'a.txt');
    expect(Object.keys(a)).toEqual(['path', 'name', 'size', 'extension', 'modified', 'mode', 'isDir', 'isSymlink', 'type']);
    expect(a).toMatchObject({ path: '/docs/a.txt', size: 5, extension: '.txt', isDir: false, isSymlink: false, type: 'text', mode: 0o644 });
    expect(body.items.find((i: { name: string }) => i.name === 'pic.png').type).toBe('image');
    expect(body.items[0].name).toBe('sub'); // folders first
  });

  it('names the scope root "" with path "/"', async () => {
    const u = await member(srv.get());
    const body = await (await srv.fetch('/api/resources/', { token: u.token })).json();
    expect(body.path).toBe('/');
    expect(body.name).toBe('');
    expect(body.items).toEqual([]);
  });

  it('shows links inside the scope with the target data and broken links as invalid_link', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'real/t.txt', '12345678');
    await symlink('real/t.txt', path.join(u.dir, 'link.txt'));
    await symlink('real', path.join(u.dir, 'linkdir'));
    await symlink('real/missing', path.join(u.dir, 'broken'));
    const body = await (await srv.fetch('/api/resources/', { token: u.token })).json();
    const by = (n: string) => body.items.find((i: { name: string }) => i.name === n);
    expect(by('link.txt')).toMatchObject({ isSymlink: true, size: 8, isDir: false, type: 'text' });
    expect(by('linkdir')).toMatchObject({ isSymlink: true, isDir: true });
    expect(by('broken')).toMatchObject({ isSymlink: true, isDir: false, type: 'invalid_link' });
    expect(body.numDirs).toBe(2);
    expect(body.numFiles).toBe(2);
    const viaLink = await (await srv.fetch('/api/resources/linkdir/t.txt', { token: u.token })).json();
    expect(viaLink.content).toBe('12345678');
  });

  it('answers 403 for a symlink loop without hanging', async () => {
    const u = await member(srv.get());
    await symlink('b', path.join(u.dir, 'a'));
    await symlink('a', path.join(u.dir, 'b'));
    expect((await srv.fetch('/api/resources/a', { token: u.token })).status).toBe(403);
    const list = await (await srv.fetch('/api/resources/', { token: u.token })).json();
    expect(list.items).toEqual([]);
  });

  it('never opens a listed file: a named pipe lists instantly as blob (S85)', async () => {
    const u = await member(srv.get());
    execFileSync('mkfifo', [path.join(u.dir, 'pipe')]);
    await put(u.dir, 'fake.txt', PNG); // content would sniff as PNG; listings go by extension
    await put(u.dir, 'noext', PNG);
    const body = await (await srv.fetch('/api/resources/', { token: u.token, signal: AbortSignal.timeout(5000) })).json();
    const by = (n: string) => body.items.find((i: { name: string }) => i.name === n);
    expect(by('pipe').type).toBe('blob');
    expect(by('fake.txt').type).toBe('text');
    expect(by('noext').type).toBe('text');
    // The single-file answer reads the first 512 bytes and sniffs.
    expect((await (await srv.fetch('/api/resources/noext', { token: u.token })).json()).type).toBe('image');
    expect((await (await srv.fetch('/api/resources/pipe', { token: u.token, signal: AbortSignal.timeout(5000) })).json()).type).toBe('blob');
  });

  it('sorts with File Browser quirks per the user sorting', async () => {
    const names = (b: { items: { name: string }[] }) => b.items.map((i) => i.name);
    const files = ['file10.txt', 'File2.txt', 'a.txt', 'file1.txt'];
    const mk = async (sorting: { by: string; asc: boolean }) => {
      const u = await member(srv.get(), { sorting });
      for (const [i, f] of files.entries()) await put(u.dir, f, 'x'.repeat(i + 1));
      await mkdir(path.join(u.dir, 'zdir'));
      return (await srv.fetch('/api/resources/', { token: u.token })).json();
    };
    expect(names(await mk({ by: 'name', asc: false }))).toEqual(['zdir', 'a.txt', 'file1.txt', 'File2.txt', 'file10.txt']);
    expect(names(await mk({ by: 'name', asc: true }))).toEqual(['zdir', 'file10.txt', 'File2.txt', 'file1.txt', 'a.txt']);
    const bySize = names(await mk({ by: 'size', asc: false }));
    expect(bySize.slice(0, 4)).toEqual(['file1.txt', 'a.txt', 'File2.txt', 'file10.txt']);
    expect(bySize[4]).toBe('zdir');
    expect(names(await mk({ by: 'size', asc: true }))).toEqual(['zdir', 'file10.txt', 'File2.txt', 'a.txt', 'file1.txt']);
    const sorting = (await mk({ by: 'name', asc: true })).sorting;
    expect(sorting).toEqual({ by: 'name', asc: true });
  });

  it('answers a text file with its content; without download: no content, 403 for bytes and checksums (S10)', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'notes.md', '# hi\n');
    const res = await srv.fetch('/api/resources/notes.md', { token: u.token });
    const body = await res.json();
    expect(Object.keys(body)).toEqual(['path', 'name', 'size', 'extension', 'modified', 'mode', 'isDir', 'isSymlink', 'type', 'content']);
    expect(body).toMatchObject({ path: '/notes.md', name: 'notes.md', extension: '.md', type: 'text', content: '# hi\n', size: 5 });

    const ro = await member(srv.get(), { perm: { download: false, modify: false } });
    await put(ro.dir, 'notes.md', '# hi\n');
    const meta = await (await srv.fetch('/api/resources/notes.md', { token: ro.token })).json();
    expect(meta.type).toBe('textImmutable');
    expect(meta.content).toBeUndefined();
    expect((await srv.fetch('/api/resources/notes.md?checksum=md5', { token: ro.token })).status).toBe(403);
    expect((await srv.fetch('/api/resources/notes.md', { token: ro.token, headers: { 'X-Encoding': 'true' } })).status).toBe(403);
  });

  it('answers X-Encoding: true with the exact bytes of a text file', async () => {
    const u = await member(srv.get());
    const bytes = Buffer.from('line1\r\nline2 \u00e9\n');
    await put(u.dir, 'raw.txt', bytes);
    const res = await srv.fetch('/api/resources/raw.txt', { token: u.token, headers: { 'X-Encoding': 'true' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    await put(u.dir, 'pic.png', PNG);
    const json = await srv.fetch('/api/resources/pic.png', { token: u.token, headers: { 'X-Encoding': 'true' } });
    expect((await json.json()).type).toBe('image');
  });

  it('answers ?checksum= with the digest and no content; ignores it for folders', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'a.txt', 'hello');
    for (const algo of ['md5', 'sha1', 'sha256', 'sha512']) {
      const body = await (await srv.fetch(`/api/resources/a.txt?checksum=${algo}`, { token: u.token })).json();
      expect(body.checksums).toEqual({ [algo]: createHash(algo).update('hello').digest('hex') });
      expect(body.content).toBeUndefined();
    }
    const dir = await (await srv.fetch('/api/resources/?checksum=md5', { token: u.token })).json();
    expect(dir.checksums).toBeUndefined();
    expect(dir.items).toHaveLength(1);
  });

  it('never carries content for text over 10 MiB and answers quickly (S81)', async () => {
    const u = await member(srv.get());
    await writeFile(path.join(u.dir, 'big.txt'), Buffer.alloc(10 * 1024 * 1024 + 1, 0x61));
    const body = await (await srv.fetch('/api/resources/big.txt', { token: u.token })).json();
    expect(body.type).toBe('blob');
    expect(body.content).toBeUndefined();
    await writeFile(path.join(u.dir, 'edge.txt'), Buffer.alloc(10 * 1024 * 1024, 0x61));
    const edge = await (await srv.fetch('/api/resources/edge.txt', { token: u.token })).json();
    expect(edge.type).toBe('text');
    expect(edge.content).toHaveLength(10 * 1024 * 1024);
  });

  it('reports binary files as blob and lists subtitles of a video', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'data.bin', Buffer.from([0, 1, 2, 3]));
    expect((await (await srv.fetch('/api/resources/data.bin', { token: u.token })).json()).type).toBe('blob');
    await put(u.dir, 'movie.mp4', Buffer.alloc(16));
    await put(u.dir, 'movie.en.vtt', 'WEBVTT');
    await put(u.dir, 'other.srt', '1');
    await put(u.dir, 'Subs/any.srt', '1');
    await put(u.dir, 'subs2/x.srt', '1');
    const body = await (await srv.fetch('/api/resources/movie.mp4', { token: u.token })).json();
    expect(body.type).toBe('video');
    expect(body.subtitles).toEqual(['/movie.en.vtt', '/Subs/any.srt']);
  });
});

describe('GET /api/resources/recursive/{path}', () => {
  const srv = useServer();
  it('answers 401 without a token and 400 for a file', async () => {
    expect((await srv.fetch('/api/resources/recursive/')).status).toBe(401);
    const u = await member(srv.get());
    await put(u.dir, 'a.txt', 'a');
    expect((await srv.fetch('/api/resources/recursive/a.txt', { token: u.token })).status).toBe(400);
    expect((await srv.fetch('/api/resources/recursive/missing/', { token: u.token })).status).toBe(404);
  });
  it('lists every allowed descendant depth first', async () => {
    const u = await member(srv.get(), { rules: [denyPath('/b/secret')] });
    await put(u.dir, 'a.txt', 'a');
    await put(u.dir, 'b/c.txt', 'c');
    await put(u.dir, 'b/secret/s.txt', 's');
    const body = await (await srv.fetch('/api/resources/recursive/', { token: u.token })).json();
    expect(body.map((e: { path: string }) => e.path)).toEqual(['/a.txt', '/b', '/b/c.txt']);
    expect(Object.keys(body[0])).toEqual(['path', 'name', 'size', 'modified', 'isDir']);
  });
});

describe('GET /api/resources with type detection by header disabled', () => {
  const srv = useServer({ disableTypeDetectionByHeader: true });
  it('types a file without a known extension by the binary check only', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'noext', PNG);
    await put(u.dir, 'plain', 'just text');
    expect((await (await srv.fetch('/api/resources/noext', { token: u.token })).json()).type).toBe('blob');
    expect((await (await srv.fetch('/api/resources/plain', { token: u.token })).json()).type).toBe('text');
  });
});
