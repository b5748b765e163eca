/**
 * State that several Coffer processes must share to act as one (docs/deployment.md, several
 * instances): guessing throttles and general rate limits, per-upload locks, and cache
 * invalidation. One interface, three implementations:
 * - `createMemoryShared` (this file): one process, the default and the fallback;
 * - Redis (`redis.ts`), with `--redis-url`: several instances on several machines;
 * - an IPC store for `--workers N` on one box without Redis.
 * Everything here is an optimisation or a limit, never the only guard of correctness: the
 * database still decides who writes an upload, and caches are only caches.
 */
import { createMemoryThrottleStore, type ThrottleStore } from '../../auth/throttle.js';
import { createMemoryLocks, type UploadLocks } from '../tus/lock.js';

/** A fixed-window counter (the general rate limits of `--rate-limit`, S83). */
export interface WindowCounter {
  /** Counts one event for `key` in the current window; answers the window's count with it and the ms until it ends. */
  incr(key: string): Promise<{ count: number; resetMs: number }>;
}

/** What changed: every instance drops what it derived from it. `id` narrows it (a user id). */
export type InvalidationTopic = 'settings' | 'users' | 'rules';

export interface Invalidation {
  /** Tells every instance (this one too, at once) that `topic` changed. Never throws. */
  publish(topic: InvalidationTopic, id?: string): void;
  /** Calls `fn` on every publish of `topic`, from any instance; returns the unsubscribe function. */
  subscribe(topic: InvalidationTopic, fn: (id: string | undefined) => void): () => void;
}

export interface SharedHealth {
  /** 'memory' (this process only), 'redis', or another store's name. */
  store: string;
  /** Set when a configured shared store cannot be reached: limits are counted per instance meanwhile. */
  degraded?: string;
}

export interface SharedLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface SharedState {
  /**
   * The sliding-window store of one throttle policy. `name` keeps policies apart (it is also the
   * policies' key prefix); `maxPerKey` must be ≥ every limit the policy checks.
   */
  throttleStore(name: string, windowMs: number, maxPerKey?: number): ThrottleStore;
  /** A fixed-window counter; `name` keeps counters apart. */
  windowCounter(name: string, windowMs: number): WindowCounter;
  /** Per-upload locks (features/tus/lock.ts). */
  readonly uploadLocks: UploadLocks;
  readonly invalidation: Invalidation;
  /** For /ready's detail and the log. */
  health(): SharedHealth;
  /** Where connection changes are logged (the app's logger, once it exists). */
  attachLog?(log: SharedLog): void;
  close(): Promise<void>;
}

export function createMemoryWindowCounter(windowMs: number, now: () => number = Date.now, maxKeys = 100_000): WindowCounter {
  const counts = new Map<string, { start: number; n: number }>();
  return {
    async incr(key) {
      const t = now();
      let c = counts.get(key);
      if (!c || t - c.start >= windowMs) {
        if (counts.size >= maxKeys) counts.clear(); // bounded memory under a flood of addresses
        c = { start: t, n: 0 };
        counts.set(key, c);
      }
      c.n++;
      return { count: c.n, resetMs: c.start + windowMs - t };
    },
  };
}

/** Delivery inside this process: the memory store's invalidation, and the local half of the others. */
export function createLocalInvalidation(): Invalidation & { deliver(topic: InvalidationTopic, id: string | undefined): void } {
  const subscribers = new Map<InvalidationTopic, Set<(id: string | undefined) => void>>();
  const deliver = (topic: InvalidationTopic, id: string | undefined) => {
    for (const fn of subscribers.get(topic) ?? []) {
      try {
        fn(id);
      } catch {
        // a subscriber's failure must not keep the others from dropping their caches
      }
    }
  };
  return {
    deliver,
    publish: deliver,
    subscribe(topic, fn) {
      let set = subscribers.get(topic);
      if (!set) subscribers.set(topic, (set = new Set()));
      set.add(fn);
      return () => set.delete(fn);
    },
  };
}

/** One process: everything in memory (a single instance works as it always has). */
export function createMemoryShared(): SharedState {
  const uploadLocks = createMemoryLocks();
  const invalidation = createLocalInvalidation();
  // One store per name, as in a shared store: every route module that asks for 'signup' counts together.
  const stores = new Map<string, ThrottleStore>();
  const counters = new Map<string, WindowCounter>();
  return {
    throttleStore(name, windowMs, maxPerKey) {
      const key = `${name}:${windowMs}`;
      let store = stores.get(key);
      if (!store) stores.set(key, (store = createMemoryThrottleStore({ windowMs, maxPerKey })));
      return store;
    },
    windowCounter(name, windowMs) {
      const key = `${name}:${windowMs}`;
      let counter = counters.get(key);
      if (!counter) counters.set(key, (counter = createMemoryWindowCounter(windowMs)));
      return counter;
    },
    uploadLocks,
    invalidation,
    health: () => ({ store: 'memory' }),
    close: async () => {},
  };
}
