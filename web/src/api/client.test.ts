import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useSession } from '../stores/session';
import { configureClient, request } from './client';
import { ApiError } from './errors';

const onRenew = vi.fn();
const onUnauthorized = vi.fn();

function answer(status: number, body = '', headers: Record<string, string> = {}) {
  return vi.fn(async () => new Response(status === 204 ? null : body, { status, headers }));
}

describe('request', () => {
  beforeEach(() => {
    configureClient({ onRenew, onUnauthorized });
    useSession.setState({ token: 'a.b.c', user: null, expiresAt: 0 });
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    onRenew.mockReset();
    onUnauthorized.mockReset();
  });

  it('sends the session token in X-Auth and JSON bodies as JSON', async () => {
    const fetch = answer(200, '{}');
    vi.stubGlobal('fetch', fetch);
    await request('/users/1', { method: 'PUT', json: { what: 'user' } });
    const [url, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/api/users/1');
    const headers = new Headers(init.headers);
    expect(headers.get('X-Auth')).toBe('a.b.c');
    expect(headers.get('Content-Type')).toBe('application/json');
    expect(init.body).toBe('{"what":"user"}');
  });

  it('asks for renewal when the answer carries X-Renew-Token: true', async () => {
    vi.stubGlobal('fetch', answer(200, '{}', { 'X-Renew-Token': 'true' }));
    await request('/usage/');
    expect(onRenew).toHaveBeenCalledOnce();
  });

  it('ends the session on a 401 to an authenticated call, and throws', async () => {
    vi.stubGlobal('fetch', answer(401, '401 Unauthorized\n'));
    await expect(request('/usage/')).rejects.toMatchObject({ status: 401, message: '401 Unauthorized' });
    expect(onUnauthorized).toHaveBeenCalledOnce();
  });

  it('does not end the session for a call made without the session token (login)', async () => {
    vi.stubGlobal('fetch', answer(401));
    await expect(request('/login', { method: 'POST', token: false })).rejects.toBeInstanceOf(ApiError);
    expect(onUnauthorized).not.toHaveBeenCalled();
  });

  it("throws the server's text with the status, and Retry-After on 429", async () => {
    vi.stubGlobal('fetch', answer(429, '', { 'Retry-After': '42' }));
    const err = (await request('/login', { method: 'POST', token: false }).catch(
      (e: unknown) => e,
    )) as ApiError;
    expect(err.status).toBe(429);
    expect(err.retryAfter).toBe(42);
    expect(err.message).toBe('429');
  });

  it("maps a network failure to status 0 '000 No connection', flagged when aborted", async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))),
    );
    await expect(request('/usage/')).rejects.toMatchObject({
      status: 0,
      message: '000 No connection',
      canceled: false,
    });
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Promise.reject(new DOMException('aborted', 'AbortError'))),
    );
    await expect(request('/usage/')).rejects.toMatchObject({ status: 0, canceled: true });
  });
});
