/**
 * Decompressors for the tar formats Coffer writes (features/archive/formats.ts): gzip and brotli
 * from node:zlib, xz from liblzma (lzma-native), bzip2 (unbzip2-stream) and zstd (fzstd) as
 * streams, the Snappy framing format chunk by chunk (Snappy) and LZ4 frames block by block
 * (lz4-napi, the library that writes them).
 */
import { Transform, type TransformCallback } from 'node:stream';
import { createBrotliDecompress, createGunzip } from 'node:zlib';
import { Decompress as ZstdDecompress } from 'fzstd';
import { createDecompressor as createXzDecompressor } from 'lzma-native';
import unbzip2 from 'unbzip2-stream';
import { uncompress as lz4Block } from 'lz4-napi';
import { uncompressSync as snappyUncompress } from 'snappy';
import { BadRequest } from '../../http/errors.js';
import type { Codec } from '../archive/formats.js';
import { maskedCrc } from '../archive/snappy-frame.js';
import { XxHash32, xxh32 } from './xxhash32.js';

/**
 * zstd's own decoder refuses a window over 2^27 bytes unless told otherwise (`--long`). fzstd
 * allocates the window a frame header names, up to 2 GiB, and copies all of it for every block:
 * a 184-byte archive took 1.9 GiB and 28 s of the event loop.
 */
const ZSTD_MAX_WINDOW = 2 ** 27;

/**
 * Follows the frames in the bytes before fzstd reads them (RFC 8878 §3.1: frame header, then
 * blocks of a 3-byte header and their size, a checksum; skippable frames) and refuses a frame whose
 * window is over ZSTD_MAX_WINDOW. Bytes it cannot follow are left to fzstd, which refuses them.
 */
export class ZstdWindowCheck {
  private head: number[] = [];
  private want = 4;
  private skip = 0;
  private state: 'magic' | 'skippable' | 'descriptor' | 'header' | 'block' | 'lost' = 'magic';

  feed(chunk: Uint8Array): void {
    let i = 0;
    while (i < chunk.length && this.state !== 'lost') {
      if (this.skip > 0) {
        const n = Math.min(this.skip, chunk.length - i);
        this.skip -= n;
        i += n;
        continue;
      }
      this.head.push(chunk[i++]!);
      if (this.head.length === this.want) this.step();
    }
  }

  private next(state: ZstdWindowCheck['state'], want: number): void {
    this.state = state;
    this.want = want;
    this.head = [];
  }

  private step(): void {
    const h = this.head;
    const le = (from: number, n: number) => h.slice(from, from + n).reduceRight((v, b) => v * 256 + b, 0);
    switch (this.state) {
      case 'magic': {
        const magic = le(0, 4);
        if (magic === 0xfd2fb528) this.next('descriptor', 1);
        else if (magic >= 0x184d2a50 && magic <= 0x184d2a5f) this.next('skippable', 4);
        else this.state = 'lost';
        return;
      }
      case 'skippable':
        this.skip = le(0, 4);
        this.next('magic', 4);
        return;
      case 'descriptor':
      case 'header': {
        const fhd = h[0]!;
        const single = (fhd >> 5) & 1;
        const fcsBytes = fhd >> 6 ? 1 << (fhd >> 6) : single;
        const dictBytes = [0, 1, 2, 4][fhd & 3]!;
        const length = 1 + (single ? 0 : 1) + dictBytes + fcsBytes;
        if (h.length < length) {
          this.state = 'header';
          this.want = length;
          return;
        }
        let window: number;
        if (single) window = le(1 + dictBytes, fcsBytes) + (fcsBytes === 2 ? 256 : 0);
        else {
          const base = 2 ** (10 + (h[1]! >> 3));
          window = base + (base / 8) * (h[1]! & 7);
        }
        if (window > ZSTD_MAX_WINDOW) throw new BadRequest(`the archive's zstd window is over ${ZSTD_MAX_WINDOW / 2 ** 20} MiB (archives made with zstd --long are not extracted)`);
        this.checksum = ((fhd >> 2) & 1) === 1;
        this.next('block', 3);
        return;
      }
      case 'block': {
        const header = le(0, 3);
        const type = (header >> 1) & 3;
        this.skip = type === 1 ? 1 : header >>> 3;
        if (header & 1) {
          this.skip += this.checksum ? 4 : 0;
          this.next('magic', 4);
        } else this.next('block', 3);
        return;
      }
      default:
    }
  }

  private checksum = false;
}

/** zstd through fzstd's push API as a Transform. */
class Zstd extends Transform {
  private readonly check = new ZstdWindowCheck();
  private readonly z = new ZstdDecompress((chunk) => {
    this.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  });
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    try {
      this.check.feed(chunk);
      this.z.push(chunk);
      cb();
    } catch (err) {
      cb(err as Error);
    }
  }
  override _flush(cb: TransformCallback): void {
    try {
      this.z.push(new Uint8Array(0), true);
      cb();
    } catch (err) {
      cb(err as Error);
    }
  }
}

/**
 * The Snappy framing format (framing_format.txt) read chunk by chunk: each chunk's type and
 * length, its masked CRC-32C checked against the uncompressed bytes. Unknown skippable chunks are
 * skipped; reserved unskippable ones are an error.
 */
export class SnappyFramed extends Transform {
  private pending: Buffer = Buffer.alloc(0);
  private started = false;
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    try {
      while (this.pending.length >= 4) {
        const type = this.pending[0]!;
        const len = this.pending.readUIntLE(1, 3);
        if (this.pending.length < 4 + len) break;
        const body = this.pending.subarray(4, 4 + len);
        this.pending = this.pending.subarray(4 + len);
        this.chunk(type, body);
      }
      cb();
    } catch (err) {
      cb(err as Error);
    }
  }
  override _flush(cb: TransformCallback): void {
    cb(this.pending.length ? new Error('truncated Snappy stream') : null);
  }
  private chunk(type: number, body: Buffer): void {
    if (type === 0xff) {
      if (body.toString('latin1') !== 'sNaPpY') throw new Error('not a Snappy stream');
      this.started = true;
      return;
    }
    if (!this.started) throw new Error('not a Snappy stream');
    if (type === 0x00 || type === 0x01) {
      if (body.length < 4) throw new Error('short Snappy chunk');
      const data = type === 0x00 ? (snappyUncompress(body.subarray(4), { asBuffer: true }) as Buffer) : body.subarray(4);
      if (data.length > 65536 || maskedCrc(data) !== body.readUInt32LE(0)) throw new Error('bad Snappy chunk');
      this.push(data);
      return;
    }
    if (type < 0x80) throw new Error('reserved Snappy chunk');
    // 0x80–0xfe: skippable (0xfe is padding).
  }
}

/** Bytes waiting to be parsed, kept as the chunks that came (copied only to join a piece split across chunks). */
class ByteQueue {
  private parts: Buffer[] = [];
  length = 0;
  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.parts.push(chunk);
    this.length += chunk.length;
  }
  /** The first `n` bytes (n ≤ length), removed from the queue. */
  take(n: number): Buffer {
    if (n === 0) return Buffer.alloc(0);
    if (this.parts[0]!.length < n) this.parts = [Buffer.concat(this.parts, this.length)];
    const head = this.parts[0]!;
    const out = head.subarray(0, n);
    if (head.length === n) this.parts.shift();
    else this.parts[0] = head.subarray(n);
    this.length -= n;
    return out;
  }
  /** The first 4 bytes as a little-endian number, left in the queue (length ≥ 4). */
  peekUInt32LE(): number {
    if (this.parts[0]!.length < 4) this.parts = [Buffer.concat(this.parts, this.length)];
    return this.parts[0]!.readUInt32LE(0);
  }
  /** Drops up to `n` bytes; answers how many were dropped. */
  drop(n: number): number {
    const k = Math.min(n, this.length);
    let left = k;
    while (left > 0) {
      const head = this.parts[0]!;
      if (head.length <= left) {
        left -= head.length;
        this.parts.shift();
      } else {
        this.parts[0] = head.subarray(left);
        left = 0;
      }
    }
    this.length -= k;
    return k;
  }
}

const LZ4_MAGIC = 0x184d2204;
/** Block maximum sizes of the frame descriptor's BD byte (4 → 64 KiB … 7 → 4 MiB). */
const LZ4_BLOCK_MAX = [0, 0, 0, 0, 65536, 262144, 1048576, 4194304];
/** Linked blocks may refer to the last 64 KiB of output. */
const LZ4_WINDOW = 65536;

/**
 * LZ4 frames (LZ4 Frame Format Description 1.6) read block by block: one block (at most the 4 MiB
 * its descriptor names) is held at a time and unpacked by lz4-napi off the main thread into a
 * buffer of the block maximum, so a block that would unpack to more is an error. Linked blocks
 * get the previous 64 KiB as their dictionary. Concatenated and skippable frames are read
 * (BlockCodec writes one frame per block); the legacy format and dictionary IDs are refused.
 * Every checksum the frame carries is verified (xxHash32): the header checksum byte, each block's
 * checksum (over its stored bytes, before unpacking) and the content checksum (over everything
 * the frame unpacks to); a mismatch is a Lz4ChecksumError. A damaged raw block would otherwise
 * pass unseen into the extracted file.
 */
export class Lz4Frames extends Transform {
  private readonly q = new ByteQueue();
  /** The frame descriptor's bytes (FLG, BD, content size) the header checksum covers. */
  private descriptor: Buffer = Buffer.alloc(0);
  /** The content checksum of the current frame, when it has one. */
  private content: XxHash32 | null = null;
  private state: 'magic' | 'skip-length' | 'skip' | 'descriptor' | 'header-rest' | 'block' | 'content-checksum' = 'magic';
  private skip = 0;
  private flags = 0;
  private blockMax = 0;
  private window: Buffer = Buffer.alloc(0);
  private frames = 0;

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.q.push(chunk);
    this.drain().then(
      () => cb(),
      (err: Error) => cb(err),
    );
  }

  override _flush(cb: TransformCallback): void {
    cb(this.state === 'magic' && this.q.length === 0 && this.frames > 0 ? null : new Error('truncated LZ4 stream'));
  }

  private get linked(): boolean {
    return (this.flags & 0x20) === 0;
  }

  /** Parses what the queue holds; returns when the next piece is not all there. */
  private async drain(): Promise<void> {
    for (;;) {
      const q = this.q;
      switch (this.state) {
        case 'magic': {
          if (q.length < 4) return;
          const magic = q.take(4).readUInt32LE(0);
          if (magic === LZ4_MAGIC) this.state = 'descriptor';
          else if (magic >= 0x184d2a50 && magic <= 0x184d2a5f) this.state = 'skip-length';
          else throw new Error('not an LZ4 frame');
          break;
        }
        case 'skip-length':
          if (q.length < 4) return;
          this.skip = q.take(4).readUInt32LE(0);
          this.state = 'skip';
          break;
        case 'skip':
          this.skip -= q.drop(this.skip);
          if (this.skip > 0) return;
          this.frames++;
          this.state = 'magic';
          break;
        case 'descriptor': {
          if (q.length < 2) return;
          const [flg, bd] = q.take(2);
          if (flg! >> 6 !== 1 || flg! & 0x02 || bd! & 0x8f) throw new Error('bad LZ4 frame descriptor');
          if (flg! & 0x01) throw new Error('LZ4 frames with a dictionary ID are not read');
          this.flags = flg!;
          this.blockMax = LZ4_BLOCK_MAX[(bd! >> 4) & 7]!;
          if (!this.blockMax) throw new Error('bad LZ4 block size');
          this.window = Buffer.alloc(0);
          this.descriptor = Buffer.from([flg!, bd!]);
          this.content = flg! & 0x04 ? new XxHash32() : null;
          this.state = 'header-rest';
          break;
        }
        case 'header-rest': {
          // Content size (when flagged) and the header checksum byte.
          const n = (this.flags & 0x08 ? 8 : 0) + 1;
          if (q.length < n) return;
          const rest = q.take(n);
          const described = Buffer.concat([this.descriptor, rest.subarray(0, n - 1)]);
          if (((xxh32(described) >>> 8) & 0xff) !== rest[n - 1]) throw new Lz4ChecksumError('its frame header checksum does not match');
          this.state = 'block';
          break;
        }
        case 'block': {
          if (q.length < 4) return;
          const word = q.peekUInt32LE();
          if (word === 0) {
            q.take(4);
            this.state = 'content-checksum';
            break;
          }
          const size = word & 0x7fffffff;
          if (size > this.blockMax) throw new Error('an LZ4 block larger than its frame allows');
          const trailer = this.flags & 0x10 ? 4 : 0;
          if (q.length < 4 + size + trailer) return;
          q.take(4);
          const data = q.take(size);
          if (trailer && q.take(4).readUInt32LE(0) !== xxh32(data)) throw new Lz4ChecksumError('a block checksum does not match');
          const out = word >>> 31 ? Buffer.from(data) : await this.unpack(data);
          this.content?.update(out);
          if (this.linked) this.window = Buffer.concat([this.window, out]).subarray(-LZ4_WINDOW);
          this.push(out);
          break;
        }
        case 'content-checksum': {
          const n = this.flags & 0x04 ? 4 : 0;
          if (q.length < n) return;
          if (this.content && q.take(4).readUInt32LE(0) !== this.content.digest()) throw new Lz4ChecksumError('its content checksum does not match');
          this.frames++;
          this.state = 'magic';
          break;
        }
      }
    }
  }

  private async unpack(block: Buffer): Promise<Buffer> {
    // lz4-napi reads the output's size from the first 4 bytes: the frame's block maximum bounds it.
    const sized = Buffer.allocUnsafe(4 + block.length);
    sized.writeUInt32LE(this.blockMax, 0);
    block.copy(sized, 4);
    return lz4Block(sized, this.linked && this.window.length > 0 ? this.window : undefined);
  }
}

/** An LZ4 checksum that does not match: the archive is damaged (the job's error says so). */
export class Lz4ChecksumError extends Error {
  override readonly name = 'Lz4ChecksumError';
  constructor(what: string) {
    super(`the archive is damaged: ${what} (LZ4)`);
  }
}

/** Memory liblzma may use for one xz stream (xz -9 needs 65 MiB to unpack). */
export const XZ_MEMLIMIT = 256 * 2 ** 20;

/** Codecs that can be read; the others are refused with a clear error. */
export const READABLE_CODECS: readonly Codec[] = ['none', 'gzip', 'brotli', 'xz', 'bzip2', 'zstd', 'snappy', 'lz4'];

/** A decompressor stream for `codec`; null for an uncompressed tar. */
export function createDecompressor(codec: Codec): Transform | null {
  switch (codec) {
    case 'none':
      return null;
    case 'gzip':
      return createGunzip();
    case 'brotli':
      return createBrotliDecompress();
    case 'xz':
      // liblzma sets no limit of its own: a header may name a 1.5 GiB dictionary, filled as bytes come out.
      return createXzDecompressor({ memlimit: XZ_MEMLIMIT });
    case 'bzip2':
      return unbzip2() as Transform;
    case 'zstd':
      return new Zstd();
    case 'snappy':
      return new SnappyFramed();
    case 'lz4':
      return new Lz4Frames();
  }
}
