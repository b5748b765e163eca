import { Transform, type TransformCallback } from 'node:stream';

/**
 * Buffers input into blocks (growing from 64 KiB to `maxBlock`, so the first block leaves soon)
 * and compresses each block asynchronously into one self-contained frame, in order.
 */
export class BlockCodec extends Transform {
  private parts: Buffer[] = [];
  private bytes = 0;
  private block = 65536;
  private started = false;
  constructor(
    private readonly compressBlock: (block: Buffer) => Promise<Buffer>,
    private readonly maxBlock = 1024 * 1024,
    private readonly header?: Buffer,
  ) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.parts.push(chunk);
    this.bytes += chunk.length;
    if (this.bytes < this.block) return cb();
    const data = Buffer.concat(this.parts, this.bytes);
    this.parts = [];
    this.bytes = 0;
    this.block = Math.min(this.block * 2, this.maxBlock);
    this.emitBlock(data, cb);
  }
  override _flush(cb: TransformCallback): void {
    if (this.bytes === 0 && this.started) return cb();
    const data = Buffer.concat(this.parts, this.bytes);
    this.parts = [];
    this.bytes = 0;
    this.emitBlock(data, cb);
  }
  private emitBlock(data: Buffer, cb: TransformCallback): void {
    if (!this.started && this.header) this.push(this.header);
    this.started = true;
    this.compressBlock(data).then(
      (out) => cb(null, out),
      (err: Error) => cb(err),
    );
  }
}
