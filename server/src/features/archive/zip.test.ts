import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ArchiveEntry } from './entry.js';
import { zipStream } from './zip.js';

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
