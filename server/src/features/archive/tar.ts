/**
 * A streaming tar writer (ustar, with PAX headers for long or odd names) over tar-stream. Entries
 * are queued with bounded look-ahead: at most MAX_QUEUED small entries wait in the packer, large
 * files are piped with backpressure.
 */
import tar from 'tar-stream';
import type { ArchiveEntry } from './entry.js';

const MAX_QUEUED = 64;

export function tarStream(entries: AsyncIterable<ArchiveEntry>): AsyncIterable<Buffer> {
  const pack = tar.pack();
  // Failures reach the consumer through the iterator; an 'error' event without a listener would throw.
  pack.on('error', () => undefined);
  const feed = async () => {
    const queued = new Set<Promise<void>>();
    const track = (p: Promise<void>) => {
      queued.add(p);
      void p.finally(() => queued.delete(p)).catch(() => undefined);
    };
    for await (const e of entries) {
      const header = {
        name: e.isDir ? e.name + '/' : e.name,
        mode: e.mode,
        mtime: e.mtime,
        size: e.isDir ? 0 : e.size,
        type: e.isDir ? ('directory' as const) : ('file' as const),
        uid: 0,
        gid: 0,
      };
      if (e.isDir || e.data) {
        track(
          new Promise<void>((resolve, reject) => {
            const done = (err?: Error | null) => (err ? reject(err) : resolve());
            const sink = e.isDir ? pack.entry(header, done) : pack.entry(header, e.data!, done);
            sink.on('error', () => undefined); // reported through `done`
          }),
        );
        if (queued.size >= MAX_QUEUED) await Promise.race(queued);
        continue;
      }
      await Promise.all(queued);
      await new Promise<void>((resolve, reject) => {
        const sink = pack.entry(header, (err) => (err ? reject(err) : resolve()));
        sink.on('error', () => undefined); // reported through the callback
        void (async () => {
          try {
            for await (const chunk of e.stream!) {
              if (!sink.write(chunk)) await new Promise<void>((r) => sink.once('drain', () => r()));
            }
            sink.end(undefined as never);
          } catch (err) {
            sink.destroy(err as Error);
            reject(err as Error);
          }
        })();
      });
    }
    await Promise.all(queued);
    pack.finalize();
  };
  feed().catch((err: Error) => pack.destroy(err));
  return pack as unknown as AsyncIterable<Buffer>;
}
