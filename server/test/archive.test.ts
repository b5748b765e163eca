/**
 * Archive downloads (docs/api.md §8; S10, S55, S56, S57): every format is opened with the standard
 * tools (unzip; tar with gzip, bzip2, xz, lz4, brotli, zstd; a Snappy framing decoder written
 * here), and names, contents, modes and times are compared with the tree on disk.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gzipActivity } from '../src/features/archive/gzip-parallel.js';
import { archiveActivity } from '../src/features/archive/service.js';
import { useServer } from './harness.js';
import { putFile, rawGet } from './raw-helpers.js';

const srv = useServer();
let admin: string;
let userToken: string;
let work: string;
const MTIME = new Date('2023-06-15T08:30:00Z');
/** 1.5 MiB that compresses somewhat: read through the streaming path, not the read-ahead. */
const BIG = Buffer.from(Array.from({ length: 1536 * 1024 }, (_, i) => (i * 31 + (i >> 10)) & 0xff));

beforeAll(async () => {
  admin = await srv.login();
  const r = srv.root;
  await putFile(r, 'arch/a.txt', 'alpha\n', MTIME);
  await putFile(r, 'arch/run.sh', '#!/bin/sh\necho hi\n', MTIME);
  await chmod(path.join(r, 'arch/run.sh'), 0o755);
  await chmod(path.join(r, 'arch/a.txt'), 0o640);
  await putFile(r, 'arch/é ü name.txt', 'unicode\n', MTIME);
  await putFile(r, 'arch/back\\slash.txt', 'backslash\n', MTIME);
  await putFile(r, 'arch/..\\evil.txt', 'evil\n', MTIME);
  await putFile(r, 'arch/sub/deep/y.txt', 'deep\n', MTIME);
  await putFile(r, 'arch/big.bin', BIG, MTIME);
  await putFile(r, 'arch/secret/s.txt', 'secret\n', MTIME);
  await putFile(r, 'arch/.dot.txt', 'dot\n', MTIME);
  await mkdir(path.join(r, 'arch/empty'));
  await symlink('a.txt', path.join(r, 'arch/link-in.txt'));
  await symlink('sub', path.join(r, 'arch/link-dir'));
  const outside = path.join(path.dirname(r), 'outside-arch');
  await mkdir(outside, { recursive: true });
  await writeFile(path.join(outside, 'leak.txt'), 'LEAK');
  await symlink(outside, path.join(r, 'arch/link-out'));
  await symlink(path.join(outside, 'leak.txt'), path.join(r, 'arch/link-out.txt'));
  await putFile(r, 'w/a b.txt', 'ab\n', MTIME);
  await putFile(r, 'w/dir/x.txt', 'x\n', MTIME);
  await putFile(r, 'w/dir/sub/y.txt', 'y\n', MTIME);
  await putFile(r, 'w/c,d.txt', 'comma\n', MTIME);
  const u = await srv.createUser({
    rules: [{ regex: false, allow: false, path: '/arch/secret', regexp: { raw: '' } }],
    hideDotfiles: true,
  });
  userToken = await srv.login(u.username, u.password);
  work = await mkdtemp(path.join(tmpdir(), 'coffer-arch-'));
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** What the restricted user may see of /arch, as archive entry names (folders with "/"). */
const EXPECTED = [
  'a.txt',
  'back_slash.txt',
  'big.bin',
  'empty/',
  'link-dir/',
  'link-dir/deep/',
  'link-dir/deep/y.txt',
  'link-in.txt',
  'run.sh',
  'sub/',
  'sub/deep/',
  'sub/deep/y.txt',
  'é ü name.txt',
].sort();

const CONTENT: Record<string, string | Buffer> = {
  'a.txt': 'alpha\n',
  'back_slash.txt': 'backslash\n',
  'big.bin': BIG,
  'link-dir/deep/y.txt': 'deep\n',
  'link-in.txt': 'alpha\n',
  'run.sh': '#!/bin/sh\necho hi\n',
  'sub/deep/y.txt': 'deep\n',
  'é ü name.txt': 'unicode\n',
};

// --- Snappy framing decoder (framing_format.txt), independent of the server's encoder ---
const CRC32C = new Uint32Array(256).map((_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32c(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC32C[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
const masked = (c: number) => ((((c >>> 15) | (c << 17)) >>> 0) + 0xa282ead8) >>> 0;
function snappyRaw(buf: Buffer): Buffer {
  let pos = 0;
  let len = 0;
  for (let shift = 0; ; shift += 7) {
    const b = buf[pos++]!;
    len += (b & 0x7f) * 2 ** shift;
    if (!(b & 0x80)) break;
  }
  const out = Buffer.alloc(len);
  let op = 0;
  while (pos < buf.length) {
    const tag = buf[pos++]!;
    const type = tag & 3;
    if (type === 0) {
      let l = tag >> 2;
      if (l >= 60) {
        const n = l - 59;
        l = buf.readUIntLE(pos, n);
        pos += n;
      }
      l += 1;
      buf.copy(out, op, pos, pos + l);
      pos += l;
      op += l;
      continue;
    }
    let l: number;
    let off: number;
    if (type === 1) {
      l = ((tag >> 2) & 7) + 4;
      off = ((tag >> 5) << 8) | buf[pos++]!;
    } else if (type === 2) {
      l = (tag >> 2) + 1;
      off = buf.readUInt16LE(pos);
      pos += 2;
    } else {
      l = (tag >> 2) + 1;
      off = buf.readUInt32LE(pos);
      pos += 4;
    }
    for (let i = 0; i < l; i++, op++) out[op] = out[op - off]!;
  }
  if (op !== len) throw new Error('snappy: length mismatch');
  return out;
}
export function unsnappyFramed(buf: Buffer): Buffer {
  if (!buf.subarray(0, 10).equals(Buffer.from([0xff, 6, 0, 0, 0x73, 0x4e, 0x61, 0x50, 0x70, 0x59])))
    throw new Error('no stream identifier');
  const out: Buffer[] = [];
  let pos = 10;
  while (pos < buf.length) {
    const type = buf[pos]!;
    const len = buf.readUIntLE(pos + 1, 3);
    const body = buf.subarray(pos + 4, pos + 4 + len);
    pos += 4 + len;
    if (type === 0x00 || type === 0x01) {
      const data = type === 0 ? snappyRaw(body.subarray(4)) : body.subarray(4);
      if (data.length > 65536) throw new Error('chunk too large');
      if (masked(crc32c(data)) !== body.readUInt32LE(0)) throw new Error('bad CRC-32C');
      out.push(data);
    } else if (type === 0xff || (type >= 0x80 && type <= 0xfe)) {
      continue;
    } else throw new Error(`unskippable chunk ${type}`);
  }
  return Buffer.concat(out);
}

// --- Opening archives with the real tools ---
const TAR_FLAGS: Record<string, string[]> = {
  tar: [],
  targz: ['-z'],
  tarbz2: ['-j'],
  tarxz: ['-J'],
  tarlz4: ['-I', 'lz4'],
  tarbr: ['-I', 'brotli'],
  tarzst: ['--zstd'],
};

let seq = 0;
/** Extracts an archive with the standard tool; returns the folder and the tool's verbose listing. */
function extract(algo: string, body: Buffer): { dir: string; listing: string; names: string[] } {
  const dir = path.join(work, `x${++seq}`);
  execFileSync('mkdir', ['-p', dir]);
  if (algo === 'zip') {
    const file = `${dir}.zip`;
    execFileSync('sh', ['-c', 'cat > "$1"', 'sh', file], { input: body });
    execFileSync('unzip', ['-tq', file]);
    execFileSync('unzip', ['-q', '-o', file, '-d', dir]);
    const names = execFileSync('unzip', ['-Z1', file]).toString('utf8').split('\n').filter(Boolean);
    return { dir, listing: execFileSync('unzip', ['-Z', '-T', file]).toString('utf8'), names };
  }
  let tarBody = body;
  let flags = TAR_FLAGS[algo]!;
  if (algo === 'tarsz') {
    tarBody = unsnappyFramed(body);
    flags = [];
  }
  const file = `${dir}.archive`;
  execFileSync('sh', ['-c', 'cat > "$1"', 'sh', file], { input: tarBody });
  execFileSync('tar', ['-x', ...flags, '-f', file, '-C', dir]);
  const listing = execFileSync('tar', ['-tv', '--full-time', '--utc', ...flags, '-f', file]).toString('utf8');
  const names = execFileSync('tar', ['-t', ...flags, '-f', file])
    .toString('utf8')
    .split('\n')
    .filter(Boolean);
  return { dir, listing, names };
}

const ALGOS = ['zip', 'tar', 'targz', 'tarbz2', 'tarxz', 'tarlz4', 'tarsz', 'tarbr', 'tarzst'];
const EXT: Record<string, string> = {
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

describe('archives in every format, opened with the standard tools', () => {
  for (const algo of ALGOS) {
    it(`${algo}: names, contents, modes and times; denied, hidden and escaping entries left out`, async () => {
      const res = await rawGet(srv, `/api/raw/arch/?algo=${algo}`, { 'X-Auth': userToken });
      expect(res.status).toBe(200);
      expect(res.headers['content-disposition']).toBe(
        `attachment; filename="arch${EXT[algo]}"; filename*=utf-8''arch${EXT[algo]}`,
      );
      expect(res.headers['content-length']).toBeUndefined();
      expect(res.headers['cache-control']).toBe('private');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-type']).toBe(
        algo === 'zip'
          ? 'application/zip'
          : algo === 'targz'
            ? 'application/x-gzip'
            : 'application/octet-stream',
      );
      const { dir, listing, names } = extract(algo, res.body);
      const normalised = names.map((n) => n.replace(/^\.\//, '')).sort();
      expect(normalised).toEqual(EXPECTED);
      for (const n of names) {
        expect(n.startsWith('/')).toBe(false);
        for (const seg of n.split(/[/\\]/)) expect(['.', '..']).not.toContain(seg);
      }
      for (const [name, content] of Object.entries(CONTENT)) {
        expect((await readFile(path.join(dir, name))).equals(Buffer.from(content)), name).toBe(true);
      }
      expect(listing).not.toContain('secret');
      expect(listing).not.toContain('.dot.txt');
      expect(listing).not.toContain('link-out');
      expect(listing).not.toContain('LEAK');
      // Modes and times as stored.
      expect((await stat(path.join(dir, 'run.sh'))).mode & 0o777).toBe(0o755);
      expect((await stat(path.join(dir, 'a.txt'))).mode & 0o777).toBe(0o640);
      expect((await stat(path.join(dir, 'a.txt'))).mtime.getTime()).toBe(MTIME.getTime());
      expect((await stat(path.join(dir, 'big.bin'))).mtime.getTime()).toBe(MTIME.getTime());
      if (algo !== 'zip') expect(listing).toMatch(/-rwxr-xr-x .* 2023-06-15 08:30:00 run\.sh/);
      else expect(listing).toMatch(/-rwxr-xr-x .* 20230615\.\d{6} run\.sh/);
    }, 60_000);
  }
});

describe('entry names can never traverse (S55)', () => {
  it('neutralises backslashes and dot names in every format', async () => {
    await putFile(srv.root, 'names/..\\evil.txt', 'evil\n');
    await putFile(srv.root, 'names/a\\..\\..\\b\\c.txt', 'c\n');
    await putFile(srv.root, 'names/C:x.txt', 'drive\n');
    await putFile(srv.root, 'names/..\\/inner.txt', 'inner\n');
    for (const algo of ['zip', 'tar']) {
      const res = await rawGet(
        srv,
        `/api/raw/?files=%2Fnames%2FC%253Ax.txt,%2Fnames%2F..%255C&algo=${algo}`,
        { 'X-Auth': admin },
      );
      expect(res.status).toBe(200);
      const all = await rawGet(srv, `/api/raw/names/?algo=${algo}`, { 'X-Auth': admin });
      const { names } = extract(algo, all.body);
      expect(names.sort()).toEqual(
        ['.._', '.._/inner.txt', '.._evil.txt', 'C_x.txt', 'a_.._.._b_c.txt']
          .map((n) => (n === '.._' && algo === 'zip' ? '.._/' : n === '.._' ? '.._/' : n))
          .sort(),
      );
      const sel = extract(algo, res.body).names.sort();
      expect(sel).toEqual(['.._/', '.._/inner.txt', 'C_x.txt']);
    }
  });
});

describe('archive requests are checked before streaming (S57, S10)', () => {
  it('answers 400 for an unknown algo', async () => {
    for (const algo of ['rar', 'ZIP', 'tar.gz', '__proto__', 'toString']) {
      const res = await rawGet(srv, `/api/raw/arch/?algo=${algo}`, { 'X-Auth': admin });
      expect(res.status, algo).toBe(400);
    }
  });

  it('treats missing, empty, zip and true as zip', async () => {
    for (const q of ['', '?algo=', '?algo=zip', '?algo=true']) {
      const res = await rawGet(srv, `/api/raw/w/dir${q}`, { 'X-Auth': admin });
      expect(res.status).toBe(200);
      expect(res.headers['content-disposition']).toMatch(/filename="dir\.zip"/);
      expect(res.body.subarray(0, 4).toString('latin1')).toBe('PK\x03\x04');
    }
  });

  it('answers 404 for a missing files= entry and 403 for a denied or escaping one, with no archive bytes', async () => {
    const cases: [string, number, string][] = [
      ['/api/raw/?files=%2Fw%2Fa%2520b.txt,%2Fw%2Fnope.txt', 404, admin],
      ['/api/raw/?files=%2Farch%2Fsecret', 403, userToken],
      ['/api/raw/?files=%2Farch%2F.dot.txt', 403, userToken],
      ['/api/raw/?files=%2Farch%2Flink-out', 403, admin],
      ['/api/raw/w/?files=..%252F..%252Fetc', 403, admin],
      ['/api/raw/w/?files=%2E%2E%2F%2E%2E%2Fetc', 403, admin],
      ['/api/raw/?files=%2Fw%2F%2500', 400, admin],
    ];
    for (const [p, status, token] of cases) {
      const res = await rawGet(srv, p, { 'X-Auth': token });
      expect(res.status, p).toBe(status);
      expect(res.body.subarray(0, 2).toString('latin1')).not.toBe('PK');
    }
  });

  it('puts a single selected file at the archive root', async () => {
    const res = await rawGet(srv, '/api/raw/?files=%2Fw%2Fdir%2Fx.txt&algo=tar', { 'X-Auth': admin });
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toMatch(/filename="x\.txt\.tar"/);
    const { names, dir } = extract('tar', res.body);
    expect(names).toEqual(['x.txt']);
    expect(await readFile(path.join(dir, 'x.txt'), 'utf8')).toBe('x\n');
  });

  it('bases a multi-selection at the common parent and prefixes the name with _', async () => {
    // The client's form: scope paths, segment-encoded, joined by "," and encoded as a whole.
    const list = encodeURIComponent(['/w/a%20b.txt', '/w/dir', '/w/c%2Cd.txt'].join(','));
    const res = await rawGet(srv, `/api/raw/?files=${list}`, { 'X-Auth': admin });
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toMatch(/filename="_w\.zip"/);
    const { names } = extract('zip', res.body);
    expect(names.sort()).toEqual(
      ['a b.txt', 'c,d.txt', 'dir/', 'dir/sub/', 'dir/sub/y.txt', 'dir/x.txt'].sort(),
    );
  });

  it('accepts items relative to the requested folder', async () => {
    const res = await rawGet(srv, '/api/raw/w/?files=a%2520b.txt,dir&algo=tar', { 'X-Auth': admin });
    expect(res.status).toBe(200);
    const { names } = extract('tar', res.body);
    expect(names.sort()).toEqual(['a b.txt', 'dir/', 'dir/sub/', 'dir/sub/y.txt', 'dir/x.txt']);
  });

  it('names the archive of the scope root after the scope folder', async () => {
    const u = await srv.createUser({ scope: '/w' });
    const token = await srv.login(u.username, u.password);
    const res = await rawGet(srv, '/api/raw/?algo=tar', { 'X-Auth': token });
    expect(res.headers['content-disposition']).toMatch(/filename="w\.tar"/);
  });
});

describe('archive streaming', () => {
  it('stops the work when the client goes away', async () => {
    for (let i = 0; i < 30; i++) await putFile(srv.root, `many/f${i}.bin`, BIG);
    const before = archiveActivity.started;
    const ctrl = new AbortController();
    const res = await srv.fetch('/api/raw/many/?algo=tarxz', { token: admin, signal: ctrl.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    await reader.read();
    expect(archiveActivity.started).toBe(before + 1);
    expect(archiveActivity.active).toBe(1);
    ctrl.abort();
    for (let i = 0; i < 100 && archiveActivity.active > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(archiveActivity.active).toBe(0);
    expect((await srv.fetch('/health')).status).toBe(200);
  }, 30_000);

  it('cuts the connection instead of finishing when a file shrinks mid-stream (S57)', async () => {
    const file = await putFile(srv.root, 'shrink/huge.bin', Buffer.alloc(0));
    await truncate(file, 64 * 1024 * 1024);
    const res = await srv.fetch('/api/raw/shrink/?algo=tar', { token: admin });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    await reader.read();
    await truncate(file, 1024 * 1024);
    let failed = false;
    try {
      for (;;) {
        const { done } = await reader.read();
        if (done) break;
      }
    } catch {
      failed = true;
    }
    expect(failed).toBe(true);
  }, 30_000);

  it('tar.gz in parallel gzip members: an empty folder and files larger than one block read with gzip and tar', async () => {
    await mkdir(path.join(srv.root, 'gz-empty'));
    const empty = await rawGet(srv, '/api/raw/gz-empty/?algo=targz', { 'X-Auth': admin });
    expect(empty.status).toBe(200);
    execFileSync('gzip', ['-t'], { input: empty.body });
    expect(execFileSync('tar', ['tzf', '-'], { input: empty.body }).toString()).toBe('');
    // Several members: 3 MiB that does not compress, 1.5 MiB that does, and small files around them.
    const noise = randomBytes(3 * 1024 * 1024);
    await putFile(srv.root, 'gz-big/a.txt', 'first\n', MTIME);
    await putFile(srv.root, 'gz-big/noise.bin', noise, MTIME);
    await putFile(srv.root, 'gz-big/m/big.bin', BIG, MTIME);
    await putFile(srv.root, 'gz-big/z.txt', 'last\n', MTIME);
    const before = gzipActivity.blocks;
    const res = await rawGet(srv, '/api/raw/gz-big/?algo=targz', { 'X-Auth': admin });
    expect(res.status).toBe(200);
    expect(gzipActivity.blocks - before).toBeGreaterThan(3);
    execFileSync('gzip', ['-t'], { input: res.body });
    const names = execFileSync('tar', ['tzf', '-'], { input: res.body }).toString().split('\n').filter(Boolean);
    expect(names.sort()).toEqual(['a.txt', 'm/', 'm/big.bin', 'noise.bin', 'z.txt']);
    const { dir } = extract('targz', res.body);
    expect((await readFile(path.join(dir, 'noise.bin'))).equals(noise)).toBe(true);
    expect((await readFile(path.join(dir, 'm/big.bin'))).equals(BIG)).toBe(true);
    expect(await readFile(path.join(dir, 'z.txt'), 'utf8')).toBe('last\n');
  }, 60_000);

  it('tar.gz: a client that goes away stops the gzip workers', async () => {
    for (let i = 0; i < 30; i++) await putFile(srv.root, `gz-abort/f${i}.bin`, randomBytes(1536 * 1024));
    const before = gzipActivity.blocks;
    const ctrl = new AbortController();
    const res = await srv.fetch('/api/raw/gz-abort/?algo=targz', { token: admin, signal: ctrl.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    await reader.read();
    ctrl.abort();
    for (let i = 0; i < 100 && archiveActivity.active > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(archiveActivity.active).toBe(0);
    for (let i = 0; i < 100 && gzipActivity.inFlight > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(gzipActivity.inFlight).toBe(0);
    const stopped = gzipActivity.blocks;
    await new Promise((r) => setTimeout(r, 300));
    expect(gzipActivity.blocks).toBe(stopped);
    // 45 MiB of input is at least 45 blocks: the work stopped long before that.
    expect(stopped - before).toBeLessThan(40);
  }, 30_000);

  it('sends the first bytes before the archive is complete', async () => {
    const res = await srv.fetch('/api/raw/many/?algo=targz', { token: admin });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(first.value!.length).toBeGreaterThan(0);
    expect(archiveActivity.active).toBe(1);
    await reader.cancel();
  });
});
