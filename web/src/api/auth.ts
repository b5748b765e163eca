/** Session calls (spec §7 "Session", api.md §2, E5). */
import { clearSession, currentToken, setToken } from '../stores/session';
import { request } from './client';

export async function login(username: string, password: string, recaptcha = ''): Promise<string> {
  const res = await request('/login', {
    method: 'POST',
    json: { username, password, recaptcha },
    token: false,
  });
  return (await res.text()).trim();
}

export async function signup(username: string, password: string): Promise<void> {
  await request('/signup', { method: 'POST', json: { username, password }, token: false });
}

/** POST /api/renew with `token` (default: the session's); returns the new token. */
export async function renewToken(token: string): Promise<string> {
  const res = await request('/renew', { method: 'POST', token });
  return (await res.text()).trim();
}

let renewing: Promise<void> | null = null;

/**
 * Replaces the session token with a fresh one. Concurrent answers asking for renewal share one
 * call. A 401 here means the session is over.
 */
export function renewSession(): Promise<void> {
  const token = currentToken();
  if (!token) return Promise.resolve();
  renewing ??= renewToken(token)
    .then((fresh) => {
      // Keep a token that changed meanwhile (logout, another login).
      if (currentToken() === token) setToken(fresh);
    })
    .finally(() => {
      renewing = null;
    });
  return renewing;
}

/** E5: ends the session on the server, then forgets it here whatever the server answered. */
export async function logoutSession(): Promise<void> {
  const token = currentToken();
  try {
    if (token) await request('/logout', { method: 'POST', token });
  } catch {
    // The token is dropped anyway; an unreachable server must not keep the user signed in here.
  } finally {
    clearSession();
  }
}
