/**
 * The Snappy framing format (framing_format.txt): a stream identifier chunk, then one chunk per
 * at most 64 KiB of input, each carrying the masked CRC-32C of its uncompressed bytes; chunks that
 * do not shrink are sent uncompressed.
 */
import { crc32c } from '@node-rs/crc32';

export const STREAM_IDENTIFIER = Buffer.from([0xff, 0x06, 0x00, 0x00, 0x73, 0x4e, 0x61, 0x50, 0x70, 0x59]);
export const MAX_CHUNK = 65536;

export function maskedCrc(data: Buffer): number {
  const c = crc32c(data) >>> 0;
  return ((((c >>> 15) | (c << 17)) >>> 0) + 0xa282ead8) >>> 0;
}

/** One frame chunk for at most 64 KiB of `raw`, given its raw-Snappy compression. */
export function frameChunk(raw: Buffer, compressed: Buffer): Buffer {
  const useCompressed = compressed.length < raw.length;
  const body = useCompressed ? compressed : raw;
  const head = Buffer.alloc(8);
  const len = body.length + 4;
  head[0] = useCompressed ? 0x00 : 0x01;
  head.writeUIntLE(len, 1, 3);
  head.writeUInt32LE(maskedCrc(raw), 4);
  return Buffer.concat([head, body]);
}
