import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { compress } from '@mongodb-js/zstd';
import { compressFrame } from 'lz4-napi';
import { describe, expect, it } from 'vitest';
import { Lz4ChecksumError, Lz4Frames, ZstdWindowCheck } from './decompress.js';
import { XxHash32, xxh32 } from './xxhash32.js';

describe('xxHash32', () => {
  it('gives the published values, in one call and fed in pieces', () => {
    expect(xxh32(Buffer.alloc(0))).toBe(0x02cc5d05);
    expect(xxh32(Buffer.from('a'))).toBe(0x550d7456);
    expect(xxh32(Buffer.from('abc'))).toBe(0x32d153ff);
    expect(xxh32(Buffer.from('Nobody inspects the spammish repetition'))).toBe(0xe2293b2f);
    const long = randomBytes(1000);
    const h = new XxHash32();
    for (let i = 0; i < long.length; i += 7) h.update(long.subarray(i, i + 7));
    expect(h.digest()).toBe(xxh32(long));
  });
});

const feed = (buf: Buffer, piece = 7) => {
  const check = new ZstdWindowCheck();
  for (let i = 0; i < buf.length; i += piece) check.feed(buf.subarray(i, i + piece));
};

describe('ZstdWindowCheck: the window a zstd frame asks for', () => {
  it('follows real frames one after the other, fed in small pieces, and a skippable frame', async () => {
    const skippable = Buffer.from([0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3]);
    const frames = [await compress(randomBytes(300_000), 3), skippable, await compress(Buffer.alloc(5_000_000), 19), await compress(Buffer.alloc(0), 1)];
    expect(() => feed(Buffer.concat(frames))).not.toThrow();
    expect(() => feed(Buffer.concat(frames), 1)).not.toThrow();
  });

  it('refuses a window over 128 MiB, in a first or a later frame', async () => {
    const raw = (window: number) => Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, window, 0x09, 0, 0, 0x61]);
    expect(() => feed(raw(0x88))).not.toThrow(); // 2^27
    expect(() => feed(raw(0x89))).toThrow(/window is over 128 MiB/); // 2^27 + 2^24
    const ok = await compress(Buffer.from('ok'), 3);
    expect(() => feed(Buffer.concat([ok, raw(0xa7)]))).toThrow(/window is over 128 MiB/);
  });
});

describe('Lz4Frames: LZ4 frames as a stream', () => {
  /** `input` through the lz4 command with `flags`. */
  const lz4Cli = (input: Buffer, flags: string[]) => execFileSync('lz4', ['-q', '-c', ...flags], { input, maxBuffer: 64 * 2 ** 20 });
  const unpack = async (data: Buffer, piece = 65536): Promise<Buffer> => {
    const parts: Buffer[] = [];
    const pieces = (function* () {
      for (let i = 0; i < data.length; i += piece) yield data.subarray(i, i + piece);
    })();
    await pipeline(Readable.from(pieces), new Lz4Frames(), async (source: AsyncIterable<Buffer>) => {
      for await (const c of source) parts.push(c);
    });
    return Buffer.concat(parts);
  };
  // Compressible and not: repeated text, then random bytes (stored raw by the encoder).
  const text = Buffer.concat([Buffer.from(Array.from({ length: 200_000 }, (_, i) => `line ${i}\n`).join('')), randomBytes(300_000)]);

  it('reads what the lz4 command writes: independent and linked blocks, every block size, checksums, content size', async () => {
    for (const flags of [[], ['-BD'], ['-B4'], ['-B4', '-BD', '--content-size'], ['-B5', '-BX'], ['-B6', '--no-frame-crc']]) {
      expect((await unpack(lz4Cli(text, flags))).equals(text), flags.join(' ')).toBe(true);
    }
    expect((await unpack(lz4Cli(text, ['-BD', '-B4']), 1)).subarray(0, 50_000).equals(text.subarray(0, 50_000))).toBe(true);
  }, 60_000);

  it('reads concatenated frames (Coffer writes one per block) and skippable frames', async () => {
    const skippable = Buffer.from([0x5f, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3]);
    const a = text.subarray(0, 100_000);
    const b = text.subarray(100_000);
    const joined = Buffer.concat([await compressFrame(a), skippable, await compressFrame(b)]);
    expect((await unpack(joined, 1000)).equals(text)).toBe(true);
  });

  it('refuses a truncated stream, a block over its frame maximum, and bytes that are not LZ4', async () => {
    const whole = lz4Cli(text, ['-B4']);
    await expect(unpack(whole.subarray(0, whole.length - 10))).rejects.toThrow(/truncated/);
    const big = Buffer.from(whole);
    big.writeUInt32LE(65537, 7); // the first block's size, past the 64 KiB maximum of -B4
    await expect(unpack(big)).rejects.toThrow(/larger than its frame allows/);
    await expect(unpack(Buffer.from('not lz4 at all'))).rejects.toThrow(/not an LZ4 frame/);
  });

  it('verifies the header, block and content checksums: one flipped bit in each fails', async () => {
    // Random bytes are stored raw by the encoder: only a checksum can tell a flipped bit there.
    const raw = randomBytes(200_000);
    const withContent = lz4Cli(raw, ['-B4']);
    const flipAt = async (data: Buffer, at: number) => {
      const bad = Buffer.from(data);
      bad[at]! ^= 0x10;
      return unpack(bad).then(() => 'read', (err: unknown) => err);
    };
    // Inside the first block's stored bytes (magic 4, FLG+BD 2, header checksum 1, block size 4).
    const inData = await flipAt(withContent, 4 + 3 + 4 + 100);
    expect(inData).toBeInstanceOf(Lz4ChecksumError);
    expect(String(inData)).toMatch(/content checksum does not match/);
    // The content checksum itself (the frame's last 4 bytes).
    expect(String(await flipAt(withContent, withContent.length - 2))).toMatch(/content checksum does not match/);
    // The header checksum byte.
    expect(String(await flipAt(withContent, 6))).toMatch(/frame header checksum does not match/);
    // A block checksum (-BX): the first block's checksum follows its 64 KiB of stored bytes.
    const withBlocks = lz4Cli(raw, ['-B4', '-BX', '--no-frame-crc']);
    const firstSize = withBlocks.readUInt32LE(7) & 0x7fffffff;
    expect(String(await flipAt(withBlocks, 7 + 4 + firstSize + 1))).toMatch(/block checksum does not match/);
    expect(String(await flipAt(withBlocks, 7 + 4 + 10))).toMatch(/block checksum does not match/);
    // Undamaged, every variant still reads.
    expect((await unpack(withContent)).equals(raw)).toBe(true);
    expect((await unpack(withBlocks)).equals(raw)).toBe(true);
  });
});
