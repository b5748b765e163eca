/**
 * The file-system watcher behind the file index (features/index): @parcel/watcher (inotify on
 * Linux, its native binary shipped in the npm package) on the server root, reporting the real
 * paths it saw change. Its errors (a watch queue that overflowed, a watch limit reached) go to
 * `onError`: the index then reconciles with the disk, which finds what the watcher lost.
 */
import watcher from '@parcel/watcher';

export interface Watch {
  close(): Promise<void>;
}

export async function watchTree(root: string, onPaths: (paths: string[]) => void, onError: (err: Error) => void, ignore: string[] = []): Promise<Watch> {
  const sub = await watcher.subscribe(
    root,
    (err, events) => {
      if (err) onError(err);
      if (events.length) onPaths(events.map((e) => e.path));
    },
    { ignore },
  );
  return { close: () => sub.unsubscribe() };
}
