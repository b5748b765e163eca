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
 * changes after the read is reported and whatever came before is in the read. A folder whose
 * creation @parcel/watcher reported before the index read it (a folder made behind Coffer's back:
 * the report is what makes the index read it) is not covered: the library watches it itself. A
 * cover is dropped when @parcel/watcher reports the folder's creation after it or when the folder
 * leaves the index. At `MAX_COVERS`, no folder is covered until covers are dropped, and `onError`
 * says so the first time; when inotify refuses a watch (none left), covering stops and `onError`
 * says so once. The reconciliations find what covers would have seen.
 */
import { watch as fsWatch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import watcher from '@parcel/watcher';

export const MAX_COVERS = 20_000;
/**
 * How long a creation the library reported spares the folder a cover (ms): the index reads it
 * soon after; an older report may be stale (the folder gone and made again unseen).
 */
const MADE_MS = 60_000;

export interface Watch {
  close(): Promise<void>;
  /** Watches the folder `dir` itself too, from now on (call before reading it). */
  cover(dir: string): void;
  /** `cover` again after another folder took the name `dir` (the old cover watches the old one). */
  renew(dir: string): void;
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
  maxCovers = MAX_COVERS,
): Promise<Watch> {
  const covers = new Map<string, FSWatcher>();
  /** inotify refused a watch: covering stopped. */
  let full = false;
  /** The cap was reached once (said then). */
  let capped = false;
  /** Paths the library reported made (so watched, for a folder), oldest first: path → when. */
  const made = new Map<string, number>();
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
      const now = Date.now();
      for (const e of events) {
        if (e.type === 'delete') made.delete(e.path);
        else if (e.type === 'create') {
          if (covers.has(e.path)) drop(e.path);
          made.delete(e.path);
          made.set(e.path, now);
        }
      }
      for (const [p, at] of made) {
        if (now - at < MADE_MS && made.size <= MAX_COVERS) break;
        made.delete(p);
      }
      onPaths(events.map((e) => e.path));
    },
    { ignore },
  );
  const api: Watch = {
    async close() {
      closed = true;
      for (const w of covers.values()) w.close();
      covers.clear();
      made.clear();
      await sub.unsubscribe();
    },
    cover(dir) {
      if (closed || covers.has(dir)) return;
      const reported = made.get(dir);
      if (reported !== undefined) {
        made.delete(dir);
        if (Date.now() - reported < MADE_MS) return;
      }
      if (full) return;
      const stop = (err: Error) => {
        full = true;
        onError(err);
      };
      if (covers.size >= maxCovers) {
        if (!capped) onError(new Error(`more than ${maxCovers} new folders to watch`));
        capped = true;
        return;
      }
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
    renew(dir) {
      drop(dir);
      api.cover(dir);
    },
    uncover(dir) {
      const below = dir + '/';
      // A report of a folder below that left is stale (one made there again may be unseen).
      for (const p of [...made.keys()]) if (p === dir || p.startsWith(below)) made.delete(p);
      if (covers.size === 0) return;
      for (const d of [...covers.keys()]) if (d === dir || d.startsWith(below)) drop(d);
    },
    get covers() {
      return covers.size;
    },
  };
  return api;
}
