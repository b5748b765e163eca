import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { configureClient } from '../../api/client';
import { config } from '../../config';
import { sendEarlyListing } from '../../early';
import { clearSession, setToken, useSession } from '../../stores/session';
import {
  filesPathOf,
  loadResource,
  prefetchAfterSession,
  prefetchBeforeSession,
  resetPrefetch,
} from './prefetch';

let serial = 0;
/** An unsigned JWT for user `userId`, a new one on every call. */
function fakeJwt(userId: number, expSeconds = Date.now() / 1000 + 3600): string {
  const b64 = (s: string) => btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  const payload = { user: { id: userId, perm: {} }, exp: Math.floor(expSeconds), jti: String(++serial) };
  return `${b64('{"alg":"HS256"}')}.${b64(JSON.stringify(payload))}.sig`;
}

const listing = (name: string) => ({ path: `/${name}/`, name, isDir: true, items: [] });

/** A fetch that answers each call with the next of `answers` (status + body, or a thrown error). */
function fetchAnswering(...answers: ({ status: number; body?: unknown } | Error)[]) {
  const calls: { url: string; token: string | null; signal: AbortSignal | null | undefined }[] = [];
  const fetch = vi.fn(async (url: string, init: RequestInit) => {
    calls.push({ url, token: new Headers(init.headers).get('X-Auth'), signal: init.signal });
    const next = answers.shift();
    if (!next) throw new Error('unexpected request');
    if (next instanceof Error) throw next;
    return new Response(JSON.stringify(next.body ?? {}), { status: next.status });
  });
  vi.stubGlobal('fetch', fetch);
  return calls;
}

const signal = () => new AbortController().signal;

describe('filesPathOf', () => {
  it('reads the virtual path of a /files route as the router does', () => {
    expect(filesPathOf('/files/big/', '')).toBe('/big/');
    expect(filesPathOf('/files', '')).toBe('/');
    expect(filesPathOf('/files/', '')).toBe('/');
    expect(filesPathOf('/files/Reports%202024/a%20b.txt', '')).toBe('/Reports 2024/a b.txt');
    expect(filesPathOf('/files/a%2Fb/', '')).toBe('/a/b/');
    expect(filesPathOf('/files//deep//x/', '')).toBe('/deep/x/');
    expect(filesPathOf('/FILES/x/', '')).toBe('/x/');
  });

  it('is null for other routes', () => {
    expect(filesPathOf('/', '')).toBeNull();
    expect(filesPathOf('/login', '')).toBeNull();
    expect(filesPathOf('/filesx/a', '')).toBeNull();
    expect(filesPathOf('/settings/profile', '')).toBeNull();
    expect(filesPathOf('/share/abc/', '')).toBeNull();
  });

  it('strips the base URL, and nothing outside it is a /files route', () => {
    expect(filesPathOf('/fb/files/a/', '/fb')).toBe('/a/');
    expect(filesPathOf('/fb/files', '/fb')).toBe('/');
    expect(filesPathOf('/files/a/', '/fb')).toBeNull();
    expect(filesPathOf('/fbx/files/a/', '/fb')).toBeNull();
    expect(filesPathOf('/fb/files/files/a/', '/fb')).toBe('/files/a/');
  });
});

describe('prefetch of the first listing', () => {
  const onUnauthorized = vi.fn();
  beforeEach(() => {
    resetPrefetch();
    clearSession();
    configureClient({ onRenew: () => undefined, onUnauthorized });
    Object.assign(config, { NoAuth: false, LoginPage: true, BaseURL: '' });
  });
  afterEach(() => {
    resetPrefetch();
    clearSession();
    vi.unstubAllGlobals();
    onUnauthorized.mockReset();
  });

  it('asks for the listing with the stored token before the session exists, and hands it over once', async () => {
    const stored = fakeJwt(1);
    localStorage.setItem('jwt', stored);
    const calls = fetchAnswering({ status: 200, body: listing('big') }, { status: 200, body: listing('fresh') });
    expect(prefetchBeforeSession('/files/big/')).toBe('/big/');
    expect(calls).toEqual([expect.objectContaining({ url: '/api/resources/big/', token: stored })]);
    setToken(fakeJwt(1)); // the renewed token: same user
    expect((await loadResource('/big/', signal())).name).toBe('big');
    expect(calls).toHaveLength(1);
    // Later listings of the same path are fresh.
    expect((await loadResource('/big/', signal())).name).toBe('fresh');
    expect(calls).toHaveLength(2);
  });

  describe('with the GET the early script sent', () => {
    afterEach(() => {
      window.history.replaceState(null, '', '/');
      delete window.__cofferEarlyListing;
    });

    it('sends nothing when it runs after the app has looked for it (it is async)', () => {
      localStorage.setItem('jwt', fakeJwt(1));
      window.history.replaceState(null, '', '/files/big/');
      const calls = fetchAnswering({ status: 200, body: listing('big') });
      delete window.__cofferEarlyListing;
      prefetchBeforeSession('/files/big/');
      sendEarlyListing();
      expect(calls).toHaveLength(1);
      expect(window.__cofferEarlyListing).toBeNull();
    });

    it('a refused early GET (401) does not end the session; the fallback asks again', async () => {
      const stored = fakeJwt(1);
      localStorage.setItem('jwt', stored);
      window.history.replaceState(null, '', '/files/big/');
      const calls = fetchAnswering({ status: 401, body: '401 Unauthorized' }, { status: 200, body: listing('big') });
      sendEarlyListing();
      prefetchBeforeSession('/files/big/');
      const session = fakeJwt(1);
      setToken(session);
      expect((await loadResource('/big/', signal())).name).toBe('big');
      expect(calls.map((c) => c.token)).toEqual([stored, session]);
      expect(onUnauthorized).not.toHaveBeenCalled();
    });

    it('takes it when it asked for the same URL with the same token: one request in all', async () => {
      const stored = fakeJwt(1);
      localStorage.setItem('jwt', stored);
      window.history.replaceState(null, '', '/files/big/');
      const calls = fetchAnswering({ status: 200, body: listing('big') }, { status: 200, body: listing('again') });
      sendEarlyListing();
      expect(calls).toEqual([expect.objectContaining({ url: '/api/resources/big/', token: stored })]);
      expect(prefetchBeforeSession('/files/big/')).toBe('/big/');
      setToken(fakeJwt(1));
      expect((await loadResource('/big/', signal())).name).toBe('big');
      expect(calls).toHaveLength(1);
      expect(calls[0]?.signal?.aborted).toBe(false);
    });

    it('drops it for another token or another URL, and asks itself', () => {
      localStorage.setItem('jwt', fakeJwt(1));
      window.history.replaceState(null, '', '/files/Reports%202024/');
      const calls = fetchAnswering({ status: 200 }, { status: 200 });
      sendEarlyListing();
      const newer = fakeJwt(1);
      localStorage.setItem('jwt', newer);
      prefetchBeforeSession('/files/Reports%202024/');
      expect(calls[0]?.signal?.aborted).toBe(true);
      expect(calls[1]).toMatchObject({ url: '/api/resources/Reports%202024/', token: newer });
    });

    it('drops it when the stored token has expired, and sends nothing off the /files routes', () => {
      localStorage.setItem('jwt', fakeJwt(1, Date.now() / 1000 - 10));
      window.history.replaceState(null, '', '/files/big/');
      const calls = fetchAnswering({ status: 401 });
      sendEarlyListing();
      expect(prefetchBeforeSession('/files/big/')).toBeNull();
      expect(calls[0]?.signal?.aborted).toBe(true);
      window.history.replaceState(null, '', '/filesx/big/');
      sendEarlyListing();
      window.history.replaceState(null, '', '/settings/profile');
      sendEarlyListing();
      expect(calls).toHaveLength(1);
    });
  });

  it('encodes the path like the listing does and keeps the base URL', () => {
    config.BaseURL = '/fb';
    localStorage.setItem('jwt', fakeJwt(1));
    const calls = fetchAnswering({ status: 200, body: listing('x') });
    expect(prefetchBeforeSession('/fb/files/Reports%202024/')).toBe('/Reports 2024/');
    expect(calls[0]?.url).toBe('/fb/api/resources/Reports%202024/');
  });

  it('asks nothing without a stored token, with an expired one, or off the /files routes', () => {
    const calls = fetchAnswering();
    expect(prefetchBeforeSession('/files/big/')).toBeNull();
    localStorage.setItem('jwt', fakeJwt(1, Date.now() / 1000 - 10));
    expect(prefetchBeforeSession('/files/big/')).toBeNull();
    localStorage.setItem('jwt', fakeJwt(1));
    expect(prefetchBeforeSession('/settings/profile')).toBeNull();
    expect(calls).toEqual([]);
  });

  it('without a login form (no-auth, proxy) waits for the session, then asks with its token', async () => {
    config.NoAuth = true;
    localStorage.setItem('jwt', fakeJwt(1));
    const calls = fetchAnswering({ status: 200, body: listing('big') });
    expect(prefetchBeforeSession('/files/big/')).toBe('/big/');
    expect(calls).toEqual([]);
    const token = fakeJwt(1);
    setToken(token);
    prefetchAfterSession('/big/');
    expect(calls).toEqual([expect.objectContaining({ token })]);
    expect((await loadResource('/big/', signal())).name).toBe('big');
  });

  it('asks only once per page load', () => {
    localStorage.setItem('jwt', fakeJwt(1));
    const calls = fetchAnswering({ status: 200, body: listing('big') });
    prefetchBeforeSession('/files/big/');
    setToken(fakeJwt(1));
    prefetchAfterSession('/big/');
    expect(calls).toHaveLength(1);
  });

  it('is not used for another path, and stops', async () => {
    localStorage.setItem('jwt', fakeJwt(1));
    const calls = fetchAnswering({ status: 200, body: listing('big') }, { status: 200, body: listing('other') });
    prefetchBeforeSession('/files/big/');
    setToken(fakeJwt(1));
    expect((await loadResource('/other/', signal())).name).toBe('other');
    expect(calls[0]?.signal?.aborted).toBe(true);
    // Nor later for its own path: only the first listing after the load may use it.
    fetchAnswering({ status: 200, body: listing('fresh') });
    expect((await loadResource('/big/', signal())).name).toBe('fresh');
  });

  it('is never shown to another user', async () => {
    localStorage.setItem('jwt', fakeJwt(1));
    fetchAnswering({ status: 200, body: listing('secret') });
    prefetchBeforeSession('/files/big/');
    setToken(fakeJwt(2));
    const calls = fetchAnswering({ status: 200, body: listing('mine') });
    expect((await loadResource('/big/', signal())).name).toBe('mine');
    expect(calls).toHaveLength(1);
  });

  it('is dropped when the session ends (a refused renewal), even if the same user signs in again', async () => {
    localStorage.setItem('jwt', fakeJwt(1));
    const first = fetchAnswering({ status: 200, body: listing('old') });
    prefetchBeforeSession('/files/big/');
    clearSession();
    expect(first[0]?.signal?.aborted).toBe(true);
    setToken(fakeJwt(1));
    const calls = fetchAnswering({ status: 200, body: listing('new') });
    expect((await loadResource('/big/', signal())).name).toBe('new');
    expect(calls).toHaveLength(1);
  });

  it('falls back to a normal request when the prefetch failed; its 401 does not end the session', async () => {
    const stored = fakeJwt(1);
    localStorage.setItem('jwt', stored);
    const calls = fetchAnswering({ status: 401, body: '401 Unauthorized' }, { status: 200, body: listing('big') });
    prefetchBeforeSession('/files/big/');
    const session = fakeJwt(1);
    setToken(session);
    expect((await loadResource('/big/', signal())).name).toBe('big');
    expect(calls.map((c) => c.token)).toEqual([stored, session]);
    expect(onUnauthorized).not.toHaveBeenCalled();
  });

  it('falls back on a lost connection, and the normal request still ends the session on 401', async () => {
    localStorage.setItem('jwt', fakeJwt(1));
    fetchAnswering(new TypeError('Failed to fetch'), { status: 401, body: '401 Unauthorized' });
    prefetchBeforeSession('/files/big/');
    setToken(fakeJwt(1));
    await expect(loadResource('/big/', signal())).rejects.toMatchObject({ status: 401 });
    expect(onUnauthorized).toHaveBeenCalledOnce();
  });

  it('stops the prefetch when the listing is abandoned', async () => {
    localStorage.setItem('jwt', fakeJwt(1));
    const calls = fetchAnswering({ status: 200, body: listing('big') });
    prefetchBeforeSession('/files/big/');
    setToken(fakeJwt(1));
    const leaving = new AbortController();
    const answer = loadResource('/big/', leaving.signal);
    leaving.abort();
    expect(calls[0]?.signal?.aborted).toBe(true);
    await answer.catch(() => undefined);
    expect(useSession.getState().user?.id).toBe(1);
  });
});
