/**
 * GET /api/public/dl (docs/api.md §15): files with the raw download's headers, inline, Range and
 * validators (S60, S61, S64), and archives of shared folders in all nine formats, opened with the
 * standard tools, holding only what the share may show (S47, S55, S56, S57).
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { uncompressSync } from 'snappy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useServer } from './harness.js';
import { actor, put, rawRequest, share, type Actor } from './shares-support.js';

const srv = useServer();
let owner: Actor;
let work: string;
let folder: string;
let file: string;
let html: string;
let locked: string;

const DATA = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));

beforeAll(async () => {
  const s = (rel: string, c?: string | Buffer) => put(srv.get(), `own/${rel}`, c);
  await s('pub/folder/a.txt', 'alpha');
  await s('pub/folder/data.bin', DATA);
  await s('pub/folder/sub/b.txt', 'beta');
  await s('pub/folder/back\\slash.txt', 'bs');
  await s('pub/folder/private/p.txt', 'PRIVATE-BYTES');
  await s('pub/folder/.dot.txt', 'DOT-BYTES');
  await s('pub/folder/page.html', '<script>alert(1)</script>');
  await s('pub/report.txt', 'report body');
  await s('pub/other/secret.txt', 'OTHER-SECRET');
  await put(srv.get(), 'outside.txt', 'OUTSIDE-SECRET');
  const f = path.join(srv.root, 'own/pub/folder');
  await symlink(path.join(srv.root, 'own/pub/other'), path.join(f, 'esc-dir'));
  await symlink('../other/secret.txt', path.join(f, 'esc-file.txt'));
  await symlink(path.join(srv.root, 'outside.txt'), path.join(f, 'out.txt'));
  await symlink('sub', path.join(f, 'in-dir'));
  await symlink('a.txt', path.join(f, 'in-file.txt'));
  owner = await actor(srv.get(), {
    scope: '/own',
    hideDotfiles: true,
    rules: [{ regex: false, allow: false, path: '/pub/folder/private', regexp: null }],
  });
  folder = (await share(srv.get(), owner, '/pub/folder/')).hash;
  file = (await share(srv.get(), owner, '/pub/report.txt')).hash;
  html = (await share(srv.get(), owner, '/pub/folder/page.html')).hash;
  locked = (await share(srv.get(), owner, '/pub/folder/', { password: 'let me in' })).hash;
  work = await mkdtemp(path.join(tmpdir(), 'coffer-public-dl-'));
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const LEAKS = /PRIVATE-BYTES|DOT-BYTES|OTHER-SECRET|OUTSIDE-SECRET/;

/** Snappy framing format (stream identifier, CRC-32C chunks) → the raw bytes. */
function unsnappyFramed(buf: Buffer): Buffer {
  const out: Buffer[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const type = buf[pos]!;
    const len = buf.readUIntLE(pos + 1, 3);
    const body = buf.subarray(pos + 4, pos + 4 + len);
    if (type === 0x00) out.push(uncompressSync(body.subarray(4)) as Buffer);
    else if (type === 0x01) out.push(body.subarray(4));
    else if (type !== 0xff && type < 0x80) throw new Error(`unknown snappy chunk ${type}`);
    pos += 4 + len;
  }
  return Buffer.concat(out);
}

/** Opens an archive with the standard tools; returns the entry names and a reader of entries. */
function open(algo: string, body: Buffer): { names: string[]; read(name: string): Buffer } {
  const dir = path.join(work, `${algo}-${Math.random().toString(36).slice(2)}`);
  execFileSync('mkdir', ['-p', dir]);
  const write = (f: string, b: Buffer) => execFileSync('sh', ['-c', 'cat > "$1"', 'sh', f], { input: b });
  if (algo === 'zip') {
    const f = `${dir}.zip`;
    write(f, body);
    execFileSync('unzip', ['-tq', f]);
    execFileSync('unzip', ['-q', '-o', f, '-d', dir]);
    const names = execFileSync('unzip', ['-Z1', f]).toString('utf8').split('\n').filter(Boolean);
    return { names: names.sort(), read: (n) => execFileSync('cat', [path.join(dir, n)]) };
  }
  const decoders: Record<string, (b: Buffer) => Buffer> = {
    tar: (b) => b,
    targz: (b) => gunzipSync(b),
    tarbz2: (b) => execFileSync('bzip2', ['-dc'], { input: b, maxBuffer: 1 << 28 }),
    tarxz: (b) => execFileSync('xz', ['-dc'], { input: b, maxBuffer: 1 << 28 }),
    tarlz4: (b) => execFileSync('lz4', ['-dc'], { input: b, maxBuffer: 1 << 28 }),
    tarsz: unsnappyFramed,
    tarbr: (b) => brotliDecompressSync(b),
    tarzst: (b) => execFileSync('zstd', ['-dc'], { input: b, maxBuffer: 1 << 28 }),
  };
  const f = `${dir}.tar`;
  write(f, decoders[algo]!(body));
  execFileSync('tar', ['-x', '-f', f, '-C', dir]);
  const names = execFileSync('tar', ['-t', '-f', f]).toString('utf8').split('\n').filter(Boolean);
  return { names: names.sort(), read: (n) => execFileSync('cat', [path.join(dir, n)]) };
}

async function download(p: string, init: RequestInit = {}) {
  const res = await srv.fetch(p, init);
  return { res, body: Buffer.from(await res.arrayBuffer()) };
}

const EXTENSIONS: Record<string, string> = {
  zip: '.zip',
  tar: '.tar',
  targz: '.tar.gz',
  tarbz2: '.tar.bz2',
  tarxz: '.tar.xz',
  tarlz4: '.tar.lz4',
  tarsz: '.tar.sz',
  tarbr: '.tar.br',
  tarzst: '.tar.zst',
};

/** What the share may show of the folder, as entry names. */
const EXPECTED = ['a.txt', 'back_slash.txt', 'data.bin', 'in-dir/', 'in-dir/b.txt', 'in-file.txt', 'page.html', 'sub/', 'sub/b.txt'].sort();

describe('GET /api/public/dl of a file', () => {
  it('downloads a shared file as an attachment with the file-bytes headers (S60, S61, S64)', async () => {
    const { res, body } = await download(`/api/public/dl/${file}`);
    expect(res.status).toBe(200);
    expect(body.toString()).toBe('report body');
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="report.txt"; filename*=utf-8''report.txt`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'none'");
    expect(res.headers.get('cache-control')).toBe('private');
    expect(res.headers.get('last-modified')).toBeTruthy();
    expect(res.headers.get('accept-ranges')).toBe('bytes');
  });

  it('ignores the file\'s own name after the hash', async () => {
    const { res, body } = await download(`/api/public/dl/${file}/report.txt`);
    expect(res.status).toBe(200);
    expect(body.toString()).toBe('report body');
  });

  it('serves inline with the file\'s type, and sandboxes active content (S60)', async () => {
    const text = await srv.fetch(`/api/public/dl/${file}?inline=true`);
    expect(text.headers.get('content-disposition')).toMatch(/^inline; /);
    expect(text.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(text.headers.get('content-security-policy')).not.toContain('sandbox');
    const page = await srv.fetch(`/api/public/dl/${html}?inline=true`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain('sandbox');
    expect(page.headers.get('content-security-policy')).not.toContain('allow-scripts');
  });

  it('honours Range (206, 416) and conditional requests, with and without inline', async () => {
    const part = await download(`/api/public/dl/${folder}/data.bin`, { headers: { Range: 'bytes=10-19' } });
    expect(part.res.status).toBe(206);
    expect(part.res.headers.get('content-range')).toBe('bytes 10-19/1000');
    expect(part.body.equals(DATA.subarray(10, 20))).toBe(true);
    const tail = await download(`/api/public/dl/${folder}/data.bin?inline=true`, { headers: { Range: 'bytes=-5' } });
    expect(tail.res.status).toBe(206);
    expect(tail.body.equals(DATA.subarray(995))).toBe(true);
    const bad = await srv.fetch(`/api/public/dl/${folder}/data.bin`, { headers: { Range: 'bytes=5000-' } });
    expect(bad.status).toBe(416);
    expect(bad.headers.get('content-range')).toBe('bytes */1000');
    const lm = (await srv.fetch(`/api/public/dl/${file}`)).headers.get('last-modified')!;
    expect((await srv.fetch(`/api/public/dl/${file}`, { headers: { 'If-Modified-Since': lm } })).status).toBe(304);
  });

  it('downloads files inside a shared folder, through links that stay inside it', async () => {
    expect((await download(`/api/public/dl/${folder}/sub/b.txt`)).body.toString()).toBe('beta');
    expect((await download(`/api/public/dl/${folder}/in-dir/b.txt`)).body.toString()).toBe('beta');
    expect((await download(`/api/public/dl/${folder}/in-file.txt`)).body.toString()).toBe('alpha');
  });

  it('refuses escaping links (403) and hidden or denied files (404) without a byte of them', async () => {
    for (const [sub, want] of [
      ['esc-dir/secret.txt', 403],
      ['esc-file.txt', 403],
      ['out.txt', 403],
      ['private/p.txt', 404],
      ['.dot.txt', 404],
      ['nope.txt', 404],
    ] as const) {
      const r = await rawRequest(srv.get(), `/api/public/dl/${folder}/${sub}`);
      expect(r.status, sub).toBe(want);
      expect(r.body.toString('latin1')).not.toMatch(LEAKS);
    }
  });
});

describe('GET /api/public/dl of a folder: archives', () => {
  for (const algo of Object.keys(EXTENSIONS)) {
    it(`${algo}: the whole share, named after the folder, with only what the share shows (S55, S56)`, async () => {
      const { res, body } = await download(`/api/public/dl/${folder}?algo=${algo}`);
      expect(res.status, body.toString().slice(0, 200)).toBe(200);
      expect(res.headers.get('content-disposition')).toBe(`attachment; filename="folder${EXTENSIONS[algo]}"; filename*=utf-8''folder${EXTENSIONS[algo]}`);
      expect(res.headers.get('cache-control')).toBe('private');
      expect(res.headers.get('content-security-policy')).toContain("script-src 'none'");
      const a = open(algo, body);
      expect(a.names).toEqual(EXPECTED);
      expect(a.read('a.txt').toString()).toBe('alpha');
      expect(a.read('in-dir/b.txt').toString()).toBe('beta');
      expect(a.read('data.bin').equals(DATA)).toBe(true);
      expect(body.toString('latin1')).not.toMatch(/PRIVATE-BYTES|DOT-BYTES|OUTSIDE-SECRET/);
    });
  }

  it('zips by default, also for algo=true and an empty algo', async () => {
    for (const q of ['', '?algo=', '?algo=true', '?algo=zip']) {
      const { res, body } = await download(`/api/public/dl/${folder}/${q}`);
      expect(res.status, q).toBe(200);
      expect(res.headers.get('content-disposition'), q).toContain("filename*=utf-8''folder.zip");
      expect(open('zip', body).names, q).toEqual(EXPECTED);
    }
  });

  it('archives a sub-folder under its own name', async () => {
    const { res, body } = await download(`/api/public/dl/${folder}/sub?algo=tar`);
    expect(res.headers.get('content-disposition')).toContain("filename*=utf-8''sub.tar");
    expect(open('tar', body).names).toEqual(['b.txt']);
  });

  it('archives a files= selection relative to the folder, with the _ prefix for several items', async () => {
    const list = encodeURIComponent(['a.txt', 'sub', encodeURIComponent('back\\slash.txt')].join(','));
    const { res, body } = await download(`/api/public/dl/${folder}/?files=${list}&algo=targz`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain("filename*=utf-8''_folder.tar.gz");
    expect(open('targz', body).names).toEqual(['a.txt', 'back_slash.txt', 'sub/', 'sub/b.txt']);
    const one = await download(`/api/public/dl/${folder}/?files=${encodeURIComponent('/sub/b.txt')}`);
    expect(one.res.headers.get('content-disposition')).toContain("filename*=utf-8''b.txt.zip");
    expect(open('zip', one.body).names).toEqual(['b.txt']);
  });

  it('refuses files= entries that climb out, escape through a link, are hidden or missing, before any byte (S47, S57)', async () => {
    const cases: [string, number][] = [
      ['../other/secret.txt', 403],
      ['%2e%2e%2fother', 403],
      ['sub/../../other', 403],
      ['a.txt,../other/secret.txt', 403],
      ['esc-dir', 403],
      ['esc-dir/secret.txt', 403],
      ['out.txt', 403],
      ['private', 404],
      ['.dot.txt', 404],
      ['nope', 404],
      ['%252e%252e', 404],
      ['a%00', 400],
    ];
    for (const [list, want] of cases) {
      const r = await rawRequest(srv.get(), `/api/public/dl/${folder}/?algo=tar&files=${encodeURIComponent(list)}`);
      expect(r.status, list).toBe(want);
      expect(r.headers['content-disposition'], list).toBeUndefined();
      expect(r.body.toString('latin1'), list).not.toMatch(LEAKS);
    }
  });

  it('answers 400 to an unknown algo (S57)', async () => {
    for (const algo of ['rar', 'ZIP', 'tar.gz', '7z']) {
      const res = await srv.fetch(`/api/public/dl/${folder}?algo=${encodeURIComponent(algo)}`);
      expect(res.status, algo).toBe(400);
      expect(await res.text()).toMatch(/^400 Bad Request/);
    }
  });

  it('needs the password or the token for a protected folder, archives included', async () => {
    expect((await srv.fetch(`/api/public/dl/${locked}?algo=tar`)).status).toBe(401);
    const listing = await srv.fetch(`/api/public/share/${locked}`, { headers: { 'X-SHARE-PASSWORD': encodeURIComponent('let me in') } });
    const { token } = (await listing.json()) as { token: string };
    const { res, body } = await download(`/api/public/dl/${locked}/?files=${encodeURIComponent('a.txt,sub')}&algo=tarzst&token=${encodeURIComponent(token)}`);
    expect(res.status).toBe(200);
    expect(open('tarzst', body).names).toEqual(['a.txt', 'sub/', 'sub/b.txt']);
    expect((await srv.fetch(`/api/public/dl/${locked}?algo=tar&token=${encodeURIComponent(token.slice(0, -2) + 'xx')}`)).status).toBe(401);
  });

  it('never names an archive of a shared scope root after the owner\'s folder', async () => {
    await put(srv.get(), 'home-of-someone/x.txt', 'x');
    const homeOwner = await actor(srv.get(), { scope: '/home-of-someone' });
    const h = (await share(srv.get(), homeOwner, '/')).hash;
    const { res, body } = await download(`/api/public/dl/${h}?algo=tar`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).not.toContain('home-of-someone');
    expect(open('tar', body).names).toEqual(['x.txt']);
    const json = await (await srv.fetch(`/api/public/share/${h}`)).text();
    expect(json).not.toContain('home-of-someone');
  });

  it('archives the file bytes of the tree as they are on disk', async () => {
    const { body } = await download(`/api/public/dl/${folder}?algo=tarxz`);
    const a = open('tarxz', body);
    expect(a.read('page.html').equals(await readFile(path.join(srv.root, 'own/pub/folder/page.html')))).toBe(true);
  });
});
