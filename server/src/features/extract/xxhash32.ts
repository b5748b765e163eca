/**
 * xxHash32 (the checksum of LZ4 frames: header, block and content checksums, LZ4 Frame Format
 * Description 1.6), written from the algorithm's description: four 32-bit lanes over 16-byte
 * stripes, then the tail by 4 bytes and by byte, then the avalanche. Streaming, so a frame's
 * content checksum is taken as its blocks come out without holding the content.
 */
const P1 = 2654435761;
const P2 = 2246822519;
const P3 = 3266489917;
const P4 = 668265263;
const P5 = 374761393;

const rotl = (x: number, r: number) => (x << r) | (x >>> (32 - r));
const round = (acc: number, lane: number) => Math.imul(rotl((acc + Math.imul(lane, P2)) | 0, 13), P1);

export class XxHash32 {
  private v1: number;
  private v2: number;
  private v3: number;
  private v4: number;
  /** Bytes of an unfinished stripe. */
  private readonly rest = Buffer.alloc(16);
  private restLength = 0;
  private length = 0;

  constructor(private readonly seed = 0) {
    this.v1 = (seed + P1 + P2) | 0;
    this.v2 = (seed + P2) | 0;
    this.v3 = seed | 0;
    this.v4 = (seed - P1) | 0;
  }

  update(data: Uint8Array): this {
    const buf = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    this.length += buf.length;
    let i = 0;
    if (this.restLength > 0) {
      const n = Math.min(16 - this.restLength, buf.length);
      buf.copy(this.rest, this.restLength, 0, n);
      this.restLength += n;
      i = n;
      if (this.restLength < 16) return this;
      this.stripe(this.rest, 0);
      this.restLength = 0;
    }
    for (; i + 16 <= buf.length; i += 16) this.stripe(buf, i);
    if (i < buf.length) {
      buf.copy(this.rest, 0, i);
      this.restLength = buf.length - i;
    }
    return this;
  }

  private stripe(b: Buffer, at: number): void {
    this.v1 = round(this.v1, b.readUInt32LE(at));
    this.v2 = round(this.v2, b.readUInt32LE(at + 4));
    this.v3 = round(this.v3, b.readUInt32LE(at + 8));
    this.v4 = round(this.v4, b.readUInt32LE(at + 12));
  }

  /** The hash of everything given so far, as an unsigned 32-bit number. */
  digest(): number {
    let h =
      this.length >= 16
        ? (rotl(this.v1, 1) + rotl(this.v2, 7) + rotl(this.v3, 12) + rotl(this.v4, 18)) | 0
        : (this.seed + P5) | 0;
    h = (h + this.length) | 0;
    const b = this.rest;
    let i = 0;
    for (; i + 4 <= this.restLength; i += 4) h = Math.imul(rotl((h + Math.imul(b.readUInt32LE(i), P3)) | 0, 17), P4);
    for (; i < this.restLength; i++) h = Math.imul(rotl((h + Math.imul(b[i]!, P5)) | 0, 11), P1);
    h ^= h >>> 15;
    h = Math.imul(h, P2);
    h ^= h >>> 13;
    h = Math.imul(h, P3);
    h ^= h >>> 16;
    return h >>> 0;
  }
}

/** xxHash32 of `data` in one call. */
export const xxh32 = (data: Uint8Array, seed = 0): number => new XxHash32(seed).update(data).digest();
