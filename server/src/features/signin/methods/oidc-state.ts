/**
 * The OIDC flow's state between the redirect to the provider and the callback (docs/api.md §2.13):
 * a JWE (dir, A256GCM: encrypted and authenticated) in an HttpOnly cookie of this browser, ten
 * minutes long, under a key derived from the instance signing key that every instance reads from
 * the database. Nothing is kept in one process, so the callback may reach any instance.
 */
import { hkdf } from 'node:crypto';
import { promisify } from 'node:util';
import { EncryptJWT, jwtDecrypt } from 'jose';
import type { OidcPending } from './oidc.js';

export const OIDC_STATE_COOKIE = 'coffer_oidc';
export const OIDC_SESSION_COOKIE = 'coffer_oidc_session';
export const OIDC_STATE_SECONDS = 600;
/** How long the signed-in token waits in its cookie for the page to fetch it. */
export const OIDC_SESSION_SECONDS = 120;

const derive = promisify(hkdf);

export async function stateKey(signingKey: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await derive('sha256', signingKey, 'coffer', 'coffer oidc state cookie v1', 32));
}

export async function sealState(key: Uint8Array, pending: OidcPending, purpose: string): Promise<string> {
  return new EncryptJWT({ ...pending })
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
    .setIssuedAt()
    .setAudience(purpose)
    .setExpirationTime(`${OIDC_STATE_SECONDS}s`)
    .encrypt(key);
}

/** The pending flow, or null when the cookie is missing, tampered with, expired or for another purpose. */
export async function openState(key: Uint8Array, sealed: string | undefined, purpose: string): Promise<OidcPending | null> {
  if (!sealed || sealed.length > 8192) return null;
  try {
    const { payload } = await jwtDecrypt(sealed, key, { audience: purpose });
    const { state, nonce, verifier, back } = payload;
    if (typeof state !== 'string' || typeof nonce !== 'string' || typeof verifier !== 'string' || typeof back !== 'string') return null;
    return { state, nonce, verifier, back };
  } catch {
    return null;
  }
}
