import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { closeGzipWorkers, gzipActivity, ParallelGzip } from './gzip-parallel.js';

afterAll(async () => {
  await closeGzipWorkers();
});

/** Runs `chunks` through a ParallelGzip and returns its output. */
async function gz(chunks: Buffer[]): Promise<Buffer> {
  const out: Buffer[] = [];
  await pipeline(
    Readable.from(chunks),
    new ParallelGzip(6),
    new Writable({
      write(c: Buffer, _e, cb) {
        out.push(c);
        cb();
      },
    }),
  );
  return Buffer.concat(out);
}

/** Compressible text with some noise: 0..n bytes. */
function text(n: number): Buffer {
  const words = ['alpha ', 'beta ', 'gamma ', 'delta\n', 'epsilon ', String(Math.random())];
  const parts: string[] = [];
  let len = 0;
  for (let i = 0; len < n; i++) {
    const w = words[(i * 7 + (i >> 3)) % words.length]! + (i % 97 === 0 ? `${i}\n` : '');
    parts.push(w);
    len += w.length;
  }
  return Buffer.from(parts.join('')).subarray(0, n);
}

describe('ParallelGzip', () => {
  it('makes a valid gzip file of an empty input', async () => {
    const out = await gz([]);
    expect(out.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    expect(gunzipSync(out).length).toBe(0);
    execFileSync('gzip', ['-t'], { input: out });
  });

  it('keeps the order of many members (input larger than several blocks, in odd chunk sizes)', async () => {
    const input = Buffer.concat([text(3 * 1024 * 1024 + 12345), randomBytes(1500 * 1024), text(777)]);
    const chunks: Buffer[] = [];
    for (let at = 0, k = 0; at < input.length; k++) {
      const n = [1, 5000, 65536, 300_000, 2 * 1024 * 1024][k % 5]!;
      chunks.push(input.subarray(at, at + n));
      at += n;
    }
    const before = gzipActivity.blocks;
    const out = await gz(chunks);
    // 64 KiB, 128, 256, 512 KiB, then 1 MiB blocks: several members.
    expect(gzipActivity.blocks - before).toBeGreaterThan(5);
    expect(gunzipSync(out).equals(input)).toBe(true);
    // The standard tool reads the concatenated members as one file.
    execFileSync('gzip', ['-t'], { input: out });
    expect(execFileSync('gzip', ['-dc'], { input: out, maxBuffer: 64 * 1024 * 1024 }).equals(input)).toBe(true);
    expect(gzipActivity.inFlight).toBe(0);
  });

  it('sends the first chunk at once as the first member, before the input ends', async () => {
    const z = new ParallelGzip(6);
    const got = new Promise<Buffer>((resolve) => z.once('data', resolve));
    const before = gzipActivity.blocks;
    z.write(Buffer.from('hello, '));
    const first = await got;
    // The first member is made on this thread: no worker to wait for.
    expect(gzipActivity.blocks).toBe(before);
    expect(gunzipSync(first).toString()).toBe('hello, ');
    const rest: Buffer[] = [];
    z.on('data', (c: Buffer) => rest.push(c));
    z.end(Buffer.from('world'));
    await new Promise((r) => z.once('end', r));
    expect(gunzipSync(Buffer.concat([first, ...rest])).toString()).toBe('hello, world');
  });

  it('dispatches nothing more once destroyed', async () => {
    const z = new ParallelGzip(6);
    z.on('error', () => undefined);
    z.resume();
    z.write(randomBytes(256 * 1024));
    const before = gzipActivity.blocks;
    z.destroy();
    z.write(randomBytes(4 * 1024 * 1024), () => undefined);
    await new Promise((r) => setTimeout(r, 200));
    expect(gzipActivity.blocks).toBe(before);
    expect(gzipActivity.inFlight).toBe(0);
  });

  it('holds input while four blocks are being compressed (bounded memory)', async () => {
    const z = new ParallelGzip(6);
    const chunks: Buffer[] = [];
    // A reader that takes everything at once: only the codec's own bound limits the blocks out.
    z.on('data', (c: Buffer) => chunks.push(c));
    const block = randomBytes(1024 * 1024);
    let peak = 0;
    const sample = () => (peak = Math.max(peak, gzipActivity.inFlight));
    const timer = setInterval(sample, 1);
    for (let i = 0; i < 12; i++) z.write(block, sample);
    z.end();
    await new Promise((r) => z.once('end', r));
    clearInterval(timer);
    expect(peak).toBeGreaterThanOrEqual(2);
    expect(peak).toBeLessThanOrEqual(5);
    expect(gunzipSync(Buffer.concat(chunks)).length).toBe(12 * 1024 * 1024);
  });
});
