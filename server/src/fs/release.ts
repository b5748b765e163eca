/**
 * Memory after big answers (bench/README.md "Listing memory"). A listing of 300,000 entries leaves
 * tens of MB of garbage in V8's old space (names, orders, stats) and the Buffers of its JSON
 * pieces, which V8 frees only at its next full collection: on an idle server that did not come
 * within 30 s (after 25 such listings the heap stayed at ~217 MB used against ~42 MB idle). The
 * listing workers' heaps hold what the folder left there too. Big work calls `touchBigWork()` as
 * it goes; once none has for `RELEASE_QUIET_MS`, the listing workers are stopped (once idle; the
 * next listing starts them again, ~30 ms) and one full collection runs, through the inspector
 * protocol's `HeapProfiler.collectGarbage` in this process (no port is opened, no flag is needed).
 * It pauses the event loop for one major GC of the live heap (tens of ms), once per burst of big
 * work.
 */
import { Session } from 'node:inspector';
import { retireListingWorkers } from './worker-pool.js';

/** Entries from which a listing counts as big work. */
export const BIG_WORK_ENTRIES = 20_000;
/**
 * Quiet time after the last big work before the release: listings of a big folder a few seconds
 * apart keep their workers (restarting them costs ~30 ms, more on a busy machine).
 */
export const RELEASE_QUIET_MS = 5_000;

let quietMs = RELEASE_QUIET_MS;
let lastTouch = 0;
let timer: NodeJS.Timeout | undefined;
let collections = 0;
let running = false;

function arm(ms: number): void {
  timer = setTimeout(() => {
    timer = undefined;
    const left = lastTouch + quietMs - Date.now();
    if (left > 0) arm(left);
    else collect();
  }, ms);
  timer.unref();
}

function collect(): void {
  retireListingWorkers();
  if (running) return;
  running = true;
  const session = new Session();
  try {
    session.connect();
  } catch {
    // A Node built without the inspector: V8 collects on its own, later.
    running = false;
    return;
  }
  session.post('HeapProfiler.collectGarbage', () => {
    collections++;
    running = false;
    // Disconnecting inside the callback hangs Node 20's inspector.
    setImmediate(() => session.disconnect());
  });
}

/** Big work is running: call it at its start, as it goes and at its end. */
export function touchBigWork(): void {
  lastTouch = Date.now();
  if (!timer) arm(quietMs);
}

/** Full collections run so far (tests). */
export function releaseCollections(): number {
  return collections;
}

/** Quiet time before the collection (tests shorten it). */
export function setReleaseQuietMs(ms: number): void {
  quietMs = ms;
}
