/**
 * S83: optional general limits, off unless `--rate-limit` is set, e.g. "anon=300/min,user=1200/min":
 * per client address for requests without a valid session, per user for authenticated ones.
 * Fixed windows, per instance or shared across instances (--redis-url). Static assets, /health, /ready and /metrics never count.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { TooManyRequests } from './errors.js';
import type { WindowCounter } from '../features/cluster/shared.js';

export interface RateLimits {
  anon?: { limit: number; windowMs: number };
  user?: { limit: number; windowMs: number };
}

const UNIT_MS: Record<string, number> = { s: 1000, sec: 1000, second: 1000, min: 60_000, minute: 60_000, h: 3_600_000, hour: 3_600_000 };

/** Parses "anon=300/min,user=1200/min"; throws with a readable message on anything else. */
export function parseRateLimits(text: string): RateLimits {
  const out: RateLimits = {};
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const m = /^(anon|user)=(\d+)\/(s|sec|second|min|minute|h|hour)$/.exec(part);
    if (!m || Number(m[2]) < 1) throw new Error(`rate-limit: "${part}" is not of the form anon=300/min or user=1200/min`);
    out[m[1] as 'anon' | 'user'] = { limit: Number(m[2]), windowMs: UNIT_MS[m[3]!]! };
  }
  return out;
}

export interface RateLimiter {
  /** Counts one request without a valid session from `ip` (`req` remembers it is counted); throws 429 over the limit. */
  anon(ip: string, req?: object): Promise<void>;
  /** Counts one authenticated request of `userId` (`req` remembers it is counted); throws 429 over the limit. */
  user(userId: number, req?: object): Promise<void>;
  /** Whether `req` was counted already (by the address hook or by `authenticate`). */
  counted(req: object): boolean;
}

/**
 * Fixed windows in the given counters: in memory for one process, shared (Redis) across
 * instances (features/cluster/shared.ts).
 */
export function createRateLimiter(limits: RateLimits, counterOf: (name: string, windowMs: number) => WindowCounter): RateLimiter {
  const limited = (name: string, l: { limit: number; windowMs: number } | undefined) => {
    if (!l) return async () => {};
    const counter = counterOf(name, l.windowMs);
    return async (key: string) => {
      const { count, resetMs } = await counter.incr(key);
      if (count > l.limit) throw new TooManyRequests(Math.max(resetMs, 1) / 1000);
    };
  };
  const anon = limited('rate-anon', limits.anon);
  const user = limited('rate-user', limits.user);
  const seen = new WeakSet<object>();
  const mark = (req: object | undefined) => {
    if (req) seen.add(req);
  };
  return {
    anon: (ip, req) => (mark(req), anon(ip)),
    user: (id, req) => (mark(req), user(String(id))),
    counted: (req) => seen.has(req),
  };
}

const EXEMPT = /^\/(?:static\/|health$|ready$|metrics$)/;

/**
 * Counts unauthenticated requests; requests that carry credentials are counted by `authenticate`
 * (per user, or per address when the token is bad). A request with credentials that no
 * `authenticate` looked at (a public route, WebDAV's own sign-in) is counted per address before
 * its handler: a token-shaped header is no way around the limit.
 */
export function registerAnonRateLimit(app: FastifyInstance, limiter: RateLimiter, base: string, hasCredentials: (req: FastifyRequest) => boolean): void {
  const exempt = (req: FastifyRequest) => EXEMPT.test((req.url.split('?')[0] ?? '').slice(req.url.startsWith(base + '/') ? base.length : 0));
  app.addHook('onRequest', async (req) => {
    if (exempt(req) || hasCredentials(req)) return;
    await limiter.anon(req.ip, req);
  });
  app.addHook('preHandler', async (req) => {
    if (limiter.counted(req) || exempt(req)) return;
    await limiter.anon(req.ip, req);
  });
}
