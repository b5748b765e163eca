import type { TokenPayload } from '@coffer/protocol';

/**
 * Reads a JWT's payload without verifying it (docs/api.md §2.1: the client only uses `user` and `exp`;
 * the server checks the signature). Throws on anything that is not a JWT with a user and exp.
 */
export function decodeToken(jwt: string): TokenPayload {
  const parts = jwt.split('.');
  if (parts.length !== 3 || !parts[1]) throw new Error('not a JWT');
  const b64 = parts[1].replace(/-/g, '+').replace(/_/g, '/');
  const padded = b64 + '='.repeat((4 - (b64.length % 4)) % 4);
  const bytes = Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
  const payload = JSON.parse(new TextDecoder().decode(bytes)) as Partial<TokenPayload>;
  if (typeof payload.exp !== 'number' || typeof payload.user !== 'object' || payload.user === null) {
    throw new Error('JWT without user or exp');
  }
  return payload as TokenPayload;
}

/** True when the token's `exp` (Unix seconds) is at or before `nowMs`. */
export function isExpired(payload: Pick<TokenPayload, 'exp'>, nowMs = Date.now()): boolean {
  return payload.exp * 1000 <= nowMs;
}
