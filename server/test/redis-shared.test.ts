import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../../scripts/redis.mjs';
import { Redis } from 'ioredis';
import { createRedisShared } from '../src/features/cluster/redis.js';
import { createGuessThrottle, createRequestThrottle } from '../src/auth/throttle.js';
import { HttpError } from '../src/http/errors.js';

type Shared = ReturnType<typeof createRedisShared>;
const quiet = { info: () => {}, warn: () => {} };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Two "instances" on one Redis, each with its own prefix-sharing client (as two processes would). */
describe('the Redis shared state (--redis-url)', () => {
  let redis: TestRedis;
  let a: Shared;
  let b: Shared;
  const prefix = `t${Date.now()}:`;
  beforeAll(async () => {
    redis = await startRedis();
    a = createRedisShared({ url: redis.url, prefix, lockTtlMs: 600, log: quiet });
    b = createRedisShared({ url: redis.url, prefix, lockTtlMs: 600, log: quiet });
    expect(await a.ready()).toBe(true);
    expect(await b.ready()).toBe(true);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.stop();
  });

  it('counts throttle events of both instances in one sliding window', async () => {
    const sa = a.throttleStore('login', 60_000);
    const sb = b.throttleStore('login', 60_000);
    await sa.hit('k1');
    await sb.hit('k1');
    await sb.hit('k1');
    expect(await sa.check('k1', 5)).toEqual({ count: 3, retryAfterMs: 0 });
    const full = await sb.check('k1', 3);
    expect(full.count).toBe(3);
    expect(full.retryAfterMs).toBeGreaterThan(59_000);
    expect(full.retryAfterMs).toBeLessThanOrEqual(60_000);
    // Another window length is another policy's store.
    expect((await a.throttleStore('login', 1000).check('k1', 5)).count).toBe(0);
  });

  it('forgets events once the window has passed, and keeps at most maxPerKey per key', async () => {
    const s = a.throttleStore('short', 300, 5);
    for (let i = 0; i < 8; i++) await s.hit('k');
    expect((await s.check('k', 100)).count).toBe(5);
    await sleep(350);
    expect((await b.throttleStore('short', 300, 5).check('k', 1)).count).toBe(0);
  });

  it('counts every one of many parallel hits from both instances (atomic)', async () => {
    const sa = a.throttleStore('burst', 60_000, 1000);
    const sb = b.throttleStore('burst', 60_000, 1000);
    await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? sa : sb).hit('p')));
    expect((await sa.check('p', 1000)).count).toBe(200);
  });

  it('gives 429 to wrong passwords spread over two instances at the same total as one instance', async () => {
    const ga = createGuessThrottle(a.throttleStore('guess', 60_000), { name: 'guess', addressLimit: 4, targetLimit: 100 });
    const gb = createGuessThrottle(b.throttleStore('guess', 60_000), { name: 'guess', addressLimit: 4, targetLimit: 100 });
    for (let i = 0; i < 4; i++) {
      const g = i % 2 ? gb : ga;
      const release = await g.begin('198.51.100.7', 'alice');
      await g.failed('198.51.100.7', 'alice');
      release();
    }
    for (const g of [ga, gb]) {
      const err = await g.admit('198.51.100.7').then(
        () => null,
        (e: unknown) => e,
      );
      expect((err as HttpError).status).toBe(429);
    }
    await ga.admit('198.51.100.8'); // another address is not affected
  });

  it('admits no more than the limit of a parallel burst over both instances (signup, passkey options, upload shares)', async () => {
    const policy = { name: 'burst-admit', limit: 5 };
    const ta = createRequestThrottle(a.throttleStore('burst-admit', 60_000), policy);
    const tb = createRequestThrottle(b.throttleStore('burst-admit', 60_000), policy);
    const admit = (i: number) => (i % 2 ? ta : tb).admit('192.0.2.77').then(() => 'ok', (e: unknown) => (e as HttpError).status);
    const outcomes = await Promise.all(Array.from({ length: 40 }, (_, i) => admit(i)));
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(5);
    expect(outcomes.filter((o) => o === 429)).toHaveLength(35);
  });

  it('shares fixed-window counters (--rate-limit)', async () => {
    const ca = a.windowCounter('rate-anon', 60_000);
    const cb = b.windowCounter('rate-anon', 60_000);
    expect((await ca.incr('ip')).count).toBe(1);
    expect((await cb.incr('ip')).count).toBe(2);
    const third = await ca.incr('ip');
    expect(third.count).toBe(3);
    expect(third.resetMs).toBeGreaterThan(59_000);
  });

  it('makes an upload lock of one instance wait for the other, and asks the holder to stop', async () => {
    let asked = 0;
    const release = await a.uploadLocks.acquire('up1', { onReleaseRequest: () => asked++ });
    expect(await b.uploadLocks.tryAcquire('up1')).toBeNull();
    const t0 = Date.now();
    const waiting = b.uploadLocks.acquire('up1', { waitMs: 3000 });
    await sleep(200);
    expect(asked).toBe(1);
    await release();
    const releaseB = await waiting;
    expect(Date.now() - t0).toBeLessThan(1500);
    // Renewed while held: past the lock's expiry it is still held.
    await sleep(900);
    expect(await a.uploadLocks.tryAcquire('up1')).toBeNull();
    await releaseB();
    const again = await a.uploadLocks.tryAcquire('up1');
    expect(again).not.toBeNull();
    await again!();
  });

  it('answers 423 when the lock cannot be had in time', async () => {
    const release = await a.uploadLocks.acquire('up2');
    const err = await b.uploadLocks.acquire('up2', { waitMs: 300 }).then(
      () => null,
      (e: unknown) => e,
    );
    expect((err as HttpError).status).toBe(423);
    await release();
  });

  it('frees the lock of a holder that died once its expiry passes', async () => {
    const dead = createRedisShared({ url: redis.url, prefix, lockTtlMs: 600, log: quiet });
    expect(await dead.ready()).toBe(true);
    await dead.uploadLocks.acquire('up3');
    await dead.close(); // gone without releasing: no more renewals
    const t0 = Date.now();
    const release = await a.uploadLocks.acquire('up3', { waitMs: 5000 });
    expect(Date.now() - t0).toBeLessThan(2000);
    await release();
  });

  it('keeps a held lock when Redis loses it, and stops the holder when another instance took it meanwhile', async () => {
    const admin = new Redis(redis.url);
    try {
      let asked = 0;
      const release = await a.uploadLocks.acquire('up-lost', { onReleaseRequest: () => asked++ });
      await admin.del(`${prefix}lock:up-lost`); // as after a Redis restart without its data
      await sleep(700); // past a renewal (lockTtlMs / 3) and the old expiry
      expect(await b.uploadLocks.tryAcquire('up-lost')).toBeNull(); // taken again by its holder
      expect(asked).toBe(0);
      await admin.del(`${prefix}lock:up-lost`);
      const releaseB = await b.uploadLocks.tryAcquire('up-lost'); // another instance is first this time
      expect(releaseB).not.toBeNull();
      for (let i = 0; i < 30 && asked === 0; i++) await sleep(50);
      expect(asked).toBeGreaterThan(0); // the old holder is told to stop writing
      await release(); // its release leaves the new holder's lock alone
      expect(await a.uploadLocks.tryAcquire('up-lost')).toBeNull();
      await releaseB!();
    } finally {
      admin.disconnect();
    }
  });

  it('delivers an invalidation to the other instance', async () => {
    const seen: (string | undefined)[] = [];
    const mine: (string | undefined)[] = [];
    b.invalidation.subscribe('users', (id) => seen.push(id));
    a.invalidation.subscribe('users', (id) => mine.push(id));
    a.invalidation.publish('users', '42');
    expect(mine).toEqual(['42']); // at once on the publisher
    for (let i = 0; i < 50 && seen.length === 0; i++) await sleep(20);
    expect(seen).toEqual(['42']);
    await sleep(100);
    expect(mine).toEqual(['42']); // its own message is not delivered twice
  });

  it('keeps policies with one window length apart, as the memory store does (the name is part of the key)', async () => {
    await a.throttleStore('policy-one', 60_000).hit('same-key');
    expect((await b.throttleStore('policy-one', 60_000).check('same-key', 5)).count).toBe(1);
    expect((await b.throttleStore('policy-two', 60_000).check('same-key', 5)).count).toBe(0);
  });

  it('survives garbage on its channel (anyone who can reach Redis can publish) and still delivers', async () => {
    const pub = new Redis(redis.url);
    try {
      const seen: (string | undefined)[] = [];
      b.invalidation.subscribe('settings', (id) => seen.push(id));
      let asked = 0;
      const release = await b.uploadLocks.acquire('up-garbage', { onReleaseRequest: () => asked++ });
      for (const text of ['null', '5', '"text"', '[]', 'not json', '{"stop":{"x":1}}', '{"topic":"settings","id":{"x":1}}', '{"topic":"__proto__"}']) {
        await pub.publish(`${prefix}events`, text);
      }
      a.invalidation.publish('settings', '7');
      for (let i = 0; i < 50 && !seen.includes('7'); i++) await sleep(20);
      expect(seen).toEqual([undefined, '7']); // the malformed id dropped, the valid message delivered
      expect(asked).toBe(0);
      await release();
    } finally {
      pub.disconnect();
    }
  });

  it('keeps working locally while Redis is down, says so, and shares again when it is back', async () => {
    const warnings: string[] = [];
    a.attachLog({ info: () => {}, warn: (_o, m) => warnings.push(m) });
    const s = a.throttleStore('outage', 60_000);
    await s.hit('x');
    await redis.stop();
    for (let i = 0; i < 50 && !a.health().degraded; i++) await sleep(20);
    expect(a.health().degraded).toMatch(/Redis unreachable/);
    expect(warnings.some((w) => /unreachable/.test(w))).toBe(true);
    const t0 = Date.now();
    await s.hit('x'); // local: answered at once
    expect((await s.check('x', 10)).count).toBe(1);
    const release = await a.uploadLocks.acquire('outage-lock', { waitMs: 200 });
    await release();
    expect(Date.now() - t0).toBeLessThan(500);
    a.invalidation.publish('settings'); // never throws
    await redis.start();
    // Both reconnected (b counts in its memory until it has).
    for (let i = 0; i < 100 && (a.health().degraded || b.health().degraded); i++) await sleep(50);
    expect(a.health()).toEqual({ store: 'redis' });
    await s.hit('y');
    expect((await b.throttleStore('outage', 60_000).check('y', 10)).count).toBe(1);
    // Invalidations reach the other instance again (its subscriber reconnected too).
    const seen: string[] = [];
    b.invalidation.subscribe('rules', () => seen.push('rules'));
    for (let i = 0; i < 100 && seen.length === 0; i++) {
      a.invalidation.publish('rules');
      await sleep(50);
    }
    expect(seen.length).toBeGreaterThan(0);
  }, 20_000);

  it('starts while Redis is down (degraded, counting locally) and shares once it comes up', async () => {
    const late = await startRedis();
    await late.stop();
    const x = createRedisShared({ url: late.url, prefix, log: quiet });
    const y = createRedisShared({ url: late.url, prefix, log: quiet });
    try {
      expect(await x.ready()).toBe(false);
      expect(x.health().degraded).toMatch(/Redis unreachable/);
      await x.throttleStore('late', 60_000).hit('k'); // counted locally, at once
      const seen: string[] = [];
      y.invalidation.subscribe('settings', () => seen.push('settings'));
      await late.start();
      for (let i = 0; i < 100 && (x.health().degraded || y.health().degraded); i++) await sleep(50);
      expect(x.health()).toEqual({ store: 'redis' });
      await x.throttleStore('late', 60_000).hit('k');
      expect((await y.throttleStore('late', 60_000).check('k', 10)).count).toBe(1);
      // The subscriber that could not subscribe at start has subscribed since.
      for (let i = 0; i < 100 && seen.length === 0; i++) {
        x.invalidation.publish('settings');
        await sleep(50);
      }
      expect(seen.length).toBeGreaterThan(0);
    } finally {
      await x.close();
      await y.close();
      await late.stop();
    }
  }, 20_000);
});
