/**
 * The compressors behind the tar formats. gzip is compressed on both cores, in blocks that become
 * gzip members (gzip-parallel.ts); brotli is a node:zlib stream, xz is liblzma
 * (lzma-native) as a stream; lz4, zstd and Snappy compress chunk by chunk off the main thread
 * (napi-rs libraries) into concatenated frames, which their standard tools read as one stream;
 * bzip2 is our own encoder in a worker (bzip2.ts). Input reaches every codec in chunks of at least
 * 64 KiB (Coalesce) so that the per-call cost stays small.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { constants, createBrotliCompress } from 'node:zlib';
import { compress as zstdCompress } from '@mongodb-js/zstd';
import { createCompressor as createXz } from 'lzma-native';
import { compressFrame as lz4Frame } from 'lz4-napi';
import { compress as snappyCompress } from 'snappy';
import type { Codec } from './formats.js';
import { createBzip2Stream } from './bzip2-stream.js';
import { frameChunk, MAX_CHUNK, STREAM_IDENTIFIER } from './snappy-frame.js';
import { BlockCodec } from './codecs-block.js';
import { ParallelGzip } from './gzip-parallel.js';

export { BlockCodec };

/**
 * Joins small writes into chunks of `size` bytes; a partial chunk is pushed after `delayMs`
 * without new input, so that the first bytes leave at once.
 */
export class Coalesce extends Transform {
  private parts: Buffer[] = [];
  private bytes = 0;
  private timer: NodeJS.Timeout | undefined;
  constructor(
    private readonly size = 65536,
    private readonly delayMs = 20,
  ) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.parts.push(chunk);
    this.bytes += chunk.length;
    if (this.bytes >= this.size) this.release();
    else if (!this.timer) this.timer = setTimeout(() => this.release(), this.delayMs);
    cb();
  }
  override _flush(cb: TransformCallback): void {
    this.release();
    cb();
  }
  override _destroy(err: Error | null, cb: (error?: Error | null) => void): void {
    clearTimeout(this.timer);
    cb(err);
  }
  private release(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.bytes === 0) return;
    const out = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.bytes);
    this.parts = [];
    this.bytes = 0;
    this.push(out);
  }
}

async function snappyFrames(block: Buffer): Promise<Buffer> {
  const pieces: Promise<Buffer>[] = [];
  for (let off = 0; off < block.length; off += MAX_CHUNK) {
    const raw = block.subarray(off, off + MAX_CHUNK);
    pieces.push(snappyCompress(raw).then((c) => frameChunk(raw, c)));
  }
  return Buffer.concat(await Promise.all(pieces));
}

/** A fresh compressor stream for `codec`, or null for an uncompressed tar. */
export function createCodec(codec: Codec): Transform | null {
  switch (codec) {
    case 'none':
      return null;
    case 'gzip':
      return new ParallelGzip(6);
    case 'brotli':
      // Quality 5 keeps brotli streaming at disk speed; 11 (the default) is for static assets.
      return createBrotliCompress({
        params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_LGWIN]: 22 },
      });
    case 'xz':
      // Preset 3 (4 MiB dictionary, ~32 MiB of encoder memory) bounds memory per download.
      return createXz({ preset: 3, threads: 1 });
    case 'lz4':
      return new BlockCodec((b) => lz4Frame(b));
    case 'zstd':
      return new BlockCodec((b) => zstdCompress(b, 3));
    case 'snappy':
      return new BlockCodec(snappyFrames, 1024 * 1024, STREAM_IDENTIFIER);
    case 'bzip2':
      return createBzip2Stream();
  }
}
