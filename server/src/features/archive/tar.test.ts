import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import tarStreamLib from 'tar-stream';
import { afterAll, describe, expect, it } from 'vitest';
import type { ArchiveEntry } from './entry.js';
import { OUT_CHUNK, tarStream } from './tar.js';

const dir = mkdtempSync(path.join(tmpdir(), 'coffer-tar-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function build(entries: ArchiveEntry[]): Promise<{ bytes: Buffer; pieces: Buffer[] }> {
  const pieces: Buffer[] = [];
  for await (const b of tarStream(
    (async function* () {
      yield* entries;
    })(),
  ))
    pieces.push(b);
  return { bytes: Buffer.concat(pieces), pieces };
}

function save(bytes: Buffer): string {
  const file = path.join(dir, `t${Math.random().toString(36).slice(2)}.tar`);
  writeFileSync(file, bytes);
  return file;
}

/** What tar-stream's extractor reads back: name → [type, size, mode, mtime seconds, content]. */
async function extractWithTarStream(
  bytes: Buffer,
): Promise<Map<string, { type: string; size: number; mode: number; mtime: number; body: Buffer }>> {
  const out = new Map<string, { type: string; size: number; mode: number; mtime: number; body: Buffer }>();
  const ex = tarStreamLib.extract();
  const done = new Promise<void>((resolve, reject) => {
    ex.on('entry', (h, stream, next) => {
      const parts: Buffer[] = [];
      stream.on('data', (c: Buffer) => parts.push(c));
      stream.on('end', () => {
        out.set(h.name, {
          type: h.type ?? '',
          size: h.size ?? 0,
          mode: h.mode ?? 0,
          mtime: Math.floor((h.mtime?.getTime() ?? 0) / 1000),
          body: Buffer.concat(parts),
        });
        next();
      });
    });
    ex.on('finish', resolve);
    ex.on('error', reject);
  });
  Readable.from([bytes]).pipe(ex);
  await done;
  return out;
}

const when = new Date('2022-02-03T04:05:06Z');
const longName = `deep/${'d'.repeat(60)}/${'n'.repeat(70)}-${'é'.repeat(20)}.txt`; // > 100 bytes, UTF-8
const big = Buffer.from(Array.from({ length: 300_001 }, (_, i) => (i * 7) % 251));

function sample(): ArchiveEntry[] {
  return [
    { name: 'dir', isDir: true, mode: 0o750, mtime: when, size: 0 },
    { name: 'dir/small.txt', isDir: false, mode: 0o640, mtime: when, size: 5, data: Buffer.from('hello') },
    { name: 'dir/empty.txt', isDir: false, mode: 0o600, mtime: when, size: 0, data: Buffer.alloc(0) },
    { name: 'exactly512.bin', isDir: false, mode: 0o644, mtime: when, size: 512, data: Buffer.alloc(512, 7) },
    {
      name: longName,
      isDir: false,
      mode: 0o755,
      mtime: new Date('2001-09-09T01:46:40Z'),
      size: 3,
      data: Buffer.from('abc'),
    },
    { name: 'big-ahead.bin', isDir: false, mode: 0o644, mtime: when, size: big.length, data: big },
    {
      name: 'big-stream.bin',
      isDir: false,
      mode: 0o604,
      mtime: when,
      size: big.length,
      stream: (async function* () {
        for (let at = 0; at < big.length; at += 65_536) yield big.subarray(at, at + 65_536);
      })(),
    },
    { name: 'last.txt', isDir: false, mode: 0o644, mtime: new Date(0), size: 1, data: Buffer.from('z') },
  ];
}

describe('tarStream', () => {
  it('writes an archive that GNU tar lists and extracts with names, modes, times and contents', async () => {
    const { bytes } = await build(sample());
    expect(bytes.length % 512).toBe(0);
    // Two zero blocks at the end.
    expect(bytes.subarray(bytes.length - 1024).every((b) => b === 0)).toBe(true);
    const file = save(bytes);
    const listing = execFileSync('tar', ['-tvf', file, '--utc', '--numeric-owner'], { encoding: 'utf8' });
    expect(listing).toContain('drwxr-x--- 0/0');
    expect(listing).toMatch(/-rw-r----- 0\/0\s+5 2022-02-03 04:05 dir\/small.txt/);
    expect(listing).toContain(longName);
    expect(listing).toMatch(/-rw----r-- 0\/0\s+300001 2022-02-03 04:05 big-stream.bin/);
    const out = path.join(dir, 'x');
    mkdirSync(out);
    execFileSync('tar', ['-xf', file, '-C', out]);
    expect(readFileSync(path.join(out, 'dir/small.txt'), 'utf8')).toBe('hello');
    expect(statSync(path.join(out, 'dir/small.txt')).mode & 0o7777).toBe(0o640);
    expect(statSync(path.join(out, 'dir/small.txt')).mtime.getTime()).toBe(when.getTime());
    expect(readFileSync(path.join(out, longName), 'utf8')).toBe('abc');
    expect(statSync(path.join(out, longName)).mode & 0o7777).toBe(0o755);
    expect(statSync(path.join(out, longName)).mtime.getTime() / 1000).toBe(1_000_000_000);
    expect(readFileSync(path.join(out, 'big-ahead.bin')).equals(big)).toBe(true);
    expect(readFileSync(path.join(out, 'big-stream.bin')).equals(big)).toBe(true);
    expect(readFileSync(path.join(out, 'exactly512.bin')).equals(Buffer.alloc(512, 7))).toBe(true);
    expect(statSync(path.join(out, 'dir/empty.txt')).size).toBe(0);
  });

  it('is read back the same by the tar-stream extractor (pax path for long names)', async () => {
    const { bytes } = await build(sample());
    const got = await extractWithTarStream(bytes);
    expect([...got.keys()]).toEqual([
      'dir/',
      'dir/small.txt',
      'dir/empty.txt',
      'exactly512.bin',
      longName,
      'big-ahead.bin',
      'big-stream.bin',
      'last.txt',
    ]);
    expect(got.get('dir/')).toMatchObject({ type: 'directory', mode: 0o750 });
    expect(got.get(longName)).toMatchObject({ type: 'file', size: 3, mode: 0o755, mtime: 1_000_000_000 });
    expect(got.get(longName)!.body.toString()).toBe('abc');
    expect(got.get('big-stream.bin')!.body.equals(big)).toBe(true);
    expect(got.get('last.txt')).toMatchObject({ mtime: 0, size: 1 });
  });

  it('gives out pieces of at least 64 KiB, not a write per header and body', async () => {
    const many: ArchiveEntry[] = Array.from({ length: 2000 }, (_, i) => ({
      name: `f/${i}.txt`,
      isDir: false,
      mode: 0o644,
      mtime: when,
      size: 100,
      data: Buffer.alloc(100, 65),
    }));
    const { bytes, pieces } = await build(many);
    expect(bytes.length).toBe(2000 * 1024 + 1024);
    // 32 full pieces; a piece is shorter only after 20 ms without one (a slow machine).
    expect(pieces.length).toBeLessThan(100);
    expect(pieces.filter((p) => p.length >= OUT_CHUNK).length).toBeGreaterThanOrEqual(16);
    const got = await extractWithTarStream(bytes);
    expect(got.size).toBe(2000);
  });

  it('writes sizes of 8 GiB and more in a pax size record and a base-256 field', async () => {
    const size = 9 * 1024 ** 3 + 5;
    // Only the header is checked: the data would be 9 GiB. The stream ends early, so tar lists the
    // entry with its size and then reports the archive truncated.
    const pieces: Buffer[] = [];
    const entries = (async function* (): AsyncGenerator<ArchiveEntry> {
      yield {
        name: 'huge.bin',
        isDir: false,
        mode: 0o644,
        mtime: when,
        size,
        stream: (async function* () {
          yield Buffer.alloc(512);
          throw new Error('stop here');
        })(),
      };
    })();
    await expect(
      (async () => {
        for await (const b of tarStream(entries)) pieces.push(b);
      })(),
    ).rejects.toThrow('stop here');
    const bytes = Buffer.concat(pieces);
    // pax header, its records, the entry's header, 512 bytes of data.
    expect(bytes.subarray(512, 1024).toString('utf8')).toContain(` size=${size}\n`);
    const header = bytes.subarray(1024, 1536);
    expect(header[124]).toBe(0x80);
    expect(header.readBigUInt64BE(128)).toBe(BigInt(size));
    const r = spawnSync('tar', ['-tvf', save(bytes)], { encoding: 'utf8' });
    expect(r.stdout).toContain(`${size}`);
    expect(r.stdout).toContain('huge.bin');
  });

  it('fails when a streamed file gives fewer or more bytes than announced', async () => {
    const entry = (n: number): ArchiveEntry => ({
      name: 'x',
      isDir: false,
      mode: 0o644,
      mtime: when,
      size: 10,
      stream: (async function* () {
        yield Buffer.alloc(n);
      })(),
    });
    await expect(build([entry(5)])).rejects.toThrow(/5 bytes where 10/);
    await expect(build([entry(11)])).rejects.toThrow(/more than the 10 bytes/);
  });
});
