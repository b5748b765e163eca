/**
 * Extracting archives as jobs (docs/api.md §18 E11) over real HTTP, with archives built in the
 * tests: every format Coffer downloads (made by Coffer's own archive route) extracts to the same
 * tree; hostile archives (zip-slip, absolute names, backslashes, links out, hard links, devices,
 * bombs by size, ratio and entry count) are refused or their entries left out and reported, and
 * leave nothing behind; conflicts (skip, keep both, overwrite with modify), permissions and rules
 * at the destination; a cancel mid-way leaves nothing. SQLite, and PostgreSQL with COFFER_TEST_PG_URL.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { deflateRawSync, gzipSync, crc32 } from 'node:zlib';
import { createStream as createLzmaStream } from 'lzma-native';
import tarStream from 'tar-stream';
import { describe, expect, it } from 'vitest';
import type { Job } from '@coffer/protocol';
import { createDeps } from '../src/services.js';
import { startServer, useServer, type TestServer } from './harness.js';
import { denyPath } from './resources-support.js';

interface ZipEntry {
  name: string;
  data?: Buffer;
  /** Unix mode in the external attributes (e.g. 0o120777 for a link). */
  mode?: number;
  deflate?: boolean;
  /** Lies in the headers: a CRC-32 or an unpacked size other than the data's. */
  crc?: number;
  size?: number;
}

/** A zip file with exactly these names (no checks: hostile names are the point). */
function zipOf(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const raw = e.data ?? Buffer.alloc(0);
    const body = e.deflate ? deflateRawSync(raw) : raw;
    const name = Buffer.from(e.name, 'utf8');
    const crc = e.crc ?? crc32(raw) >>> 0;
    const method = e.deflate ? 8 : 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(e.size ?? raw.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(0x0314, 4); // made by Unix
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(e.size ?? raw.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((e.mode ?? (e.name.endsWith('/') ? 0o040755 : 0o100644)) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

type TarEntry = tarStream.Headers & { data?: Buffer };

/** A tar with exactly these headers. */
async function tarOf(entries: TarEntry[]): Promise<Buffer> {
  const pack = tarStream.pack();
  const chunks: Buffer[] = [];
  pack.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise((r) => pack.on('end', r));
  for (const { data, ...h } of entries) {
    await new Promise<void>((resolve, reject) => pack.entry({ ...h, size: data?.length ?? 0 }, data ?? Buffer.alloc(0), (err) => (err ? reject(err) : resolve())));
  }
  pack.finalize();
  await done;
  return Buffer.concat(chunks);
}

/** `tar` with the type flag of its first entry changed to `flag` (checksum fixed): data under a kind that is left out. */
function retyped(tar: Buffer, flag: string): Buffer {
  const out = Buffer.from(tar);
  out.write(flag, 156, 'latin1');
  out.fill(' ', 148, 156);
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += out[i]!;
  out.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return out;
}

/** 400 MiB of zeros in a small tar.gz: long enough to be cancelled while it runs. */
async function zerosTarGz(): Promise<Buffer> {
  const pack = tarStream.pack();
  const parts: Buffer[] = [];
  pack.on('data', (c: Buffer) => parts.push(c));
  const ended = new Promise((r) => pack.on('end', r));
  const size = 400 * 1024 * 1024;
  const entry = pack.entry({ name: 'zeros.bin', size });
  const chunk = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < size / chunk.length; i++) entry.write(chunk);
  entry.end();
  pack.finalize();
  await ended;
  return gzipSync(Buffer.concat(parts), { level: 1 });
}

/** One zstd frame holding `data` as a raw block, with the window descriptor byte `window` (exponent << 3 | mantissa). */
const zstdRawFrame = (window: number) => (data: Buffer): Buffer => {
  const block = Buffer.alloc(3);
  block.writeUIntLE((data.length << 3) | 1, 0, 3); // last block, raw
  return Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, window]), block, data]);
};

/** `data` as an .lzma stream whose header names a dictionary of `size` bytes. */
const lzmaWithDictionary = (size: number) => async (data: Buffer): Promise<Buffer> => {
  const encoder = createLzmaStream('aloneEncoder', { preset: 0 });
  const parts: Buffer[] = [];
  encoder.on('data', (c: Buffer) => parts.push(c));
  const ended = new Promise((r) => encoder.on('end', r));
  encoder.end(data);
  await ended;
  const out = Buffer.concat(parts);
  out.writeUInt32LE(size, 1);
  return out;
};

async function extract(srv: TestServer, token: string, source: string, body: Record<string, unknown>): Promise<Response> {
  return srv.fetch(`/api/extract${source}`, { method: 'POST', token, json: body });
}

/** Starts an extraction and waits for its job to end. */
async function extracted(srv: TestServer, token: string, source: string, body: Record<string, unknown>): Promise<Job> {
  const res = await extract(srv, token, source, body);
  expect(res.status, await res.clone().text()).toBe(202);
  const job = (await res.json()) as Job;
  let last = job;
  await expect
    .poll(async () => {
      last = (await (await srv.fetch(`/api/jobs/${job.id}`, { token })).json()) as Job;
      return last.state;
    }, { timeout: 20_000 })
    .toMatch(/done|failed|cancelled/);
  return last;
}

/** Every name under `dir`, "/" after folders, sorted. */
async function tree(dir: string): Promise<string[]> {
  const out: string[] = [];
  async function visit(d: string, rel: string) {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const r = rel + e.name;
      if (e.isDirectory()) {
        out.push(`${r}/`);
        await visit(path.join(d, e.name), `${r}/`);
      } else out.push(e.isSymbolicLink() ? `${r}@` : r);
    }
  }
  await visit(dir, '');
  return out.sort();
}

async function fresh(srv: TestServer, name: string, archive?: Buffer, archiveName = 'a.zip'): Promise<string> {
  const dir = path.join(srv.root, name);
  await mkdir(path.join(dir, 'out'), { recursive: true });
  if (archive) await writeFile(path.join(dir, archiveName), archive);
  return dir;
}

describe('extract: formats', () => {
  const srv = useServer({ jobsPerUser: 0 });

  it('every format Coffer downloads extracts to the same tree, with private modes', async () => {
    const token = await srv.login();
    const src = path.join(srv.root, 'fmt-src', 'tree');
    await mkdir(path.join(src, 'sub', 'deep'), { recursive: true });
    await writeFile(path.join(src, 'a.txt'), 'alpha');
    await writeFile(path.join(src, 'sub', 'b.bin'), Buffer.alloc(300_000, 7));
    await writeFile(path.join(src, 'sub', 'deep', 'c é.txt'), 'gamma');
    const formats: [string, string][] = [['zip', '.zip'], ['tar', '.tar'], ['targz', '.tar.gz'], ['tarbz2', '.tar.bz2'], ['tarxz', '.tar.xz'], ['tarbr', '.tar.br'], ['tarzst', '.tar.zst'], ['tarsz', '.tar.sz'], ['tarlz4', '.tar.lz4']];
    for (const [algo, ext] of formats) {
      const res = await srv.fetch(`/api/raw/fmt-src/tree/?algo=${algo}`, { token });
      expect(res.status).toBe(200);
      const dir = await fresh(srv, `fmt-${algo}`, Buffer.from(await res.arrayBuffer()), `tree${ext}`);
      const job = await extracted(srv, token, `/fmt-${algo}/tree${ext}`, { destination: `/fmt-${algo}/out` });
      expect(job, algo).toMatchObject({ state: 'done', kind: 'extract', result: { path: `/fmt-${algo}/out/`, skipped: [] } });
      // Coffer's archives of a folder hold its contents.
      const top = '';
      expect(await tree(path.join(dir, 'out')), algo).toEqual(['a.txt', 'sub/', 'sub/b.bin', 'sub/deep/', 'sub/deep/c é.txt']);
      expect(await readFile(path.join(dir, 'out', top, 'sub', 'b.bin'))).toEqual(Buffer.alloc(300_000, 7));
      expect(await readFile(path.join(dir, 'out', top, 'sub', 'deep', 'c é.txt'), 'utf8')).toBe('gamma');
      expect((await stat(path.join(dir, 'out', top, 'a.txt'))).mode & 0o777).toBe(0o640);
      expect((await stat(path.join(dir, 'out', top, 'sub'))).mode & 0o777).toBe(0o750);
    }
  }, 120_000);

  it('a tar.lz4 made by tar and the lz4 command (one frame, linked blocks) extracts', async () => {
    const token = await srv.login();
    const src = path.join(srv.root, 'lz4-src');
    await mkdir(path.join(src, 'd'), { recursive: true });
    await writeFile(path.join(src, 'd', 'big.txt'), Array.from({ length: 300_000 }, (_, i) => `line ${i}\n`).join(''));
    await writeFile(path.join(src, 'd', 'small.txt'), 'small');
    const dir = await fresh(srv, 'lz4-std');
    execFileSync('sh', ['-c', `tar -C "${src}" -cf - d | lz4 -q -BD -B4 > "${path.join(dir, 'd.tar.lz4')}"`]);
    const job = await extracted(srv, token, '/lz4-std/d.tar.lz4', { destination: '/lz4-std/out' });
    expect(job).toMatchObject({ state: 'done', result: { skipped: [] } });
    expect(await tree(path.join(dir, 'out'))).toEqual(['d/', 'd/big.txt', 'd/small.txt']);
    expect((await readFile(path.join(dir, 'out', 'd', 'big.txt'))).equals(await readFile(path.join(src, 'd', 'big.txt')))).toBe(true);
    // Damaged: the job fails as damaged and leaves nothing.
    await writeFile(path.join(dir, 'bad.tar.lz4'), (await readFile(path.join(dir, 'd.tar.lz4'))).subarray(0, 5000));
    await mkdir(path.join(dir, 'out2'));
    const failed = await extracted(srv, token, '/lz4-std/bad.tar.lz4', { destination: '/lz4-std/out2' });
    expect(failed).toMatchObject({ state: 'failed', error: expect.stringMatching(/damaged/) as unknown });
    expect(await readdir(path.join(dir, 'out2'))).toEqual([]);
  }, 60_000);

  it('a tar.lz4 with a flipped bit in a block stored raw fails on its LZ4 checksum and leaves nothing', async () => {
    const token = await srv.login();
    const src = path.join(srv.root, 'lz4-crc-src');
    await mkdir(src, { recursive: true });
    // Random bytes: the encoder stores their blocks raw, so only the checksum can see the flip.
    await writeFile(path.join(src, 'noise.bin'), randomBytes(300_000));
    const dir = await fresh(srv, 'lz4-crc');
    for (const [name, flags] of [['content.tar.lz4', '-B4'], ['blocks.tar.lz4', '-B4 -BX --no-frame-crc']] as const) {
      execFileSync('sh', ['-c', `tar -C "${src}" -cf - noise.bin | lz4 -q ${flags} > "${path.join(dir, name)}"`]);
      const bad = await readFile(path.join(dir, name));
      bad[bad.length >> 1]! ^= 0x01;
      await writeFile(path.join(dir, name), bad);
      const out = `out-${name.split('.')[0]!}`;
      await mkdir(path.join(dir, out), { recursive: true }); // there already when the test runs again
      const job = await extracted(srv, token, `/lz4-crc/${name}`, { destination: `/lz4-crc/${out}` });
      expect(job, name).toMatchObject({ state: 'failed', error: expect.stringMatching(/damaged: .*checksum does not match/) as unknown });
      expect(await readdir(path.join(dir, out)), name).toEqual([]);
    }
  }, 60_000);

  it('refuses what it cannot extract with 400, before any job', async () => {
    const token = await srv.login();
    await fresh(srv, 'fmt-no', Buffer.from('x'), 'x.7z');
    await writeFile(path.join(srv.root, 'fmt-no', 'x.txt'), 'x');
    expect((await extract(srv, token, '/fmt-no/x.7z', { destination: '/fmt-no/out' })).status).toBe(400);
    expect((await extract(srv, token, '/fmt-no/x.txt', { destination: '/fmt-no/out' })).status).toBe(400);
    expect((await extract(srv, token, '/fmt-no/out', { destination: '/fmt-no/out' })).status).toBe(400);
    expect((await extract(srv, token, '/fmt-no/missing.zip', { destination: '/fmt-no/out' })).status).toBe(404);
    await writeFile(path.join(srv.root, 'fmt-no', 'a.zip'), zipOf([{ name: 'a', data: Buffer.from('a') }]));
    expect((await extract(srv, token, '/fmt-no/a.zip', { destination: '/fmt-no/x.txt' })).status).toBe(400);
    expect((await extract(srv, token, '/fmt-no/a.zip', { destination: '/fmt-no/nowhere' })).status).toBe(404);
    expect((await extract(srv, token, '/fmt-no/a.zip', { destination: '/fmt-no/out', conflict: 'merge' })).status).toBe(400);
  });

  it('a damaged archive fails the job with a reason and leaves nothing', async () => {
    const token = await srv.login();
    const dir = await fresh(srv, 'damaged', gzipSync(Buffer.alloc(5000, 1)).subarray(0, 300), 'd.tar.gz');
    const job = await extracted(srv, token, '/damaged/d.tar.gz', { destination: '/damaged/out' });
    expect(job.state).toBe('failed');
    expect(job.error).toMatch(/damaged/);
    expect(await readdir(path.join(dir, 'out'))).toEqual([]);
  });
});

describe('extract: hostile archives', () => {
  const srv = useServer({ jobsPerUser: 0, extractMaxSize: 2 * 1024 * 1024, extractMaxEntries: 50, extractMaxRatio: 100 });

  const refusals: [string, Buffer | Promise<Buffer>, string, RegExp][] = [
    ['zip-slip', zipOf([{ name: 'ok.txt', data: Buffer.from('ok') }, { name: '../evil.txt', data: Buffer.from('x') }]), 'a.zip', /outside the folder|climbs out/],
    ['zip absolute', zipOf([{ name: '/tmp/evil.txt', data: Buffer.from('x') }]), 'a.zip', /outside the folder|absolute/],
    ['zip backslash', zipOf([{ name: '..\\evil.txt', data: Buffer.from('x') }]), 'a.zip', /outside the folder|backslash/],
    ['tar slip', tarOf([{ name: 'ok.txt', data: Buffer.from('ok') }, { name: 'a/../../evil.txt', data: Buffer.from('x') }]), 'a.tar', /climbs out/],
    ['tar absolute', tarOf([{ name: '/etc/evil', data: Buffer.from('x') }]), 'a.tar', /absolute/],
    ['tar backslash', tarOf([{ name: '..\\..\\evil', data: Buffer.from('x') }]), 'a.tar', /backslash/],
    ['tar reserved', tarOf([{ name: '.coffer-tmp-x', data: Buffer.from('x') }]), 'a.tar', /reserves/],
    ['zip bomb (ratio)', zipOf([{ name: 'zeros', data: Buffer.alloc(1_500_000), deflate: true }]), 'a.zip', /bomb/],
    ['zip too big', zipOf([{ name: 'big', data: Buffer.alloc(3 * 1024 * 1024, 1) }]), 'a.zip', /more than 2 MiB/],
    ['tar.gz bomb (ratio)', tarOf([{ name: 'zeros', data: Buffer.alloc(1_900_000) }]).then((t) => gzipSync(t)), 'a.tar.gz', /bomb/],
    ['tar too big', tarOf([{ name: 'a', data: Buffer.alloc(1_500_000, 1) }, { name: 'b', data: Buffer.alloc(1_500_000, 2) }]), 'a.tar', /more than 2 MiB/],
    // Small entries are unpacked by a worker: its checks of the directory's CRC-32 and size hold.
    ['zip wrong CRC-32', zipOf([{ name: 'ok.txt', data: Buffer.from('ok') }, { name: 'bad.txt', data: Buffer.from('hello'), crc: 1234 }]), 'a.zip', /damaged/],
    ['zip entry larger than it says', zipOf([{ name: 'liar.txt', data: Buffer.alloc(100_000, 3), deflate: true, size: 100 }]), 'a.zip', /damaged/],
    ['zip entry smaller than it says', zipOf([{ name: 'short.txt', data: Buffer.alloc(1000, 3), deflate: true, size: 5000 }]), 'a.zip', /damaged/],
    ['zip entry count', zipOf(Array.from({ length: 51 }, (_, i) => ({ name: `f${i}`, data: Buffer.from('x') }))), 'a.zip', /more than 50 entries/],
    ['tar entry count', tarOf(Array.from({ length: 51 }, (_, i) => ({ name: `f${i}`, data: Buffer.from('x') }))), 'a.tar', /more than 50 entries/],
    // A left-out kind (here a FIFO) still carries data that is unpacked: it counts against the limits.
    ['tar too big in a left-out entry', tarOf([{ name: 'fifo', data: Buffer.alloc(3 * 1024 * 1024, 1) }]).then((t) => retyped(t, '6')), 'a.tar', /more than 2 MiB/],
    ['tar.gz bomb in a left-out entry', tarOf([{ name: 'fifo', data: Buffer.alloc(1_900_000) }]).then((t) => gzipSync(retyped(t, '6'))), 'a.tar.gz', /bomb/],
    // A zstd frame naming a 256 MiB window: fzstd would allocate it and copy it for every block.
    ['tar.zst with a huge window', tarOf([{ name: 'a', data: Buffer.from('a') }]).then(zstdRawFrame(0x90)), 'a.tar.zst', /zstd window is over 128 MiB/],
    // An .lzma stream (xz's decoder reads those too) naming a 1.5 GiB dictionary.
    ['tar.xz with a huge dictionary', tarOf([{ name: 'a', data: Buffer.from('a') }]).then(lzmaWithDictionary(1536 * 2 ** 20)), 'a.tar.xz', /more than 256 MiB of memory/],
    // A name is held in memory and in the job's result: one over PATH_MAX is refused, even for a left-out link.
    ['tar long name', tarOf([{ name: `${'a/'.repeat(2100)}x`, type: 'symlink', linkname: 'x' }]), 'a.tar', /over 4096 bytes/],
  ];

  for (const [label, archive, name, reason] of refusals) {
    it(`refuses ${label}: the job fails with its reason and nothing is written anywhere`, async () => {
      const token = await srv.login();
      const folder = `h-${label.replace(/\W+/g, '-')}`;
      const dir = await fresh(srv, folder, await archive, name);
      const job = await extracted(srv, token, `/${folder}/${name}`, { destination: `/${folder}/out` });
      expect(job.state).toBe('failed');
      expect(job.error).toMatch(reason);
      expect(job.error).not.toContain(srv.root);
      expect(await tree(dir)).toEqual([name, 'out/']);
      expect(await readdir(srv.root)).not.toContain('evil.txt');
    });
  }

  it('links, hard links and devices are left out and reported; the rest is extracted', async () => {
    const token = await srv.login();
    const tar = await tarOf([
      { name: 'keep.txt', data: Buffer.from('kept') },
      { name: 'out-link', type: 'symlink', linkname: '/etc/passwd' },
      { name: 'in-link', type: 'symlink', linkname: 'keep.txt' },
      { name: 'hard', type: 'link', linkname: '/etc/passwd' },
      { name: 'dev', type: 'character-device', devmajor: 1, devminor: 3 },
      { name: 'fifo', type: 'fifo' },
    ]);
    const dir = await fresh(srv, 'links', tar, 'l.tar');
    const job = await extracted(srv, token, '/links/l.tar', { destination: '/links/out' });
    expect(job.state).toBe('done');
    expect(job.result?.skipped?.map((s) => s.name).sort()).toEqual(['dev', 'fifo', 'hard', 'in-link', 'out-link']);
    expect(job.result?.skipped?.find((s) => s.name === 'out-link')?.reason).toMatch(/links are not extracted/);
    expect(await tree(path.join(dir, 'out'))).toEqual(['keep.txt']);

    const zip = zipOf([{ name: 'keep.txt', data: Buffer.from('kept') }, { name: 'zlink', data: Buffer.from('/etc/passwd'), mode: 0o120777 }]);
    const zdir = await fresh(srv, 'zlinks', zip, 'l.zip');
    const zjob = await extracted(srv, token, '/zlinks/l.zip', { destination: '/zlinks/out' });
    expect(zjob.result?.skipped).toEqual([{ name: 'zlink', reason: 'links are not extracted' }]);
    expect(await tree(path.join(zdir, 'out'))).toEqual(['keep.txt']);
  });
});

describe('extract: the list of entries left out', () => {
  const srv = useServer({ jobsPerUser: 0 });

  it('holds the first 1,000; skippedTotal counts them all', async () => {
    const token = await srv.login();
    const links = Array.from({ length: 1100 }, (_, i): TarEntry => ({ name: `l${String(i).padStart(4, '0')}`, type: 'symlink', linkname: 'x' }));
    const dir = await fresh(srv, 'many-skipped', await tarOf([{ name: 'keep.txt', data: Buffer.from('k') }, ...links]), 'a.tar');
    const job = await extracted(srv, token, '/many-skipped/a.tar', { destination: '/many-skipped/out' });
    expect(job.state).toBe('done');
    expect(job.result?.skipped).toHaveLength(1000);
    expect(job.result?.skipped?.[999]?.name).toBe('l0999');
    expect(job.result?.skippedTotal).toBe(1100);
    expect(await tree(path.join(dir, 'out'))).toEqual(['keep.txt']);
  }, 30_000);
});

describe('extract: conflicts, permissions, rules, cancel', () => {
  const srv = useServer({ jobsPerUser: 0, extractMaxRatio: 1_000_000, extractMaxSize: 1024 ** 4 });
  const archive = () => zipOf([{ name: 'd/', mode: 0o040755 }, { name: 'd/a.txt', data: Buffer.from('new a') }, { name: 'b.txt', data: Buffer.from('new b') }]);

  it('skip keeps what is there and reports it; keep both numbers the new one; overwrite replaces', async () => {
    const token = await srv.login();
    for (const [conflict, expectA, extra] of [['skip', 'old a', []], ['rename', 'old a', ['d/a(1).txt']], ['overwrite', 'new a', []]] as const) {
      const dir = await fresh(srv, `c-${conflict}`, archive());
      await mkdir(path.join(dir, 'out', 'd'));
      await writeFile(path.join(dir, 'out', 'd', 'a.txt'), 'old a');
      const job = await extracted(srv, token, `/c-${conflict}/a.zip`, { destination: `/c-${conflict}/out`, conflict });
      expect(job.state).toBe('done');
      expect(await readFile(path.join(dir, 'out', 'd', 'a.txt'), 'utf8')).toBe(expectA);
      expect(await readFile(path.join(dir, 'out', 'b.txt'), 'utf8')).toBe('new b');
      expect(await tree(path.join(dir, 'out'))).toEqual(['b.txt', 'd/', 'd/a.txt', ...extra].sort());
      expect(job.result?.skipped).toEqual(conflict === 'skip' ? [{ name: 'd/a.txt', reason: 'exists' }] : []);
      if (conflict === 'rename') expect(await readFile(path.join(dir, 'out', 'd', 'a(1).txt'), 'utf8')).toBe('new a');
    }
  });

  it('needs create, and modify to overwrite; a rule at the destination leaves its entries out; scope holds', async () => {
    const dir = await fresh(srv, 'perm', archive());
    const noCreate = await srv.createUser({ perm: { create: false } });
    const noModify = await srv.createUser({ perm: { create: true, modify: false } });
    const ruled = await srv.createUser({ perm: { create: true }, rules: [denyPath('/perm/out/d')] });
    await mkdir(path.join(dir, 'scoped'));
    await writeFile(path.join(dir, 'scoped', 'a.zip'), archive());
    const scoped = await srv.createUser({ perm: { create: true }, scope: '/perm/scoped' });
    const t1 = await srv.login(noCreate.username, noCreate.password);
    expect((await extract(srv, t1, '/perm/a.zip', { destination: '/perm/out' })).status).toBe(403);
    const t2 = await srv.login(noModify.username, noModify.password);
    expect((await extract(srv, t2, '/perm/a.zip', { destination: '/perm/out', conflict: 'overwrite' })).status).toBe(403);
    const t4 = await srv.login(scoped.username, scoped.password);
    expect((await extract(srv, t4, '/a.zip', { destination: '/../out' })).status).toBe(403);
    expect(await readdir(path.join(dir, 'out'))).toEqual([]);
    const t3 = await srv.login(ruled.username, ruled.password);
    const job = await extracted(srv, t3, '/perm/a.zip', { destination: '/perm/out' });
    expect(job.state).toBe('done');
    expect(job.result?.skipped).toEqual([{ name: 'd', reason: 'not allowed there (a rule, or a link leaving the scope)' }]);
    expect(await tree(path.join(dir, 'out'))).toEqual(['b.txt']);
  });

  it('a link in the destination that leaves the scope is not followed', async () => {
    const token = await srv.login();
    const outside = path.join(path.dirname(srv.root), 'outside-extract');
    await mkdir(outside, { recursive: true });
    const dir = await fresh(srv, 'linkdest', archive());
    await symlink(outside, path.join(dir, 'out', 'd'));
    const job = await extracted(srv, token, '/linkdest/a.zip', { destination: '/linkdest/out' });
    expect(job.state).toBe('done');
    expect(job.result?.skipped?.map((s) => s.name)).toEqual(['d']);
    expect(await readdir(outside)).toEqual([]);
  });

  it('a cancel mid-way stops the job and leaves nothing behind', async () => {
    const token = await srv.login();
    const dir = await fresh(srv, 'cancel', await zerosTarGz(), 'z.tar.gz');
    const res = await extract(srv, token, '/cancel/z.tar.gz', { destination: '/cancel/out' });
    const job = (await res.json()) as Job;
    await expect.poll(async () => ((await (await srv.fetch(`/api/jobs/${job.id}`, { token })).json()) as Job).progress.done, { timeout: 10_000 }).toBeGreaterThan(0);
    const cancel = await srv.fetch(`/api/jobs/${job.id}/cancel`, { method: 'POST', token });
    expect(cancel.status).toBe(200);
    expect(((await cancel.json()) as Job).state).toBe('cancelled');
    expect(await tree(dir)).toEqual(['out/', 'z.tar.gz']);
  });
});

describe('extract: the destination swapped mid-job', () => {
  const srv = useServer({ jobsPerUser: 0, extractMaxRatio: 1_000_000, extractMaxSize: 1024 ** 4 });

  it('renamed and replaced by a link out while the job runs: the job fails, nothing reaches the link, nothing is left in the moved folder', async () => {
    const token = await srv.login();
    const dir = await fresh(srv, 'swap', await zerosTarGz(), 'z.tar.gz');
    const outside = path.join(path.dirname(srv.root), 'outside-swap');
    await mkdir(outside, { recursive: true });
    const before = (await stat(outside)).mtimeMs;
    const job = (await (await extract(srv, token, '/swap/z.tar.gz', { destination: '/swap/out' })).json()) as Job;
    await expect.poll(async () => ((await (await srv.fetch(`/api/jobs/${job.id}`, { token })).json()) as Job).progress.done, { timeout: 10_000 }).toBeGreaterThan(0);
    await rename(path.join(dir, 'out'), path.join(dir, 'out-moved'));
    await symlink(outside, path.join(dir, 'out'));
    let ended: Job | undefined;
    await expect
      .poll(async () => (ended = (await (await srv.fetch(`/api/jobs/${job.id}`, { token })).json()) as Job).state, { timeout: 60_000 })
      .toMatch(/done|failed/);
    expect(ended).toMatchObject({ state: 'failed', error: expect.stringMatching(/destination folder was moved or replaced/) as unknown });
    expect(await readdir(outside)).toEqual([]);
    expect((await stat(outside)).mtimeMs).toBe(before);
    expect(await readdir(path.join(dir, 'out-moved'))).toEqual([]);
  }, 90_000);
});

describe('extract: a job that waited queued', () => {
  const srv = useServer({ jobsPerUser: 0, jobs: 1, extractMaxRatio: 1_000_000, extractMaxSize: 1024 ** 4 });

  it('checks its user and its paths again when it starts: a permission taken meanwhile, a destination turned into a link out', async () => {
    const admin = await srv.login();
    await fresh(srv, 'block', await zerosTarGz(), 'z.tar.gz');
    const blocker = (await (await extract(srv, admin, '/block/z.tar.gz', { destination: '/block/out' })).json()) as Job;
    await expect.poll(async () => ((await (await srv.fetch(`/api/jobs/${blocker.id}`, { token: admin })).json()) as Job).state).toBe('running');

    const archive = zipOf([{ name: 'x.txt', data: Buffer.from('x') }]);
    const user = await srv.createUser({ perm: { create: true } });
    const token = await srv.login(user.username, user.password);
    const permDir = await fresh(srv, 'q-perm', archive);
    const lost = (await (await extract(srv, token, '/q-perm/a.zip', { destination: '/q-perm/out' })).json()) as Job;
    expect(lost.state).toBe('queued');
    await srv.deps.users.update({ ...user, perm: { ...user.perm, create: false } });

    const outside = path.join(path.dirname(srv.root), 'outside-queued');
    await mkdir(outside, { recursive: true });
    const linkDir = await fresh(srv, 'q-link', archive);
    const moved = (await (await extract(srv, admin, '/q-link/a.zip', { destination: '/q-link/out' })).json()) as Job;
    expect(moved.state).toBe('queued');
    await rm(path.join(linkDir, 'out'), { recursive: true });
    await symlink(outside, path.join(linkDir, 'out'));
    const before = (await stat(outside)).mtimeMs;

    expect((await srv.fetch(`/api/jobs/${blocker.id}/cancel`, { method: 'POST', token: admin })).status).toBe(200);
    const ended = async (id: string, token: string) => {
      let job: Job | undefined;
      await expect.poll(async () => (job = (await (await srv.fetch(`/api/jobs/${id}`, { token })).json()) as Job).state, { timeout: 20_000 }).toMatch(/done|failed/);
      return job!;
    };
    expect(await ended(lost.id, token)).toMatchObject({ state: 'failed' });
    expect(await readdir(path.join(permDir, 'out'))).toEqual([]);
    expect(await ended(moved.id, admin)).toMatchObject({ state: 'failed' });
    // Nothing was made outside the scope, not even for a moment (a staging folder changes the mtime).
    expect(await readdir(outside)).toEqual([]);
    expect((await stat(outside)).mtimeMs).toBe(before);
  }, 60_000);
});

describe('extract: a full disk', () => {
  const srv = useServer({ jobsPerUser: 0 });

  // A 1 MiB tmpfs mounted as the destination (the tests run as root, as CI does).
  it('ENOSPC fails the job as a full disk (507), not as a damaged archive, and leaves nothing', async () => {
    const token = await srv.login();
    const dir = await fresh(srv, 'full', zipOf([{ name: 'big.bin', data: randomBytes(3 * 1024 * 1024) }]));
    const small = path.join(dir, 'small');
    await mkdir(small);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', small]);
    try {
      const job = await extracted(srv, token, '/full/a.zip', { destination: '/full/small' });
      expect(job.state).toBe('failed');
      expect(job.error).toMatch(/disk is full.*507/);
      expect(job.error).not.toMatch(/damaged/);
      expect(await readdir(small)).toEqual([]);
      const tar = await tarOf([{ name: 'big.bin', data: randomBytes(3 * 1024 * 1024) }]);
      await writeFile(path.join(dir, 'a.tar'), tar);
      const tjob = await extracted(srv, token, '/full/a.tar', { destination: '/full/small' });
      expect(tjob.error).toMatch(/disk is full.*507/);
      expect(await readdir(small)).toEqual([]);
    } finally {
      execFileSync('umount', [small]);
    }
  });
});

describe('extract: after a crash', () => {
  it('the staging folder of a job whose process died is removed at the next start; a live job keeps its own', async () => {
    const srv = await startServer({ jobsPerUser: 0, extractMaxRatio: 1_000_000, extractMaxSize: 1024 ** 4 }, { jobHeartbeatMs: 60_000 });
    try {
      const token = await srv.login();
      // A live extraction, running while the second process starts.
      const dir = await fresh(srv, 'crash', await zerosTarGz(), 'z.tar.gz');
      const live = (await (await extract(srv, token, '/crash/z.tar.gz', { destination: '/crash/out' })).json()) as Job;
      await expect.poll(async () => ((await (await srv.fetch(`/api/jobs/${live.id}`, { token })).json()) as Job).progress.done, { timeout: 10_000 }).toBeGreaterThan(0);
      const liveStaging = (await readdir(path.join(dir, 'out'))).filter((n) => n.startsWith('.coffer-tmp-'));
      expect(liveStaging).toEqual([`.coffer-tmp-job-${live.id}`]);
      // A job of a process that died mid-extraction: its record says running, its staging folder
      // and note are where the job put them.
      const deadId = 'e'.repeat(32);
      const admin = (await srv.deps.users.byUsername('admin'))!;
      await srv.deps.db.kysely
        .insertInto('jobs')
        .values({ id: deadId, kind: 'extract', user_id: admin.id, inputs: '{}', state: 'running', progress_done: 1, progress_total: 9, error: null, result: null, instance: 'gone', cancel_requested: 0, created_at: 1, updated_at: 1, finished_at: null })
        .execute();
      const deadDir = path.join(dir, 'other');
      const deadStaging = path.join(deadDir, `.coffer-tmp-job-${deadId}`);
      await mkdir(path.join(deadStaging, 'half'), { recursive: true });
      await writeFile(path.join(deadStaging, 'half', 'written.bin'), 'half');
      await writeFile(path.join(srv.deps.jobStagingLedger, deadId), deadStaging);
      // A note that points at a folder not named like its job's staging is left alone.
      const stranger = path.join(deadDir, 'keep-me');
      await mkdir(stranger);
      await writeFile(path.join(srv.deps.jobStagingLedger, 'd'.repeat(32)), stranger);

      const second = await createDeps(srv.config, { failureDelayMs: 0, jobHeartbeatMs: 60_000 });
      try {
        expect(await readdir(deadDir)).toEqual(['keep-me']);
        expect(await readdir(path.join(dir, 'out'))).toEqual(liveStaging);
        expect((await readdir(srv.deps.jobStagingLedger)).sort()).toEqual([live.id]);
      } finally {
        await second.deps.jobs.close();
        await second.deps.db.close();
      }
      expect((await srv.fetch(`/api/jobs/${live.id}/cancel`, { method: 'POST', token })).status).toBe(200);
      expect(await readdir(path.join(dir, 'out'))).toEqual([]);
      expect(await readdir(srv.deps.jobStagingLedger)).toEqual([]);
    } finally {
      await srv.close();
    }
  }, 60_000);
});

describe('extract: a process that died moments ago', () => {
  it('the staging folder of a job still "running" at the next start is removed once the job is found stale (a restart within the heartbeat, a worker replaced)', async () => {
    const srv = await startServer({ jobsPerUser: 0 }, { jobHeartbeatMs: 60_000 });
    try {
      await srv.login();
      // A job of a process that died a moment ago: its last beat is recent, so at the next start it
      // is still "running" (live) and its staging folder stays.
      const deadId = 'f'.repeat(32);
      const admin = (await srv.deps.users.byUsername('admin'))!;
      // Its last beat is put 3 s ahead: still recent when the second process has started, even if
      // that start takes seconds on a busy machine (three of its 200 ms beats would pass first).
      const lastBeat = Date.now() + 3_000;
      await srv.deps.db.kysely
        .insertInto('jobs')
        .values({ id: deadId, kind: 'extract', user_id: admin.id, inputs: '{}', state: 'running', progress_done: 1, progress_total: 9, error: null, result: null, instance: 'gone', cancel_requested: 0, created_at: Date.now(), updated_at: lastBeat, finished_at: null })
        .execute();
      const deadDir = path.join(srv.root, 'recent');
      const deadStaging = path.join(deadDir, `.coffer-tmp-job-${deadId}`);
      await mkdir(path.join(deadStaging, 'half'), { recursive: true });
      await writeFile(path.join(deadStaging, 'half', 'written.bin'), 'half');
      await mkdir(srv.deps.jobStagingLedger, { recursive: true });
      await writeFile(path.join(srv.deps.jobStagingLedger, deadId), deadStaging);

      const second = await createDeps(srv.config, { failureDelayMs: 0, jobHeartbeatMs: 200 });
      try {
        expect(await readdir(deadDir)).toEqual([`.coffer-tmp-job-${deadId}`]);
        // Three heartbeats without a beat of its own: failed, and its half-written folder goes.
        await expect.poll(async () => (await second.deps.jobs.get(admin, deadId)).state, { timeout: 10_000 }).toBe('failed');
        await expect.poll(() => readdir(deadDir), { timeout: 10_000 }).toEqual([]);
        expect(await readdir(srv.deps.jobStagingLedger)).toEqual([]);
      } finally {
        await second.deps.jobs.close();
        await second.deps.db.close();
      }
    } finally {
      await srv.close();
    }
  }, 60_000);
});

describe('looking inside an archive', () => {
  const srv = useServer({ extractMaxEntries: 100 });
  const lines = async (res: Response) => (await res.text()).split('\n').filter(Boolean).map((l) => JSON.parse(l) as { name?: string; size?: number; isDir?: boolean; modified?: string; error?: string });

  it('lists the entries of every format Coffer writes, with sizes and dates, without extracting', async () => {
    const token = await srv.login();
    const src = path.join(srv.root, 'ls-src', 'tree');
    await mkdir(path.join(src, 'sub'), { recursive: true });
    await writeFile(path.join(src, 'a.txt'), 'alpha');
    await writeFile(path.join(src, 'sub', 'b.bin'), Buffer.alloc(300_000, 7));
    for (const algo of ['zip', 'tar', 'targz', 'tarbz2', 'tarxz', 'tarbr', 'tarzst', 'tarsz', 'tarlz4']) {
      const ext = algo === 'zip' ? '.zip' : `.tar${{ tar: '', targz: '.gz', tarbz2: '.bz2', tarxz: '.xz', tarbr: '.br', tarzst: '.zst', tarsz: '.sz', tarlz4: '.lz4' }[algo]}`;
      const dir = await fresh(srv, `ls-${algo}`, Buffer.from(await (await srv.fetch(`/api/raw/ls-src/tree/?algo=${algo}`, { token })).arrayBuffer()), `t${ext}`);
      const res = await srv.fetch(`/api/archive-entries/ls-${algo}/t${ext}`, { token });
      expect(res.status, algo).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      const list = await lines(res);
      expect(list.map((e) => `${e.name!.replace(/\/$/, '')}${e.isDir ? '/' : ''}:${e.size}`).sort(), algo).toEqual(['a.txt:5', 'sub/:0', 'sub/b.bin:300000']);
      expect(Date.parse(list[0]!.modified!)).toBeGreaterThan(0);
      expect(await tree(dir), algo).toEqual(['out/', `t${ext}`]);
      // One entry, downloaded.
      const one = await srv.fetch(`/api/archive-entry/ls-${algo}/t${ext}?name=${encodeURIComponent(list.find((e) => e.name!.endsWith('b.bin'))!.name!)}`, { token });
      expect(one.status, algo).toBe(200);
      expect(one.headers.get('content-disposition')).toMatch(/^attachment; filename="b.bin"/);
      expect(Buffer.from(await one.arrayBuffer()).equals(Buffer.alloc(300_000, 7)), algo).toBe(true);
    }
  }, 120_000);

  it('lists hostile names as they are, harmlessly; downloads a hostile-named entry under its last segment only', async () => {
    const token = await srv.login();
    const hostile = ['../evil.txt', '/etc/passwd', '<img src=x onerror=alert(1)>.html', 'a\u0001b', 'C:\\win.ini'];
    const zip = zipOf(hostile.map((name) => ({ name, data: Buffer.from(`data of ${name}`) })));
    const dir = await fresh(srv, 'ls-hostile', zip, 'h.zip');
    await writeFile(path.join(dir, 'h.tar'), await tarOf(hostile.filter((n) => !n.startsWith('/')).map((name) => ({ name, data: Buffer.from(`data of ${name}`) }))));
    for (const [file, names] of [['h.zip', hostile], ['h.tar', hostile.filter((n) => !n.startsWith('/'))]] as const) {
      const list = await lines(await srv.fetch(`/api/archive-entries/ls-hostile/${file}`, { token }));
      expect(list.map((e) => e.name), file).toEqual(names);
      const res = await srv.fetch(`/api/archive-entry/ls-hostile/${file}?name=${encodeURIComponent('../evil.txt')}`, { token });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="evil.txt"/);
      expect(res.headers.get('content-type')).toBe('application/octet-stream');
      expect(await res.text()).toBe('data of ../evil.txt');
    }
    expect(await tree(dir)).toEqual(['h.tar', 'h.zip', 'out/']);
    expect(await readdir(srv.root)).not.toContain('evil.txt');
  });

  it('needs download; rules and scope hold; a missing entry is 404; a damaged archive ends the list with an error line', async () => {
    const token = await srv.login();
    const zip = zipOf([{ name: 'a.txt', data: Buffer.from('a') }, { name: 'd/', mode: 0o040755 }]);
    await fresh(srv, 'ls-perm', zip);
    expect((await srv.fetch('/api/archive-entry/ls-perm/a.zip?name=missing', { token })).status).toBe(404);
    expect((await srv.fetch('/api/archive-entry/ls-perm/a.zip?name=d/', { token })).status).toBe(404);
    // A link entry is no file entry (404, its target text is not sent); an entry stored with a
    // method that cannot be read (99: AES) is 400, not 500.
    const odd = zipOf([{ name: 'link', data: Buffer.from('/etc/passwd'), mode: 0o120777 }, { name: 'aes.bin', data: Buffer.from('secret') }]);
    odd.writeUInt16LE(99, odd.indexOf('aes.bin') - 30 + 8);
    odd.writeUInt16LE(99, odd.lastIndexOf('aes.bin') - 46 + 10);
    await writeFile(path.join(srv.root, 'ls-perm', 'odd.zip'), odd);
    expect((await srv.fetch('/api/archive-entry/ls-perm/odd.zip?name=link', { token })).status).toBe(404);
    // A zip bomb's entry is refused as in extraction (E11), not inflated for the client.
    await writeFile(path.join(srv.root, 'ls-perm', 'bomb.zip'), zipOf([{ name: 'zeros.bin', data: Buffer.alloc(16 * 1024 * 1024), deflate: true }]));
    const bomb = await srv.fetch('/api/archive-entry/ls-perm/bomb.zip?name=zeros.bin', { token });
    expect(bomb.status).toBe(400);
    expect(await bomb.text()).toMatch(/bomb/);
    const aes = await srv.fetch('/api/archive-entry/ls-perm/odd.zip?name=aes.bin', { token });
    expect(aes.status).toBe(400);
    expect(await aes.text()).not.toContain(srv.root);
    const noDownload = await srv.createUser({ perm: { download: false } });
    const t1 = await srv.login(noDownload.username, noDownload.password);
    expect((await srv.fetch('/api/archive-entries/ls-perm/a.zip', { token: t1 })).status).toBe(403);
    expect((await srv.fetch('/api/archive-entry/ls-perm/a.zip?name=a.txt', { token: t1 })).status).toBe(403);
    const ruled = await srv.createUser({ perm: { download: true }, rules: [denyPath('/ls-perm/a.zip')] });
    const t2 = await srv.login(ruled.username, ruled.password);
    expect((await srv.fetch('/api/archive-entries/ls-perm/a.zip', { token: t2 })).status).toBe(403);
    const scoped = await srv.createUser({ perm: { download: true }, scope: '/ls-perm/out' });
    const t3 = await srv.login(scoped.username, scoped.password);
    // A link in the scope to an archive outside it is not followed.
    await symlink(path.join(srv.root, 'ls-perm', 'a.zip'), path.join(srv.root, 'ls-perm', 'out', 'link.zip'));
    expect((await srv.fetch('/api/archive-entries/link.zip', { token: t3 })).status).toBe(403);
    expect((await srv.fetch('/api/archive-entry/link.zip?name=a.txt', { token: t3 })).status).toBe(403);
    expect((await srv.fetch('/api/archive-entries/ls-perm/out', { token })).status).toBe(400);
    await writeFile(path.join(srv.root, 'ls-perm', 'bad.tar.gz'), gzipSync(Buffer.alloc(5000, 1)).subarray(0, 300));
    const bad = await lines(await srv.fetch('/api/archive-entries/ls-perm/bad.tar.gz', { token }));
    expect(bad.at(-1)?.error).toMatch(/damaged/);
    // Zeros after the tar's end are unpacked too: a bomb there ends the list by the ratio limit.
    const tail = gzipSync(Buffer.concat([await tarOf([{ name: 'a', data: Buffer.from('a') }]), Buffer.alloc(64 * 1024 * 1024)]));
    await writeFile(path.join(srv.root, 'ls-perm', 'zeros.tar.gz'), tail);
    const zeros = await lines(await srv.fetch('/api/archive-entries/ls-perm/zeros.tar.gz', { token }));
    expect(zeros.map((l) => l.name ?? l.error)).toEqual(['a', expect.stringMatching(/bomb/) as unknown]);
    // The entry-count limit ends a long list with its reason.
    await writeFile(path.join(srv.root, 'ls-perm', 'many.tar'), await tarOf(Array.from({ length: 101 }, (_, i) => ({ name: `f${i}`, data: Buffer.from('x') }))));
    const many = await lines(await srv.fetch('/api/archive-entries/ls-perm/many.tar', { token }));
    expect(many.at(-1)?.error).toMatch(/more than 100 entries/);
  });
});
