import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { bzip2Encoder } from './bzip2.js';

const { compress } = bzip2Encoder();
const bunzip = (data: Uint8Array) =>
  execFileSync('bzip2', ['-dc'], { input: data, maxBuffer: 64 * 1024 * 1024 });

function roundTrip(input: Buffer): void {
  const out = compress(input);
  expect(Buffer.from(out.subarray(0, 4)).toString('latin1')).toBe('BZh9');
  expect(bunzip(out).equals(input)).toBe(true);
}

describe('bzip2 encoder (decoded by the real bzip2)', () => {
  it('encodes the empty input', () => roundTrip(Buffer.alloc(0)));
  it('encodes one byte and short texts', () => {
    roundTrip(Buffer.from('a'));
    roundTrip(Buffer.from('hello world'));
    roundTrip(Buffer.from('banana'));
  });
  it('encodes runs of every length around the RLE1 limits', () => {
    for (const len of [3, 4, 5, 254, 255, 256, 259, 1000]) roundTrip(Buffer.alloc(len, 0x61));
    roundTrip(
      Buffer.concat([Buffer.alloc(4, 1), Buffer.alloc(4, 2), Buffer.alloc(255, 1), Buffer.alloc(3, 1)]),
    );
  });
  it('encodes periodic text, random bytes and all byte values', () => {
    roundTrip(Buffer.from('ab'.repeat(50000)));
    roundTrip(randomBytes(200_000));
    roundTrip(Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7) & 0xff)));
  });
  it('splits input larger than one block into several blocks', () => {
    const text = Buffer.from(Array.from({ length: 60000 }, (_, i) => `line ${i} of some text\n`).join(''));
    roundTrip(text);
    roundTrip(Buffer.concat([randomBytes(700_000), Buffer.alloc(600_000, 0)]));
  }, 60_000);
  it('produces streams that concatenate into one file', () => {
    const a = compress(Buffer.from('first '));
    const b = compress(Buffer.from('second'));
    expect(bunzip(Buffer.concat([a, b])).toString()).toBe('first second');
  });
});
