import { describe, expect, it } from 'vitest';
import { useServer } from './harness.js';

describe('GET /health and /ready', () => {
  const srv = useServer();
  it('answers 200 {"status":"OK"} without a token', async () => {
    const res = await srv.fetch('/health');
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"status":"OK"}');
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
  it('echoes a well-formed X-Request-Id and replaces a malformed one', async () => {
    expect((await srv.fetch('/health', { headers: { 'X-Request-Id': 'abc.123_X-y' } })).headers.get('x-request-id')).toBe('abc.123_X-y');
    expect((await srv.fetch('/health', { headers: { 'X-Request-Id': 'bad id!' } })).headers.get('x-request-id')).not.toBe('bad id!');
  });
  it('reports readiness once the database answers', async () => {
    const res = await srv.fetch('/ready');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready' });
  });
  it('answers 503 on /ready while shutting down', async () => {
    srv.deps.lifecycle.closing = true;
    try {
      const res = await srv.fetch('/ready');
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
    } finally {
      srv.deps.lifecycle.closing = false;
    }
  });
  it('sends nosniff on every answer', async () => {
    expect((await srv.fetch('/health')).headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('base URL', () => {
  const srv = useServer({ baseURL: '/coffer' });
  it('answers health under the prefix and redirects the bare prefix', async () => {
    expect((await srv.fetch('/health')).status).toBe(200);
    const origin = srv.url.replace(/\/coffer$/, '');
    const res = await fetch(origin + '/coffer', { redirect: 'manual' });
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('/coffer/');
  });
});
