import { describe, expect, it } from 'vitest';
import { HttpError } from './errors.js';
import { createRateLimiter, parseRateLimits } from './rate-limit.js';
import { loadConfig } from '../config/load.js';
import { createMemoryWindowCounter } from '../features/cluster/shared.js';

describe('parseRateLimits (S83)', () => {
  it('reads per-address and per-user limits', () => {
    expect(parseRateLimits('anon=300/min,user=1200/min')).toEqual({
      anon: { limit: 300, windowMs: 60_000 },
      user: { limit: 1200, windowMs: 60_000 },
    });
    expect(parseRateLimits('user=5/s')).toEqual({ user: { limit: 5, windowMs: 1000 } });
  });
  it('refuses anything else, at start-up with the other config problems', () => {
    for (const bad of ['anon=abc/min', 'guest=1/min', 'anon=0/min', 'anon=5', 'anon=5/day']) expect(() => parseRateLimits(bad), bad).toThrow(/rate-limit/);
    expect(loadConfig({ rateLimit: 'anon=x' }, {}, null).errors[0]).toMatch(/rate-limit/);
  });
});

describe('createRateLimiter', () => {
  it('answers 429 with Retry-After past the limit, per key, until the window passes', async () => {
    let t = 0;
    const limiter = createRateLimiter(parseRateLimits('anon=2/min'), (_name, windowMs) => createMemoryWindowCounter(windowMs, () => t));
    await limiter.anon('a');
    await limiter.anon('a');
    const err = await limiter.anon('a').then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(429);
    expect((err as HttpError).headers['Retry-After']).toBe('60');
    await limiter.anon('b'); // other addresses are not affected
    t = 60_000;
    await limiter.anon('a');
    await limiter.user(1); // no user limit configured: never throws
  });
});
