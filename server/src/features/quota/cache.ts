/**
 * A scope's measured size, kept for a while (quotas ask on every write). Coffer's own writes drop
 * the entries of every folder holding what changed (`invalidate`); a change made behind Coffer's
 * back is seen when the entry expires (`ttlMs`). At most `maxEntries` scopes are kept (the oldest
 * measured goes first), and callers asking for the same scope at once share one measurement.
 */
import path from 'node:path';
import type { SizeSource } from './size-source.js';

export interface SizeCacheOptions {
  measure: SizeSource;
  /** How long a measurement is trusted (ms). */
  ttlMs: number;
  maxEntries: number;
  now?: () => number;
}

function holds(dir: string, p: string): boolean {
  return p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);
}

export function createSizeCache(opts: SizeCacheOptions) {
  const now = opts.now ?? Date.now;
  const known = new Map<string, { bytes: number; at: number }>();
  const running = new Map<string, Promise<number>>();
  /** Bumped by every invalidation: a measurement that began before one is not kept. */
  let epoch = 0;

  function remember(root: string, bytes: number, at: number): void {
    known.delete(root);
    known.set(root, { bytes, at });
    while (known.size > opts.maxEntries) known.delete(known.keys().next().value!);
  }

  return {
    /** The bytes below the real folder `root`, measured at most `ttlMs` ago. */
    async bytes(root: string): Promise<number> {
      const hit = known.get(root);
      if (hit && now() - hit.at < opts.ttlMs) return hit.bytes;
      const inFlight = running.get(root);
      if (inFlight) return inFlight;
      const startedAt = now();
      const startEpoch = epoch;
      const p = opts
        .measure(root)
        .then((bytes) => {
          if (epoch === startEpoch) remember(root, bytes, startedAt);
          return bytes;
        })
        .finally(() => {
          if (running.get(root) === p) running.delete(root);
        });
      running.set(root, p);
      return p;
    },
    /** Something at the real path `changed` was written, moved or removed: every scope holding it is measured again. */
    invalidate(changed: string): void {
      epoch++;
      for (const root of [...known.keys()]) if (holds(root, changed)) known.delete(root);
      for (const root of [...running.keys()]) if (holds(root, changed)) running.delete(root);
    },
    get size(): number {
      return known.size;
    },
  };
}

export type SizeCache = ReturnType<typeof createSizeCache>;
