/**
 * The file-system watcher behind the file index (features/index): @parcel/watcher (inotify on
 * Linux, its native binary shipped in the npm package) on the server root, reporting the real
 * paths it saw change. Its errors (a watch queue that overflowed, a watch limit reached) go to
 * `onError`: the index then reconciles with the disk, which finds what the watcher lost.
 *
 * Covers: @parcel/watcher starts watching a folder created under a watched one when it reads
 * that folder's creation, but not the folders already made inside it by then (`mkdir -p a/b/c`,
 * `cp -r`, `mv tree/ root/`, an extraction: its issue #97, open upstream) — nothing below `a`
 * would ever be reported. The index therefore covers each folder it adds while the watcher runs
 * before it reads that folder: a plain inotify watch of its own (Node's `fs.watch`), so whatever
 * changes after the read is reported and whatever came before is in the read. A cover is dropped
 * when @parcel/watcher reports the folder's creation (it then watches the folder itself) or when
 * the folder leaves the index. Past `MAX_COVERS`, or when inotify has no watch left, covering
 * stops and `onError` says so once: the reconciliations find what covers would have seen.
 */
import { watch as fsWatch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import watcher from '@parcel/watcher';

export const MAX_COVERS = 20_000;

export interface Watch {
  close(): Promise<void>;
  /** Watches the folder `dir` itself too, from now on (call before reading it). */
  cover(dir: string): void;
  /** Drops the covers of `dir` and of every folder below it. */
  uncover(dir: string): void;
  /** How many folders are covered now. */
  readonly covers: number;
}

export async function watchTree(
  root: string,
  onPaths: (paths: string[]) => void,
  onError: (err: Error) => void,
  ignore: string[] = [],
): Promise<Watch> {
  const covers = new Map<string, FSWatcher>();
  let full = false;
  let closed = false;
  const drop = (dir: string) => {
    covers.get(dir)?.close();
    covers.delete(dir);
  };
  const sub = await watcher.subscribe(
    root,
    (err, events) => {
      if (err) onError(err);
      if (events.length === 0) return;
      for (const e of events) if (e.type === 'create' && covers.has(e.path)) drop(e.path);
      onPaths(events.map((e) => e.path));
    },
    { ignore },
  );
  return {
    async close() {
      closed = true;
      for (const w of covers.values()) w.close();
      covers.clear();
      await sub.unsubscribe();
    },
    cover(dir) {
      if (closed || covers.has(dir)) return;
      if (full) return;
      const stop = (err: Error) => {
        full = true;
        onError(err);
      };
      if (covers.size >= MAX_COVERS) return stop(new Error(`more than ${MAX_COVERS} new folders to watch`));
      let w: FSWatcher;
      try {
        w = fsWatch(dir, { persistent: false }, (_type, name) => onPaths([name ? path.join(dir, name) : dir]));
      } catch (err) {
        // Gone already (its removal is reported), or no inotify watch left: the reconciliation.
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') stop(err as Error);
        return;
      }
      w.on('error', () => drop(dir));
      covers.set(dir, w);
    },
    uncover(dir) {
      if (covers.size === 0) return;
      const below = dir + '/';
      for (const d of [...covers.keys()]) if (d === dir || d.startsWith(below)) drop(d);
    },
    get covers() {
      return covers.size;
    },
  };
}
