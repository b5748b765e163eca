import { describe, expect, it } from 'vitest';
import { HttpError } from '../../http/errors.js';
import { createMemoryThrottle } from '../auth/throttle.js';
import { createSharePasswordThrottle, SHARE_ADDRESS_LIMIT, SHARE_HASH_LIMIT, SHARE_WINDOW_MS } from './throttle.js';

function setup() {
  let t = 5_000_000;
  const throttle = createSharePasswordThrottle(createMemoryThrottle({ windowMs: SHARE_WINDOW_MS, now: () => t, maxPerKey: 100 }));
  return { throttle, advance: (ms: number) => (t += ms) };
}

async function outcome(p: Promise<unknown>): Promise<{ status: number; retryAfter?: number }> {
  try {
    await p;
    return { status: 0 };
  } catch (err) {
    if (err instanceof HttpError) return { status: err.status, retryAfter: Number(err.headers['Retry-After']) };
    throw err;
  }
}

describe('share-password throttle (S45)', () => {
  it('lets an address fail 10 times, then answers 429 on every share until the window frees a slot', async () => {
    const { throttle, advance } = setup();
    for (let i = 0; i < SHARE_ADDRESS_LIMIT; i++) {
      expect((await outcome(throttle.admit('10.0.0.1'))).status).toBe(0);
      (await throttle.begin('10.0.0.1', i % 2 ? 'share-a' : 'share-b'))();
      await throttle.failed('10.0.0.1', i % 2 ? 'share-a' : 'share-b');
      advance(1000);
    }
    const blocked = await outcome(throttle.admit('10.0.0.1'));
    expect(blocked.status).toBe(429);
    expect(blocked.retryAfter).toBe(Math.ceil((SHARE_WINDOW_MS - 10_000) / 1000));
    expect((await outcome(throttle.begin('10.0.0.1', 'share-c'))).status).toBe(429);
    expect((await outcome(throttle.admit('10.0.0.2'))).status).toBe(0);
    advance(SHARE_WINDOW_MS - 10_000);
    expect((await outcome(throttle.admit('10.0.0.1'))).status).toBe(0);
  });

  it('counts an IPv6 /64 as one address and an IPv4-mapped address as IPv4', async () => {
    const { throttle } = setup();
    for (let i = 0; i < SHARE_ADDRESS_LIMIT; i++) await throttle.failed(`2001:db8:1:2::${i + 1}`, 's');
    expect((await outcome(throttle.admit('2001:db8:1:2:ffff::9'))).status).toBe(429);
    expect((await outcome(throttle.admit('2001:db8:1:3::1'))).status).toBe(0);
    for (let i = 0; i < SHARE_ADDRESS_LIMIT; i++) await throttle.failed('::ffff:192.0.2.9', 's2');
    expect((await outcome(throttle.admit('192.0.2.9'))).status).toBe(429);
  });

  it('stops a parallel burst from an address that already failed at its remaining guesses', async () => {
    const { throttle } = setup();
    await throttle.failed('10.0.0.5', 's');
    const admitted: (() => void)[] = [];
    let refused = 0;
    for (let i = 0; i < 20; i++) {
      const r = await throttle.begin('10.0.0.5', 's').catch(() => null);
      if (r) admitted.push(r);
      else refused++;
    }
    expect(admitted.length).toBe(SHARE_ADDRESS_LIMIT - 1);
    expect(refused).toBe(20 - admitted.length);
    admitted.forEach((release) => release());
    expect((await outcome(throttle.begin('10.0.0.5', 's'))).status).toBe(0);
  });

  it('after many failures on one share lets only addresses that have not failed on it try', async () => {
    const { throttle } = setup();
    for (let i = 0; i < SHARE_HASH_LIMIT; i++) await throttle.failed(`172.16.0.${i + 1}`, 'target');
    expect((await outcome(throttle.begin('172.16.0.1', 'target'))).status).toBe(429);
    expect((await outcome(throttle.begin('172.16.0.1', 'elsewhere'))).status).toBe(0);
    expect((await outcome(throttle.begin('172.16.9.9', 'target'))).status).toBe(0);
  });
});
