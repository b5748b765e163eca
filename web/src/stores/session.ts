/**
 * The signed-in session (docs/client.md §4 "Auth"): the token, kept in local storage under `jwt` and in
 * the `auth` cookie, and the user read from its payload. Network calls live in api/auth.ts.
 */
import type { TokenUser } from '@coffer/protocol';
import { create } from 'zustand';
import { clearAuthCookie, setAuthCookie } from '../lib/cookies';
import { decodeToken, isExpired } from '../lib/jwt';

const STORAGE_KEY = 'jwt';

interface SessionState {
  token: string | null;
  user: TokenUser | null;
  /** Token expiry, Unix milliseconds (0 when signed out). */
  expiresAt: number;
}

export const useSession = create<SessionState>()(() => ({ token: null, user: null, expiresAt: 0 }));

/** Adopts a token from login or renewal; throws when it is not a usable JWT. */
export function setToken(jwt: string): void {
  const payload = decodeToken(jwt);
  localStorage.setItem(STORAGE_KEY, jwt);
  setAuthCookie(jwt);
  useSession.setState({ token: jwt, user: payload.user, expiresAt: payload.exp * 1000 });
}

/** Forgets the session everywhere (store, local storage, cookie). */
export function clearSession(): void {
  localStorage.removeItem(STORAGE_KEY);
  clearAuthCookie();
  useSession.setState({ token: null, user: null, expiresAt: 0 });
}

/** The token kept from an earlier visit, when it still decodes and has not expired. */
export function storedToken(): string | null {
  const jwt = localStorage.getItem(STORAGE_KEY);
  if (!jwt) return null;
  try {
    if (isExpired(decodeToken(jwt))) return null;
    return jwt;
  } catch {
    // docs/client.md §4: an invalid stored token logs a warning and the session is not restored.
    console.warn('Ignoring an invalid stored session token');
    return null;
  }
}

/**
 * The user the stored token names, unverified and whether or not it expired: only a guess for work
 * started before the session is restored (the language to fetch). Null when there is none.
 */
export function storedUserGuess(): TokenUser | null {
  try {
    const jwt = localStorage.getItem(STORAGE_KEY);
    return jwt ? decodeToken(jwt).user : null;
  } catch {
    return null;
  }
}

export function currentToken(): string | null {
  return useSession.getState().token;
}
