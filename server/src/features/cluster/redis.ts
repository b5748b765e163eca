/**
 * The Redis implementation of SharedState (--redis-url, docs/deployment.md "Several instances").
 *
 * - Throttles: one sorted set per key (members are events, scores their times), trimmed and read
 *   in one Lua script, so a check or a hit is atomic however many instances ask. Times come from
 *   Redis's own clock (TIME), so instances with skewed clocks still agree on the window.
 * - Rate limits: INCR with an expiry set by the first event of the window (fixed windows).
 * - Upload locks: the local lock first (requests of this instance queue as before), then
 *   `SET NX PX` with a random token, renewed while held, released only by its token. A holder
 *   that dies (kill -9) frees the lock when its expiry passes: another instance waits for it
 *   instead of answering at once. A waiter asks the holder, wherever it runs, to stop (pub/sub).
 * - Invalidation: one pub/sub channel; every instance delivers its own messages at once, and
 *   others' as they arrive.
 * Redis down: no request waits for it. Commands fail at once (no offline queue) and every
 * operation falls back to this instance's memory, a warning goes to the log and /ready's detail
 * says "degraded"; when the connection is back, Redis counts again.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { ThrottleState, ThrottleStore } from '../../auth/throttle.js';
import { Locked, type AcquireOptions, type Release, type UploadLocks } from '../tus/lock.js';
import { createLocalInvalidation, createMemoryShared, type InvalidationTopic, type SharedLog, type SharedState, type WindowCounter } from './shared.js';

export interface RedisSharedOptions {
  url: string;
  /** Prefix of every key and channel (several deployments on one Redis). */
  prefix?: string;
  /** An upload lock expires this long after its last renewal (a holder killed frees it then). */
  lockTtlMs?: number;
  /** How long a command may take before this instance counts locally. */
  commandTimeoutMs?: number;
  log?: SharedLog;
}

const HIT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -(tonumber(ARGV[2]) + 1))
redis.call('PEXPIRE', KEYS[1], window)
return now`;

const CHECK = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local n = redis.call('ZCARD', KEYS[1])
if n < limit then return {n, 0} end
local pivot = redis.call('ZRANGE', KEYS[1], n - limit, n - limit, 'WITHSCORES')
local wait = tonumber(pivot[2]) + window - now
if wait < 1 then wait = 1 end
return {n, wait}`;

const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local n = redis.call('ZCARD', KEYS[1])
if n >= limit then
  local pivot = redis.call('ZRANGE', KEYS[1], n - limit, n - limit, 'WITHSCORES')
  local wait = tonumber(pivot[2]) + window - now
  if wait < 1 then wait = 1 end
  return {n, wait}
end
redis.call('ZADD', KEYS[1], now, ARGV[4])
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -(tonumber(ARGV[3]) + 1))
redis.call('PEXPIRE', KEYS[1], window)
return {n, 0}`;

const INCR = `
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {n, ttl}`;

/**
 * Keeps the holder's lock: renewed while it is ours, taken again when it is gone (Redis restarted
 * without its data, or the lock was taken while Redis was down: nobody else holds it), 0 when
 * another instance holds it now (the holder is asked to stop).
 */
const RENEW = `
local v = redis.call('GET', KEYS[1])
if v == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if not v then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0`;
const UNLOCK = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

interface Scripts {
  cofferHit(key: string, windowMs: number, maxPerKey: number, member: string): Promise<number>;
  cofferCheck(key: string, windowMs: number, limit: number): Promise<[number, number]>;
  cofferTake(key: string, windowMs: number, limit: number, maxPerKey: number, member: string): Promise<[number, number]>;
  cofferIncr(key: string, windowMs: number): Promise<[number, number]>;
  cofferRenew(key: string, token: string, ttlMs: number): Promise<number>;
  cofferUnlock(key: string, token: string): Promise<number>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createRedisShared(opts: RedisSharedOptions): SharedState & { attachLog(log: SharedLog): void; ready(): Promise<boolean> } {
  const prefix = opts.prefix ?? 'coffer:';
  const lockTtlMs = opts.lockTtlMs ?? 5000;
  const instance = randomBytes(8).toString('hex');
  let log: SharedLog = opts.log ?? { info: () => {}, warn: (o, m) => console.warn(m, o) };
  const common = {
    // Fail at once while disconnected (the caller counts locally) instead of queueing requests.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: opts.commandTimeoutMs ?? 1000,
    connectTimeout: 2000,
    // Keep trying, at most every 2 s: Redis back means shared counts again.
    retryStrategy: (times: number) => Math.min(100 * times, 2000),
    lazyConnect: false,
  };
  const client = new Redis(opts.url, common);
  // The subscriber (re)subscribes each time it is connected (below), also when Redis was down at start.
  const subscriber = new Redis(opts.url, { ...common, commandTimeout: undefined });
  client.defineCommand('cofferHit', { numberOfKeys: 1, lua: HIT });
  client.defineCommand('cofferCheck', { numberOfKeys: 1, lua: CHECK });
  client.defineCommand('cofferTake', { numberOfKeys: 1, lua: TAKE });
  client.defineCommand('cofferIncr', { numberOfKeys: 1, lua: INCR });
  client.defineCommand('cofferRenew', { numberOfKeys: 1, lua: RENEW });
  client.defineCommand('cofferUnlock', { numberOfKeys: 1, lua: UNLOCK });
  const scripts = client as unknown as Scripts;

  // --- connection state -------------------------------------------------------------------
  let up = false;
  let everUp = false;
  let warned = false;
  let closed = false;
  client.on('ready', () => {
    up = true;
    if (everUp) log.info({ redis: 'back' }, 'Redis is reachable again: limits and upload locks are shared again');
    everUp = true;
    warned = false;
  });
  const down = (reason: string) => {
    up = false;
    if (!warned && !closed) {
      warned = true;
      log.warn({ redis: 'down', reason }, 'Redis is unreachable: limits and upload locks count per instance until it is back');
    }
  };
  client.on('error', (err: Error) => down(err.message));
  client.on('close', () => down('connection closed'));
  subscriber.on('error', () => {}); // the client's events say it already

  /** Runs `op` on Redis when it is up; `local` when it is not or the command fails. */
  async function either<T>(op: () => Promise<T>, local: () => Promise<T>): Promise<T> {
    if (!up || client.status !== 'ready') return local();
    try {
      return await op();
    } catch (err) {
      // A script error is a bug, not an outage: still answered locally, but said loudly.
      if (client.status === 'ready') log.warn({ err: (err as Error).message }, 'a Redis command failed; counted locally');
      else down((err as Error).message);
      return local();
    }
  }

  const local = createMemoryShared();
  const invalidation = createLocalInvalidation();
  const channel = `${prefix}events`;

  // --- throttles -----------------------------------------------------------------------------
  function throttleStore(name: string, windowMs: number, maxPerKey = 100): ThrottleStore {
    const fallback = local.throttleStore(name, windowMs, maxPerKey);
    // The policy's name is part of the key, as in the memory store: two policies never share counts,
    // whatever keys they use (names are the code's constants; keys end the Redis key).
    const k = (key: string) => `${prefix}t:${name}:${windowMs}:${key}`;
    return {
      hit: (key) =>
        either(
          async () => {
            await scripts.cofferHit(k(key), windowMs, maxPerKey, randomBytes(8).toString('base64url'));
          },
          () => fallback.hit(key),
        ),
      check: (key, limit) =>
        either<ThrottleState>(
          async () => {
            const [count, retryAfterMs] = await scripts.cofferCheck(k(key), windowMs, limit);
            return { count: Number(count), retryAfterMs: Number(retryAfterMs) };
          },
          () => fallback.check(key, limit),
        ),
      take: (key, limit) =>
        either<ThrottleState>(
          async () => {
            const [count, retryAfterMs] = await scripts.cofferTake(k(key), windowMs, limit, maxPerKey, randomBytes(8).toString('base64url'));
            return { count: Number(count), retryAfterMs: Number(retryAfterMs) };
          },
          () => fallback.take(key, limit),
        ),
    };
  }

  function windowCounter(name: string, windowMs: number): WindowCounter {
    const fallback = local.windowCounter(name, windowMs);
    return {
      incr: (key) =>
        either(
          async () => {
            const [count, resetMs] = await scripts.cofferIncr(`${prefix}w:${name}:${windowMs}:${key}`, windowMs);
            return { count: Number(count), resetMs: Number(resetMs) };
          },
          () => fallback.incr(key),
        ),
    };
  }

  // --- upload locks --------------------------------------------------------------------------
  /** Locks this instance holds in Redis: key → ask the holder to stop. */
  const heldHere = new Map<string, () => void>();
  const lockKey = (key: string) => `${prefix}lock:${key}`;

  /** One attempt at the Redis half; true when taken (or Redis is down: the local lock is all there is). */
  async function takeShared(key: string, token: string): Promise<boolean> {
    return either(
      async () => (await client.set(lockKey(key), token, 'PX', lockTtlMs, 'NX')) === 'OK',
      async () => true,
    );
  }

  function holdShared(key: string, token: string, localRelease: Release, onReleaseRequest?: () => void): Release {
    heldHere.set(key, () => onReleaseRequest?.());
    const renew = setInterval(() => {
      void either(
        async () => {
          // Another instance holds it now (ours expired: a stall, Redis slow or restarted): this
          // holder stops rather than write beside the new one.
          if ((await scripts.cofferRenew(lockKey(key), token, lockTtlMs)) === 0) onReleaseRequest?.();
        },
        async () => undefined,
      );
    }, Math.max(100, Math.floor(lockTtlMs / 3)));
    renew.unref();
    let once = false;
    return async () => {
      if (once) return;
      once = true;
      clearInterval(renew);
      heldHere.delete(key);
      await either(
        () => scripts.cofferUnlock(lockKey(key), token),
        async () => 0,
      );
      await localRelease();
    };
  }

  const uploadLocks: UploadLocks = {
    async acquire(key, o: AcquireOptions = {}) {
      const waitMs = o.waitMs ?? 10_000;
      const deadline = Date.now() + waitMs;
      const localRelease = await local.uploadLocks.acquire(key, { ...o, waitMs });
      const token = randomBytes(12).toString('base64url');
      let asked = false;
      for (;;) {
        if (await takeShared(key, token)) return holdShared(key, token, localRelease, o.onReleaseRequest);
        if (!asked) {
          asked = true;
          void either(
            () => client.publish(channel, JSON.stringify({ from: instance, stop: key })),
            async () => 0,
          );
        }
        if (Date.now() >= deadline) {
          await localRelease();
          throw new Locked();
        }
        await sleep(Math.min(100, Math.max(1, deadline - Date.now())));
      }
    },
    async tryAcquire(key) {
      const localRelease = await local.uploadLocks.tryAcquire(key);
      if (!localRelease) return null;
      const token = randomBytes(12).toString('base64url');
      if (await takeShared(key, token)) return holdShared(key, token, localRelease);
      await localRelease();
      return null;
    },
  };

  // --- invalidation and stop requests ---------------------------------------------------------
  subscriber.on('ready', () => {
    subscriber.subscribe(channel).catch(() => {});
  });
  subscriber.on('message', (_ch: string, text: string) => {
    // Anyone who can reach Redis can publish here: whatever arrives must not throw (a throw in this
    // listener is an uncaught exception that stops the process). `null`, numbers, arrays: ignored.
    let m: { from?: unknown; topic?: unknown; id?: unknown; stop?: unknown };
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return;
      m = parsed as typeof m;
    } catch {
      return;
    }
    if (m.from === instance) return;
    if (typeof m.stop === 'string') heldHere.get(m.stop)?.();
    if (m.topic === 'settings' || m.topic === 'users' || m.topic === 'rules') {
      invalidation.deliver(m.topic, typeof m.id === 'string' ? m.id : undefined);
    }
  });

  return {
    throttleStore,
    windowCounter,
    uploadLocks,
    invalidation: {
      publish(topic: InvalidationTopic, id?: string) {
        invalidation.deliver(topic, id);
        void either(
          () => client.publish(channel, JSON.stringify({ from: instance, topic, id })),
          async () => 0,
        );
      },
      subscribe: invalidation.subscribe,
    },
    health() {
      if (up && client.status === 'ready') return { store: 'redis' };
      // /ready is public: the reason (which names Redis's address) goes to the log only.
      return { store: 'redis', degraded: 'Redis unreachable: limits and upload locks count per instance' };
    },
    attachLog(l) {
      log = l;
    },
    /** Resolves once connected (true) or after the connect timeout (false); for start-up and tests. */
    async ready() {
      if (client.status === 'ready') return true;
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), 2500);
        client.once('ready', () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
    },
    async close() {
      closed = true;
      client.disconnect();
      subscriber.disconnect();
    },
  };
}
