import { describe, expect, it } from 'vitest';
import { HttpError } from '../http/errors.js';
import {
  addressKey,
  createLoginThrottle,
  createMemoryThrottleStore,
  createSharePasswordThrottle,
  createSignupThrottle,
  LOGIN_WINDOW_MS,
  SHARE_ADDRESS_LIMIT,
  SHARE_HASH_LIMIT,
  SHARE_WINDOW_MS,
} from './throttle.js';

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

async function status(p: Promise<unknown>): Promise<{ status: number; retryAfter?: string }> {
  try {
    await p;
    return { status: 0 };
  } catch (err) {
    if (err instanceof HttpError) return { status: err.status, retryAfter: err.headers['Retry-After'] };
    throw err;
  }
}

describe('createMemoryThrottleStore', () => {
  it('counts events inside a sliding window and says when a slot frees', async () => {
    const c = clock();
    const t = createMemoryThrottleStore({ windowMs: 1000, now: c.now });
    expect(await t.check('k', 2)).toEqual({ count: 0, retryAfterMs: 0 });
    await t.hit('k');
    c.advance(300);
    await t.hit('k');
    expect(await t.check('k', 2)).toEqual({ count: 2, retryAfterMs: 700 });
    expect(await t.check('k', 3)).toEqual({ count: 2, retryAfterMs: 0 });
    c.advance(700);
    expect(await t.check('k', 2)).toEqual({ count: 1, retryAfterMs: 0 });
    c.advance(300);
    expect(await t.check('k', 1)).toEqual({ count: 0, retryAfterMs: 0 });
  });

  it('keeps keys apart and bounds memory', async () => {
    const c = clock();
    const t = createMemoryThrottleStore({ windowMs: 1000, now: c.now, maxKeys: 10, maxPerKey: 5 });
    for (let i = 0; i < 50; i++) await t.hit(`k${i}`);
    expect((await t.check('k49', 1)).count).toBe(1);
    expect((await t.check('k0', 1)).count).toBe(0); // forgotten: the oldest key goes first
    for (let i = 0; i < 20; i++) await t.hit('many');
    expect((await t.check('many', 5)).count).toBe(5);
  });
});

describe('addressKey', () => {
  it('keeps IPv4 addresses whole and cuts IPv6 to the /64', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('2001:db8:1:2::1')).toBe(addressKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff'));
    expect(addressKey('2001:db8:1:2::1')).not.toBe(addressKey('2001:db8:1:3::1'));
    expect(addressKey('not an address')).toBe('not an address');
  });
});

describe('createLoginThrottle (S30)', () => {
  function setup() {
    const c = clock();
    const guard = createLoginThrottle(createMemoryThrottleStore({ windowMs: LOGIN_WINDOW_MS, now: c.now }));
    const attempt = async (address: string, username: string, ok: boolean) => {
      const release = await guard.begin(address, username);
      if (!ok) await guard.failed(address, username);
      release();
    };
    return { c, guard, attempt };
  }

  it('refuses an address after 10 failures in 15 minutes until the oldest leaves the window', async () => {
    const { c, guard, attempt } = setup();
    for (let i = 0; i < 10; i++) {
      await attempt('192.0.2.1', 'admin', false);
      c.advance(60_000);
    }
    // 10 failures at t0 … t0+9min; now t0+10min.
    expect(await status(guard.begin('192.0.2.1', 'admin'))).toEqual({ status: 429, retryAfter: String(5 * 60) });
    expect(await status(guard.begin('192.0.2.1', 'someone-else'))).toMatchObject({ status: 429 });
    expect((await status(guard.begin('192.0.2.2', 'admin'))).status).toBe(0);
    c.advance(5 * 60_000 - 1);
    expect((await status(guard.begin('192.0.2.1', 'admin'))).status).toBe(429);
    c.advance(1);
    expect((await status(guard.begin('192.0.2.1', 'admin'))).status).toBe(0);
  });

  it('never counts successes', async () => {
    const { guard, attempt } = setup();
    for (let i = 0; i < 100; i++) await attempt('192.0.2.1', 'admin', true);
    expect((await status(guard.begin('192.0.2.1', 'admin'))).status).toBe(0);
  });

  it('counts attempts in flight against an address that already failed', async () => {
    const { guard, attempt } = setup();
    await attempt('192.0.2.1', 'admin', false);
    const releases = [];
    for (let i = 0; i < 8; i++) releases.push(await guard.begin('192.0.2.1', 'admin'));
    expect((await status(guard.begin('192.0.2.1', 'admin'))).status).toBe(0);
    expect(await status(guard.begin('192.0.2.1', 'admin'))).toEqual({ status: 429, retryAfter: '1' });
    releases.forEach((r) => r());
    // A clean address is never limited by parallel attempts (many users behind one NAT).
    const clean = [];
    for (let i = 0; i < 50; i++) clean.push(await guard.begin('192.0.2.9', 'admin'));
    expect(clean).toHaveLength(50);
  });

  it('under a distributed attack, refuses a name only to addresses that failed on it, and only for the window', async () => {
    const { c, guard, attempt } = setup();
    for (let i = 1; i <= 30; i++) await attempt(`198.51.100.${i}`, 'Victim', false);
    expect(await status(guard.begin('198.51.100.1', 'victim'))).toMatchObject({ status: 429 });
    expect((await status(guard.begin('198.51.100.1', 'other'))).status).toBe(0);
    expect((await status(guard.begin('192.0.2.50', 'victim'))).status).toBe(0);
    c.advance(LOGIN_WINDOW_MS);
    expect((await status(guard.begin('198.51.100.1', 'victim'))).status).toBe(0);
  });

  it('leaves a name alone below 30 failures', async () => {
    const { guard, attempt } = setup();
    for (let i = 1; i <= 29; i++) await attempt(`198.51.100.${i}`, 'victim', false);
    expect((await status(guard.begin('198.51.100.1', 'victim'))).status).toBe(0);
  });
});

describe('createSignupThrottle (S33)', () => {
  it('admits 20 requests per address and hour, then 429 with Retry-After', async () => {
    const c = clock();
    const s = createSignupThrottle(createMemoryThrottleStore({ windowMs: 3_600_000, now: c.now }));
    for (let i = 0; i < 20; i++) {
      await s.admit('192.0.2.1');
      c.advance(1000);
    }
    expect(await status(s.admit('192.0.2.1'))).toEqual({ status: 429, retryAfter: String(3600 - 20) });
    expect((await status(s.admit('192.0.2.2'))).status).toBe(0);
    c.advance(3600_000 - 20_000);
    expect((await status(s.admit('192.0.2.1'))).status).toBe(0);
  });
});

function shareSetup() {
  let t = 5_000_000;
  const throttle = createSharePasswordThrottle(createMemoryThrottleStore({ windowMs: SHARE_WINDOW_MS, now: () => t, maxPerKey: 100 }));
  return { throttle, advance: (ms: number) => (t += ms) };
}

describe('share-password throttle (S45)', () => {
  it('lets an address fail 10 times, then answers 429 on every share until the window frees a slot', async () => {
    const { throttle, advance } = shareSetup();
    for (let i = 0; i < SHARE_ADDRESS_LIMIT; i++) {
      expect((await status(throttle.admit('10.0.0.1'))).status).toBe(0);
      (await throttle.begin('10.0.0.1', i % 2 ? 'share-a' : 'share-b'))();
      await throttle.failed('10.0.0.1', i % 2 ? 'share-a' : 'share-b');
      advance(1000);
    }
    const blocked = await status(throttle.admit('10.0.0.1'));
    expect(blocked.status).toBe(429);
    expect(blocked.retryAfter).toBe(String(Math.ceil((SHARE_WINDOW_MS - 10_000) / 1000)));
    expect((await status(throttle.begin('10.0.0.1', 'share-c'))).status).toBe(429);
    expect((await status(throttle.admit('10.0.0.2'))).status).toBe(0);
    advance(SHARE_WINDOW_MS - 10_000);
    expect((await status(throttle.admit('10.0.0.1'))).status).toBe(0);
  });

  it('counts an IPv6 /64 as one address and an IPv4-mapped address as IPv4', async () => {
    const { throttle } = shareSetup();
    for (let i = 0; i < SHARE_ADDRESS_LIMIT; i++) await throttle.failed(`2001:db8:1:2::${i + 1}`, 's');
    expect((await status(throttle.admit('2001:db8:1:2:ffff::9'))).status).toBe(429);
    expect((await status(throttle.admit('2001:db8:1:3::1'))).status).toBe(0);
    for (let i = 0; i < SHARE_ADDRESS_LIMIT; i++) await throttle.failed('::ffff:192.0.2.9', 's2');
    expect((await status(throttle.admit('192.0.2.9'))).status).toBe(429);
  });

  it('stops a parallel burst from an address that already failed at its remaining guesses', async () => {
    const { throttle } = shareSetup();
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
    expect((await status(throttle.begin('10.0.0.5', 's'))).status).toBe(0);
  });

  it('after many failures on one share lets only addresses that have not failed on it try', async () => {
    const { throttle } = shareSetup();
    for (let i = 0; i < SHARE_HASH_LIMIT; i++) await throttle.failed(`172.16.0.${i + 1}`, 'target');
    expect((await status(throttle.begin('172.16.0.1', 'target'))).status).toBe(429);
    expect((await status(throttle.begin('172.16.0.1', 'elsewhere'))).status).toBe(0);
    expect((await status(throttle.begin('172.16.9.9', 'target'))).status).toBe(0);
  });
});
