/**
 * What the workers of `--workers N` share without Redis (features/cluster/shared.ts, the IPC
 * implementation; docs/deployment.md): the primary process holds the guessing throttles' counters
 * and the `--rate-limit` windows, which the workers ask over the cluster's IPC channel, and it
 * relays every invalidation (settings, users, rules) to the other workers. So the login, share,
 * signup and upload-share limits and the general rate limits count over every worker of the box
 * exactly as they count in one process. Upload locks stay per worker, as between instances without
 * Redis: the database decides who writes an upload.
 *
 * Messages come only from our own forked workers; the primary still checks every field (types,
 * lengths, a known operation) and drops anything else, so a bug cannot grow its memory unbounded.
 */
import type { Worker } from 'node:cluster';
import { createMemoryThrottleStore, type ThrottleState, type ThrottleStore } from '../auth/throttle.js';
import { createLocalInvalidation, createMemoryShared, createMemoryWindowCounter, type InvalidationTopic, type SharedState, type WindowCounter } from '../features/cluster/shared.js';
import { createMemoryLocks } from '../features/tus/lock.js';

/** Worker → primary: a throttle's hit or check, or a window counter's incr. */
export interface ThrottleAsk {
  coffer: 'throttle';
  id: number;
  store: string;
  windowMs: number;
  maxPerKey?: number;
  op: 'hit' | 'check' | 'take' | 'incr';
  key: string;
  limit?: number;
}
/** Primary → worker. */
export interface ThrottleAnswer {
  coffer: 'throttle-answer';
  id: number;
  state?: ThrottleState;
  window?: { count: number; resetMs: number };
}
/** Worker → primary → every other worker: something changed, drop what was derived from it. */
export interface Invalidate {
  coffer: 'invalidate';
  topic: InvalidationTopic;
  id?: string;
}
const TOPICS: readonly string[] = ['settings', 'users', 'rules'] satisfies InvalidationTopic[];

export function isInvalidate(m: unknown): m is Invalidate {
  if (!m || typeof m !== 'object') return false;
  const a = m as Record<string, unknown>;
  return a.coffer === 'invalidate' && typeof a.topic === 'string' && TOPICS.includes(a.topic) && (a.id === undefined || (typeof a.id === 'string' && a.id.length <= 64));
}

/** A worker waits this long for the primary; past it the worker counts alone (and says so). */
export const ASK_TIMEOUT_MS = 2000;
/** Throttle names are a handful of constants of the code; anything more is a bug. */
const MAX_STORES = 32;
/** Keys are made of a policy name, an address and a digest or share hash: a few hundred bytes. */
const MAX_KEY_LENGTH = 512;

function isAsk(m: unknown): m is ThrottleAsk {
  if (!m || typeof m !== 'object') return false;
  const a = m as Record<string, unknown>;
  return (
    a.coffer === 'throttle' &&
    Number.isSafeInteger(a.id) &&
    typeof a.store === 'string' &&
    a.store.length <= 64 &&
    Number.isSafeInteger(a.windowMs) &&
    (a.windowMs as number) > 0 &&
    (a.maxPerKey === undefined || (Number.isSafeInteger(a.maxPerKey) && (a.maxPerKey as number) > 0)) &&
    (a.op === 'hit' || a.op === 'check' || a.op === 'take' || a.op === 'incr') &&
    typeof a.key === 'string' &&
    a.key.length <= MAX_KEY_LENGTH &&
    ((a.op !== 'check' && a.op !== 'take') || (Number.isSafeInteger(a.limit) && (a.limit as number) > 0))
  );
}

/** The primary's side: one memory store per throttle or counter name, answering every worker. */
export function createThrottleHost(now?: () => number) {
  const stores = new Map<string, ThrottleStore>();
  const counters = new Map<string, WindowCounter>();
  function storeFor(a: ThrottleAsk): ThrottleStore | null {
    const id = `${a.store}/${a.windowMs}/${a.maxPerKey ?? ''}`;
    let s = stores.get(id);
    if (!s) {
      if (stores.size >= MAX_STORES) return null;
      s = createMemoryThrottleStore({ windowMs: a.windowMs, maxPerKey: a.maxPerKey, now });
      stores.set(id, s);
    }
    return s;
  }
  function counterFor(a: ThrottleAsk): WindowCounter | null {
    const id = `${a.store}/${a.windowMs}`;
    let c = counters.get(id);
    if (!c) {
      if (counters.size >= MAX_STORES) return null;
      c = createMemoryWindowCounter(a.windowMs, now);
      counters.set(id, c);
    }
    return c;
  }
  const workers = new Set<Worker>();
  return {
    /** Answers one message of a worker when it is a throttle question; false when it is not one. */
    async handle(message: unknown, reply: (answer: ThrottleAnswer) => void): Promise<boolean> {
      if (!isAsk(message)) return false;
      const id = message.id;
      if (message.op === 'incr') {
        const counter = counterFor(message);
        reply(counter ? { coffer: 'throttle-answer', id, window: await counter.incr(message.key) } : { coffer: 'throttle-answer', id });
        return true;
      }
      const store = storeFor(message);
      if (!store) reply({ coffer: 'throttle-answer', id });
      else if (message.op === 'hit') {
        await store.hit(message.key);
        reply({ coffer: 'throttle-answer', id });
      } else if (message.op === 'take') reply({ coffer: 'throttle-answer', id, state: await store.take(message.key, message.limit!) });
      else reply({ coffer: 'throttle-answer', id, state: await store.check(message.key, message.limit!) });
      return true;
    },
    /** Wires a forked worker to the host: its questions are answered, its invalidations go to the others. */
    serve(worker: Worker): void {
      workers.add(worker);
      worker.on('exit', () => workers.delete(worker));
      worker.on('message', (m: unknown) => {
        if (isInvalidate(m)) {
          const relay: Invalidate = { coffer: 'invalidate', topic: m.topic, ...(m.id === undefined ? {} : { id: m.id }) };
          for (const other of workers) if (other !== worker && other.isConnected()) other.send(relay);
          return;
        }
        void this.handle(m, (answer) => {
          if (worker.isConnected()) worker.send(answer);
        });
      });
    },
  };
}

interface Channel {
  send(message: ThrottleAsk | Invalidate): void;
  on(event: 'message', listener: (m: unknown) => void): void;
}

/**
 * The workers' side: stores and counters that ask the primary, invalidations relayed through it.
 * When the primary does not answer in time (it is stopping, or gone), the worker counts in its own
 * memory and warns once: the limits still hold per worker rather than failing the request.
 */
export function createIpcShared(channel: Channel, warn: (message: string) => void, timeoutMs = ASK_TIMEOUT_MS): SharedState {
  let seq = 0;
  const waiting = new Map<number, (a: ThrottleAnswer | null) => void>();
  const invalidation = createLocalInvalidation();
  channel.on('message', (m) => {
    if (isInvalidate(m)) return invalidation.deliver(m.topic, m.id);
    const a = m as Partial<ThrottleAnswer> | null;
    if (!a || a.coffer !== 'throttle-answer' || typeof a.id !== 'number') return;
    waiting.get(a.id)?.(a as ThrottleAnswer);
  });
  let degraded: string | undefined;
  function ask(q: Omit<ThrottleAsk, 'id' | 'coffer'>): Promise<ThrottleAnswer | null> {
    const id = ++seq;
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(null), timeoutMs);
      timer.unref();
      function done(a: ThrottleAnswer | null) {
        clearTimeout(timer);
        waiting.delete(id);
        if (a) degraded = undefined;
        else if (!degraded) {
          degraded = 'the primary process did not answer';
          warn('the primary process did not answer a throttle question: this worker counts its limits alone');
        }
        resolve(a);
      }
      waiting.set(id, done);
      try {
        channel.send({ coffer: 'throttle', id, ...q });
      } catch {
        done(null);
      }
    });
  }
  // The fallback when the primary is silent: this worker's own memory.
  const local = createMemoryShared();
  return {
    throttleStore(name, windowMs, maxPerKey) {
      const alone = local.throttleStore(name, windowMs, maxPerKey);
      const base = { store: name, windowMs, maxPerKey };
      return {
        async hit(key) {
          if (!(await ask({ ...base, op: 'hit', key }))) await alone.hit(key);
        },
        async check(key, limit) {
          const a = await ask({ ...base, op: 'check', key, limit });
          return a?.state ?? alone.check(key, limit);
        },
        async take(key, limit) {
          const a = await ask({ ...base, op: 'take', key, limit });
          return a?.state ?? alone.take(key, limit);
        },
      };
    },
    windowCounter(name, windowMs) {
      const alone = local.windowCounter(name, windowMs);
      return {
        async incr(key) {
          const a = await ask({ store: name, windowMs, op: 'incr', key });
          return a?.window ?? alone.incr(key);
        },
      };
    },
    uploadLocks: createMemoryLocks(),
    invalidation: {
      publish(topic, id) {
        invalidation.deliver(topic, id);
        try {
          channel.send({ coffer: 'invalidate', topic, ...(id === undefined ? {} : { id }) });
        } catch {
          // the primary is gone: this worker stops too (main.ts)
        }
      },
      subscribe: invalidation.subscribe,
    },
    health: () => ({ store: 'workers', ...(degraded ? { degraded } : {}) }),
    close: async () => {},
  };
}
