import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../../scripts/redis.mjs';
import { startServer, type TestServer } from './harness.js';
import { LOGIN_ADDRESS_LIMIT } from '../src/auth/throttle.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Two apps on one Redis (--redis-url): what they count together, and Redis going away. */
describe('two instances sharing a Redis', () => {
  let redis: TestRedis;
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    redis = await startRedis();
    a = await startServer({ redisUrl: redis.url, rateLimit: 'anon=40/min' });
    b = await startServer({ redisUrl: redis.url, rateLimit: 'anon=40/min' });
    a.deps.shared.attachLog?.({ info: () => {}, warn: () => {} });
    b.deps.shared.attachLog?.({ info: () => {}, warn: () => {} });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.stop();
  });

  const wrongLogin = (srv: TestServer, username: string) =>
    srv.fetch('/api/login', { method: 'POST', json: { username, password: 'not-the-password', recaptcha: '' } });

  it('answers ready without a detail while Redis is reachable', async () => {
    const res = await a.fetch('/ready');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready' });
  });

  it('counts wrong passwords spread over both instances: 429 at the same total as one instance', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LOGIN_ADDRESS_LIMIT + 2; i++) statuses.push((await wrongLogin(i % 2 ? b : a, 'spread-user')).status);
    expect(statuses.slice(0, LOGIN_ADDRESS_LIMIT)).toEqual(Array(LOGIN_ADDRESS_LIMIT).fill(403));
    expect(statuses.slice(LOGIN_ADDRESS_LIMIT)).toEqual([429, 429]);
    // Both instances refuse the address now, even the right password (S30).
    for (const srv of [a, b]) expect((await srv.fetch('/api/login', { method: 'POST', json: { username: 'admin', password: 'x', recaptcha: '' } })).status).toBe(429);
  });

  it('counts --rate-limit over both instances', async () => {
    await redis.stop();
    await redis.start(); // a clean count: the address's login failures above are gone with it
    for (let i = 0; i < 100 && (a.deps.shared.health().degraded || b.deps.shared.health().degraded); i++) await sleep(50);
    const statuses: number[] = [];
    for (let i = 0; i < 44; i++) statuses.push((await (i % 2 ? b : a).fetch('/api/renew', { method: 'POST' })).status);
    expect(statuses.filter((s) => s === 429).length).toBe(4);
    expect(statuses.slice(40)).toEqual([429, 429, 429, 429]);
  });

  it('keeps serving with per-instance limits while Redis is down, says so in /ready, and recovers', async () => {
    await redis.stop();
    for (let i = 0; i < 50 && !a.deps.shared.health().degraded; i++) await sleep(20);
    const res = await a.fetch('/ready');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; detail?: { shared: string; reason: string } };
    expect(body.status).toBe('ready');
    expect(body.detail?.shared).toBe('degraded');
    expect(body.detail?.reason).toMatch(/Redis unreachable/);
    expect(body.detail?.reason).not.toContain(String(redis.port)); // no address in a public answer
    expect(body.detail?.reason).not.toContain('127.0.0.1');
    // Requests keep working, fast, counted locally (this instance's memory).
    const t0 = Date.now();
    expect((await a.fetch('/api/login', { method: 'POST', json: { username: 'admin', password: 'nope', recaptcha: '' } })).status).toBe(403);
    expect(Date.now() - t0).toBeLessThan(1000);
    await redis.start();
    for (let i = 0; i < 100 && a.deps.shared.health().degraded; i++) await sleep(50);
    expect(await (await a.fetch('/ready')).json()).toEqual({ status: 'ready' });
  }, 20_000);
});

describe('--redis-url', () => {
  it('is refused at start-up unless it is a redis:// or rediss:// address', async () => {
    const { loadConfig } = await import('../src/config/load.js');
    for (const bad of ['http://127.0.0.1:6379', 'localhost:6379', 'redis:// spaces']) {
      expect(loadConfig({ redisUrl: bad }, {}, null).errors.join(' '), bad).toMatch(/redis-url/);
    }
    expect(loadConfig({ redisUrl: 'rediss://user:pw@cache.example:6380/2' }, {}, null).errors).toEqual([]);
    expect(loadConfig({}, { COFFER_REDIS_URL: 'redis://127.0.0.1:1' }, null).explicit.redisUrl).toBe('redis://127.0.0.1:1');
  });
});
