import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ArchiveEntry } from './entry.js';
import { randomBytes } from 'node:crypto';
import { crc32, deflateRawSync } from 'node:zlib';
import { Central, type CentralRecord, streamsAsZip64, zipStream } from './zip.js';

const dir = mkdtempSync(path.join(tmpdir(), 'coffer-zip-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function build(entries: ArchiveEntry[] | AsyncIterable<ArchiveEntry>): Promise<string> {
  const parts: Buffer[] = [];
  const source = Array.isArray(entries)
    ? (async function* () {
        yield* entries;
      })()
    : entries;
  for await (const b of zipStream(source)) parts.push(b);
  const file = path.join(dir, `t${Math.random().toString(36).slice(2)}.zip`);
  writeFileSync(file, Buffer.concat(parts));
  return file;
}

const when = new Date('2022-02-03T04:05:06Z');

describe('zipStream (checked with unzip)', () => {
  it('writes folders, read-ahead files and streamed files that unzip verifies', async () => {
    const big = Buffer.from(Array.from({ length: 300_000 }, (_, i) => i % 97));
    const file = await build([
      { name: 'dir', isDir: true, mode: 0o750, mtime: when, size: 0 },
      { name: 'dir/small.txt', isDir: false, mode: 0o644, mtime: when, size: 5, data: Buffer.from('hello') },
      { name: 'dir/empty.txt', isDir: false, mode: 0o600, mtime: when, size: 0, data: Buffer.alloc(0) },
      {
        name: 'big.bin',
        isDir: false,
        mode: 0o755,
        mtime: when,
        size: big.length,
        stream: (async function* () {
          for (let i = 0; i < big.length; i += 65536) yield big.subarray(i, i + 65536);
        })(),
      },
      {
        name: 'photo.jpg',
        isDir: false,
        mode: 0o644,
        mtime: when,
        size: 3,
        stream: (async function* () {
          yield Buffer.from('abc');
        })(),
      },
    ]);
    execFileSync('unzip', ['-tq', file]);
    expect(execFileSync('unzip', ['-p', file, 'big.bin'], { maxBuffer: 1 << 24 }).equals(big)).toBe(true);
    expect(execFileSync('unzip', ['-p', file, 'dir/small.txt']).toString()).toBe('hello');
    const listing = execFileSync('unzip', ['-Z', file]).toString();
    expect(listing).toMatch(/drwxr-x---.*dir\//);
    expect(listing).toMatch(/-rwxr-xr-x.*big\.bin/);
    expect(listing).toMatch(/-rw-------.*dir\/empty\.txt/);
    // Already-compressed types are stored, the rest deflated.
    expect(listing).toMatch(/stor.*photo\.jpg/);
    expect(listing).toMatch(/defN.*big\.bin/);
  });

  it('switches to ZIP64 records past 65,535 entries', async () => {
    const n = 70_000;
    const file = await build(
      (async function* () {
        for (let i = 0; i < n; i++)
          yield { name: `f${i}`, isDir: false, mode: 0o644, mtime: when, size: 1, data: Buffer.from('x') };
      })(),
    );
    const out = execFileSync('unzip', ['-l', file], { maxBuffer: 1 << 26 }).toString();
    expect(out.trim().split('\n').at(-1)).toMatch(/\b70000 files$/);
    execFileSync('unzip', ['-tq', file], { maxBuffer: 1 << 26 });
  }, 60_000);
});

describe('zipStream output pieces and central records', () => {
  it('gives out pieces of at least 64 KiB, with read-ahead bodies large and small, that unzip and zipinfo accept', async () => {
    const bigAhead = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 13) % 256));
    const entries: ArchiveEntry[] = [];
    for (let i = 0; i < 3000; i++) {
      const data = Buffer.from(`line ${i} `.repeat(4).slice(0, 40));
      // As a worker hands small files over (fs/worker-pool.ts readBatch), one in ten as plain data.
      if (i % 10 === 0)
        entries.push({
          name: `d${i % 10}/file-${i}.txt`,
          isDir: false,
          mode: 0o644,
          mtime: when,
          size: data.length,
          data,
        });
      else
        entries.push({
          name: `d${i % 10}/file-${i}.txt`,
          isDir: false,
          mode: 0o644,
          mtime: when,
          size: data.length,
          zip: { body: data, deflated: false, crc: crc32(data) },
        });
      if (i === 1500) {
        entries.push({
          name: 'ahead.bin',
          isDir: false,
          mode: 0o600,
          mtime: when,
          size: bigAhead.length,
          data: bigAhead,
        });
        // As a worker hands it over: stored body with its CRC.
        entries.push({
          name: 'ahead.jpg',
          isDir: false,
          mode: 0o644,
          mtime: when,
          size: bigAhead.length,
          zip: { body: bigAhead, deflated: false, crc: crc32(bigAhead) },
        });
      }
    }
    const pieces: Buffer[] = [];
    for await (const b of zipStream(
      (async function* () {
        yield* entries;
      })(),
    ))
      pieces.push(b);
    // Far fewer writes than entries (two per entry before): pieces of 64 KiB, or what waited 20 ms.
    expect(pieces.length).toBeLessThan(100);
    expect(pieces.filter((p) => p.length >= 64 * 1024).length).toBeGreaterThanOrEqual(3);
    const file = path.join(dir, 'pieces.zip');
    writeFileSync(file, Buffer.concat(pieces));
    execFileSync('unzip', ['-tq', file]);
    expect(execFileSync('unzip', ['-p', file, 'ahead.bin'], { maxBuffer: 1 << 24 }).equals(bigAhead)).toBe(
      true,
    );
    expect(execFileSync('unzip', ['-p', file, 'ahead.jpg'], { maxBuffer: 1 << 24 }).equals(bigAhead)).toBe(
      true,
    );
    expect(execFileSync('unzip', ['-p', file, 'd7/file-2997.txt']).toString()).toBe(
      'line 2997 line 2997 line 2997 line 2997 '.slice(0, 40),
    );
    const info = execFileSync('zipinfo', ['-l', file], { maxBuffer: 1 << 24 }).toString();
    expect(info).toMatch(/-rw-------.*200000 .* defN .* ahead\.bin$/m);
    expect(info).toMatch(/200000 .* stor .* ahead\.jpg$/m);
    expect(info).toMatch(/3002 files/);
  });

  it('writes ZIP64 extras in the central directory for sizes and offsets over 4 GiB, only the fields that need them', () => {
    const c = new Central();
    const name = Buffer.from('n.bin');
    const rec = (size: number, compressed: number, offset: number): CentralRecord => ({
      name,
      flags: 0x0800,
      method: 8,
      time: 1,
      date: 2,
      crc: 0x12345678,
      compressed,
      size,
      offset,
      external: 0,
      mtime: 100,
    });
    const five = 5 * 1024 ** 3;
    c.add(rec(10, 5, 7)); // plain
    c.add(rec(five, five - 1, 7)); // sizes only
    c.add(rec(10, 5, five)); // offset only
    c.add(rec(five, five - 1, five + 1)); // all three
    const b = c.buf.subarray(0, c.len);
    const records: Buffer[] = [];
    for (let at = 0; at < b.length;) {
      expect(b.readUInt32LE(at)).toBe(0x02014b50);
      const len = 46 + b.readUInt16LE(at + 28) + b.readUInt16LE(at + 30) + b.readUInt16LE(at + 32);
      records.push(b.subarray(at, at + len));
      at += len;
    }
    expect(records).toHaveLength(4);
    const z64 = (r: Buffer) => {
      const x = 46 + r.readUInt16LE(28);
      return r.readUInt16LE(x) === 0x0001
        ? Array.from({ length: r.readUInt16LE(x + 2) / 8 }, (_, i) =>
            Number(r.readBigUInt64LE(x + 4 + 8 * i)),
          )
        : [];
    };
    expect(z64(records[0]!)).toEqual([]);
    expect([
      records[0]!.readUInt32LE(20),
      records[0]!.readUInt32LE(24),
      records[0]!.readUInt32LE(42),
    ]).toEqual([5, 10, 7]);
    expect(z64(records[1]!)).toEqual([five, five - 1]);
    expect([
      records[1]!.readUInt32LE(20),
      records[1]!.readUInt32LE(24),
      records[1]!.readUInt32LE(42),
    ]).toEqual([0xffffffff, 0xffffffff, 7]);
    expect(z64(records[2]!)).toEqual([five]);
    expect(records[2]!.readUInt32LE(42)).toBe(0xffffffff);
    expect(z64(records[3]!)).toEqual([five, five - 1, five + 1]);
    for (const r of records) {
      expect(r.readUInt16LE(6)).toBe(r === records[0] ? 20 : 45);
      // The timestamp extra follows: mtime 100.
      expect(r.readInt32LE(r.length - 4)).toBe(100);
    }
  });

  it('gives a streamed entry ZIP64 sizes whenever deflate could make it reach 4 GiB', () => {
    const MAX32 = 0xffffffff;
    // The largest size written without ZIP64 (the test of the choice is monotonic).
    let lo = 0;
    let hi = MAX32;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (streamsAsZip64(mid)) hi = mid;
      else lo = mid;
    }
    expect(streamsAsZip64(lo)).toBe(false);
    expect(streamsAsZip64(lo + 1)).toBe(true);
    // Incompressible bytes grow under deflate; at that size they must still fit 32 bits.
    const sample = randomBytes(4 * 1024 * 1024);
    const growth = (deflateRawSync(sample).length - sample.length) / sample.length;
    expect(growth).toBeGreaterThan(0);
    expect(lo + Math.ceil(lo * growth) + 64).toBeLessThan(MAX32);
    // Just under the former fixed threshold (0xfff00000) random data outgrew 4 GiB.
    expect(streamsAsZip64(0xffef0000)).toBe(true);
    expect(streamsAsZip64(0xfff00000)).toBe(true);
    expect(streamsAsZip64(3 * 1024 ** 3)).toBe(false);
  });
});
