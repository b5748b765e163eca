/** Session calls (docs/client.md §7 "Session", docs/api.md §2, E5). */
import { clearSession, currentToken, setToken } from '../stores/session';
import { request } from './client';

/** POST /api/login; `otp` is the second factor's code when the server asked for one (docs/api.md §2.12). */
export async function login(username: string, password: string, recaptcha = '', otp?: string): Promise<string> {
  const res = await request('/login', {
    method: 'POST',
    json: { username, password, recaptcha, ...(otp === undefined ? {} : { otp }) },
    token: false,
  });
  return (await res.text()).trim();
}

export async function signup(username: string, password: string): Promise<void> {
  await request('/signup', { method: 'POST', json: { username, password }, token: false });
}

/** POST /api/oidc/session: the session the OIDC callback left for this browser (docs/api.md §2.13). */
export async function oidcSession(): Promise<string> {
  const res = await request('/oidc/session', { method: 'POST', token: false });
  return (await res.text()).trim();
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
