/**
 * bzip2 as a stream: input blocks are compressed by our encoder (bzip2.ts) in one shared worker
 * thread, so the event loop never runs the Burrows–Wheeler sort. Each block becomes a complete
 * .bz2 stream; the concatenation is one valid file.
 */
import { Worker } from 'node:worker_threads';
import { bzip2Encoder } from './bzip2.js';
import { BlockCodec } from './codecs-block.js';

const WORKER_SOURCE = `
const __name = (f) => f;
const { parentPort } = require('node:worker_threads');
const { compress } = (${bzip2Encoder.toString()})();
parentPort.on('message', ({ id, data }) => {
  try {
    const out = compress(new Uint8Array(data));
    parentPort.postMessage({ id, out }, [out.buffer]);
  } catch (err) {
    parentPort.postMessage({ id, error: String(err && err.message || err) });
  }
});
`;

type Pending = { resolve: (b: Buffer) => void; reject: (e: Error) => void };

let worker: Worker | undefined;
let nextId = 0;
const pending = new Map<number, Pending>();

function getWorker(): Worker {
  if (worker) return worker;
  const w = new Worker(WORKER_SOURCE, { eval: true });
  w.unref();
  w.on('message', (m: { id: number; out?: Uint8Array; error?: string }) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.error !== undefined || !m.out) p.reject(new Error(`bzip2: ${m.error}`));
    else p.resolve(Buffer.from(m.out.buffer, m.out.byteOffset, m.out.byteLength));
  });
  const fail = (err: Error) => {
    if (worker === w) worker = undefined;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  w.on('error', fail);
  w.on('exit', (code) => fail(new Error(`bzip2 worker exited (${code})`)));
  worker = w;
  return w;
}

/** Compresses one block into a complete .bz2 stream in the worker. */
export function bzip2Block(block: Buffer): Promise<Buffer> {
  const w = getWorker();
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    // A copy: the block's memory may be a slice of a pooled buffer.
    const data = new Uint8Array(block.length);
    data.set(block);
    w.postMessage({ id, data: data.buffer }, [data.buffer]);
  });
}

export function createBzip2Stream(): BlockCodec {
  // 900,000 bytes: one bzip2 block of level 9 for most inputs.
  return new BlockCodec(bzip2Block, 900_000);
}
