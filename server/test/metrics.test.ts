import { describe, expect, it } from 'vitest';
import { useServer } from './harness.js';

describe('GET /metrics (E3)', () => {
  const srv = useServer();
  it('answers Prometheus text to loopback when no metrics token is configured', async () => {
    await srv.fetch('/health');
    const res = await srv.fetch('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await res.text();
    expect(text).toContain('coffer_http_requests_total');
    expect(text).toContain('coffer_sessions_active');
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toMatch(/coffer_http_requests_total\{method="GET",route="\/health",status="200",instance="[^"]+"\} \d+/);
  });
  it('labels per-instance series with `instance`, and reads cluster-wide gauges from the database without it', async () => {
    await srv.login();
    const before = await (await srv.fetch('/metrics')).text();
    const gauge = (text: string, name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1]);
    expect(gauge(before, 'coffer_users')).toBe(await srv.deps.users.count());
    expect(gauge(before, 'coffer_sessions_active')).toBeGreaterThanOrEqual(1);
    expect(gauge(before, 'coffer_shares')).toBe(0);
    expect(before).toMatch(/^process_cpu_user_seconds_total\{instance="[^"]+"\} /m);
    expect(before).not.toMatch(/^coffer_(users|shares|sessions_active|tus_uploads_active)\{/m);
    // Written behind this instance's back (as another instance would): seen at the next scrape.
    await srv.createUser();
    expect(gauge(await (await srv.fetch('/metrics')).text(), 'coffer_users')).toBe(gauge(before, 'coffer_users') + 1);
  });
  it('labels by route template, never by raw path', async () => {
    await srv.fetch('/api/no/such/secret-name.txt');
    const text = await (await srv.fetch('/metrics')).text();
    expect(text).not.toContain('secret-name');
  });
  it('refuses a non-loopback client', async () => {
    // The peer is loopback, but with the proxy trusted the client address is the forwarded one.
    const res = await srvProxy.fetch('/metrics', { headers: { 'X-Forwarded-For': '203.0.113.9' } });
    expect(res.status).toBe(403);
  });
  const srvProxy = useServer({ trustedProxies: ['127.0.0.1'] });
});

describe('GET /metrics with a metrics token', () => {
  const srv = useServer({ metricsToken: 'm-secret-token' });
  it('answers 401 without the bearer token, even from loopback', async () => {
    expect((await srv.fetch('/metrics')).status).toBe(401);
    expect((await srv.fetch('/metrics', { headers: { Authorization: 'Bearer wrong' } })).status).toBe(401);
  });
  it('answers 200 with the bearer token', async () => {
    expect((await srv.fetch('/metrics', { headers: { Authorization: 'Bearer m-secret-token' } })).status).toBe(200);
  });
  it('never accepts a user session token', async () => {
    const token = await srv.login().catch(() => 'a.b.c');
    expect((await srv.fetch('/metrics', { token })).status).toBe(401);
  });
});
