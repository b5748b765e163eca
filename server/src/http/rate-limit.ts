/**
 * S83: optional general limits, off unless `--rate-limit` is set, e.g. "anon=300/min,user=1200/min":
 * per client address for requests without a valid session, per user for authenticated ones.
 * Fixed windows in memory (per instance). Static assets, /health, /ready and /metrics never count.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { TooManyRequests } from './errors.js';

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

function windowCounter(limit: number, windowMs: number, now: () => number) {
  const counts = new Map<string, { start: number; n: number }>();
  return (key: string): void => {
    const t = now();
    let c = counts.get(key);
    if (!c || t - c.start >= windowMs) {
      if (counts.size > 100_000) counts.clear(); // bounded memory under a flood of addresses
      c = { start: t, n: 0 };
      counts.set(key, c);
    }
    if (++c.n > limit) throw new TooManyRequests((c.start + windowMs - t) / 1000);
  };
}

export interface RateLimiter {
  /** Counts one request without a valid session from `ip`; throws 429 over the limit. */
  anon(ip: string): void;
  /** Counts one authenticated request of `userId`; throws 429 over the limit. */
  user(userId: number): void;
}

export function createRateLimiter(limits: RateLimits, now: () => number = Date.now): RateLimiter {
  const anon = limits.anon && windowCounter(limits.anon.limit, limits.anon.windowMs, now);
  const user = limits.user && windowCounter(limits.user.limit, limits.user.windowMs, now);
  return {
    anon: (ip) => anon?.(ip),
    user: (id) => user?.(String(id)),
  };
}

const EXEMPT = /^\/(?:static\/|health$|ready$|metrics$)/;

/** Counts unauthenticated requests; requests that carry credentials are counted by `authenticate`. */
export function registerAnonRateLimit(app: FastifyInstance, limiter: RateLimiter, base: string, hasCredentials: (req: FastifyRequest) => boolean): void {
  app.addHook('onRequest', async (req) => {
    const p = (req.url.split('?')[0] ?? '').slice(req.url.startsWith(base + '/') ? base.length : 0);
    if (EXEMPT.test(p) || hasCredentials(req)) return;
    limiter.anon(req.ip);
  });
}
