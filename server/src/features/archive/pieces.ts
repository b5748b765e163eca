/**
 * The output of the archive writers (tar.ts, zip.ts): headers are written in place and small
 * bodies copied into one buffer, given out in pieces of at least OUT_CHUNK bytes — one write down
 * the pipeline per 64 KiB instead of one per header, body and pad (most of the event loop's time
 * left in an archive download of 10,000 small files was those writes, bench/README.md "Archive").
 */

/** Pieces are at least this large (except the last, and after FLUSH_MS). */
export const OUT_CHUNK = 64 * 1024;
/** Bytes pending for this long go out at the next `ready()` even if the piece is short. */
const FLUSH_MS = 20;

export class Pieces {
  private bytes = Buffer.alloc(0);
  private len = 0;
  private last = Date.now();

  /** The buffer that `reserve` offsets point into (valid until the next reserve or take). */
  get buf(): Buffer {
    return this.bytes;
  }

  /** Room for `n` more bytes, zero-filled; returns its offset in `buf`. */
  reserve(n: number): number {
    if (this.len + n > this.bytes.length) {
      const grown = Buffer.alloc(Math.max(OUT_CHUNK * 2, (this.len + n) * 2));
      this.bytes.copy(grown, 0, 0, this.len);
      this.bytes = grown;
    } else {
      this.bytes.fill(0, this.len, this.len + n);
    }
    const at = this.len;
    this.len += n;
    return at;
  }

  /** Copies `data` in, followed by zeros up to a multiple of `align` bytes. */
  put(data: Uint8Array, align = 1): void {
    const at = this.reserve(Math.ceil(data.length / align) * align);
    this.bytes.set(data, at);
  }

  /** A piece to give out now (OUT_CHUNK bytes, or bytes waiting for FLUSH_MS), or null. */
  ready(): Buffer | null {
    if (this.len >= OUT_CHUNK || (this.len > 0 && Date.now() - this.last >= FLUSH_MS)) return this.take();
    return null;
  }

  /** Everything pending, or null (the buffer is not reused: the piece belongs to the consumer). */
  take(): Buffer | null {
    this.last = Date.now();
    if (this.len === 0) return null;
    const out = this.bytes.subarray(0, this.len);
    this.bytes = Buffer.alloc(0);
    this.len = 0;
    return out;
  }
}
