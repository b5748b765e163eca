import { describe, expect, it } from 'vitest';
import { createBatchWriter, EARLY_SYNC, WRITE_BATCH, WriteFailure, type BatchSink } from './batch-writer.js';

/** A sink that records its calls (each write takes a millisecond). */
function memorySink(opts: { maxPerWrite?: number; failAt?: number; failSync?: boolean } = {}) {
  const data = new Map<number, number | undefined>();
  const writes: { at: number; bytes: number }[] = [];
  let syncs = 0;
  let inflight = 0;
  let maxInflight = 0;
  const sink: BatchSink = {
    async write(bufs, at) {
      inflight++;
      maxInflight = Math.max(maxInflight, inflight);
      await new Promise((r) => setTimeout(r, 1));
      inflight--;
      if (opts.failAt !== undefined && at >= opts.failAt) throw Object.assign(new Error('ENOSPC'), { code: 'ENOSPC', syscall: 'write' });
      // Remembers the first byte of each piece at its position (enough to check the order).
      let n = 0;
      for (const b of bufs) {
        const take = Math.min(b.length, (opts.maxPerWrite ?? Infinity) - n);
        if (take <= 0) break;
        data.set(at + n, b[0]);
        n += take;
      }
      writes.push({ at, bytes: n });
      return n;
    },
    async sync() {
      syncs++;
      if (opts.failSync) throw Object.assign(new Error('EIO'), { code: 'EIO', syscall: 'fsync' });
    },
  };
  return { sink, data, writes, syncs: () => syncs, maxInflight: () => maxInflight };
}

async function feed(w: ReturnType<typeof createBatchWriter>, pieces: Uint8Array[]): Promise<void> {
  for (const p of pieces) {
    const wait = w.push(p);
    if (wait) await wait;
  }
}

describe('createBatchWriter', () => {
  it('gathers socket-sized pieces into large writes at the right positions, one write in flight', async () => {
    const m = memorySink();
    const w = createBatchWriter(m.sink, 100);
    const pieces = Array.from({ length: 40 }, (_, i) => new Uint8Array(64 * 1024).fill(i));
    await feed(w, pieces);
    await w.end();
    expect(w.written).toBe(40 * 64 * 1024);
    expect(m.writes.length).toBeLessThanOrEqual(Math.ceil((40 * 64 * 1024) / WRITE_BATCH) + 1);
    expect(m.writes[0]).toEqual({ at: 100, bytes: WRITE_BATCH });
    expect(m.maxInflight()).toBe(1);
    for (let i = 0; i < 40; i++) expect(m.data.get(100 + i * 64 * 1024)).toBe(i);
  });

  it('writes the rest again after a short write', async () => {
    const m = memorySink({ maxPerWrite: 1000 });
    const w = createBatchWriter(m.sink, 0);
    await feed(w, [new Uint8Array(2500).fill(7)]);
    await w.end();
    expect(m.writes.map((x) => x.at)).toEqual([0, 1000, 2000]);
    expect(w.written).toBe(2500);
  });

  it('starts background syncs while data arrives and syncs once more at the end', async () => {
    const m = memorySink();
    const w = createBatchWriter(m.sink, 0);
    await feed(w, Array.from({ length: (2 * EARLY_SYNC) / WRITE_BATCH + 1 }, () => new Uint8Array(WRITE_BATCH)));
    await w.end();
    const early = m.syncs();
    expect(early).toBeGreaterThanOrEqual(1);
    await w.sync();
    expect(m.syncs()).toBe(early + 1);
    // Less than EARLY_SYNC: no sync until asked.
    const small = memorySink();
    const w2 = createBatchWriter(small.sink, 0);
    await feed(w2, Array.from({ length: EARLY_SYNC / WRITE_BATCH - 1 }, () => new Uint8Array(WRITE_BATCH)));
    await w2.end();
    expect(small.syncs()).toBe(0);
  });

  it('reports a write error as a WriteFailure, at the latest from end()', async () => {
    const m = memorySink({ failAt: WRITE_BATCH });
    const w = createBatchWriter(m.sink, 0);
    const err = await feed(w, Array.from({ length: 8 }, () => new Uint8Array(WRITE_BATCH / 2)))
      .then(() => w.end())
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WriteFailure);
    expect((err as WriteFailure).cause).toMatchObject({ code: 'ENOSPC' });
  });

  it('reports a failed sync as a WriteFailure', async () => {
    const w = createBatchWriter(memorySink({ failSync: true }).sink, 0);
    await feed(w, [new Uint8Array(10)]);
    await w.end();
    await expect(w.sync()).rejects.toBeInstanceOf(WriteFailure);
  });

  it('drops what is gathered without writing it', async () => {
    const m = memorySink();
    const w = createBatchWriter(m.sink, 0);
    await feed(w, [new Uint8Array(10)]);
    await w.drop();
    await w.end();
    expect(m.writes).toEqual([]);
    expect(w.written).toBe(0);
  });
});
