/** S83: optional general limits (--rate-limit), off by default. */
import { describe, expect, it } from 'vitest';
import { useServer } from './harness.js';

describe('--rate-limit', () => {
  const srv = useServer({ rateLimit: 'anon=5/min,user=8/min', trustedProxies: ['127.0.0.1'] });

  it('limits requests without a session per address, never /health, /static or /metrics', async () => {
    const from = { 'X-Forwarded-For': '203.0.113.7' };
    for (let i = 0; i < 5; i++) expect((await srv.fetch('/api/users', { headers: from })).status).toBe(401);
    const over = await srv.fetch('/api/users', { headers: from });
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await over.text()).toBe('');
    // A garbage token is no way around it.
    expect((await srv.fetch('/api/users', { headers: { ...from, 'X-Auth': 'a.b.c' } })).status).toBe(429);
    expect((await srv.fetch('/health', { headers: from })).status).toBe(200);
    expect((await srv.fetch('/static/nothing.js', { headers: from })).status).toBe(404);
    // Other addresses are not affected.
    expect((await srv.fetch('/api/users', { headers: { 'X-Forwarded-For': '203.0.113.8' } })).status).toBe(401);
  });

  it('counts requests that carry a token on routes that never check it (no way around the limit)', async () => {
    // Public routes do not authenticate: a token-shaped header there must not exempt the request.
    const from = { 'X-Forwarded-For': '203.0.113.9', 'X-Auth': 'a.b.c' };
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await srv.fetch('/api/public/share/nosuchshare', { headers: from })).status);
    expect(statuses.slice(0, 5)).not.toContain(429);
    expect(statuses.slice(5)).toEqual([429, 429]);
  });

  it('limits authenticated requests per user', async () => {
    const token = await srv.login();
    const statuses: number[] = [];
    for (let i = 0; i < 9; i++) statuses.push((await srv.fetch('/api/users', { token })).status);
    expect(statuses.slice(0, 8).every((s) => s === 200)).toBe(true);
    expect(statuses[8]).toBe(429);
  });
});

describe('without --rate-limit', () => {
  const srv = useServer();
  it('never answers 429 to ordinary traffic', async () => {
    for (let i = 0; i < 30; i++) expect((await srv.fetch('/api/users')).status).toBe(401);
  });
});
