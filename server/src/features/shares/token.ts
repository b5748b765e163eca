/**
 * S44: the download token of a password-protected share. Not stored: an HMAC over the share hash,
 * the share's current password hash and the expiry time, keyed with a key derived from the
 * server's signing key. It opens only its own share, for one hour, and dies when the password
 * (hash) changes or the share is gone. Form: `<expiry, base 36>.<mac, base64url>` (URL-safe).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const SHARE_TOKEN_TTL_S = 3600; // S44

/** A key for share tokens only, so that nothing else signed with the server key can pass as one. */
export function deriveShareTokenKey(signingKey: Uint8Array): Buffer {
  return createHmac('sha256', signingKey).update('coffer share download token v1').digest();
}

function mac(key: Uint8Array, hash: string, passwordHash: string, exp: number): Buffer {
  return createHmac('sha256', key).update(`${hash}\0${passwordHash}\0${exp}`).digest();
}

export function issueShareToken(key: Uint8Array, share: { hash: string; passwordHash: string }, nowS: number): string {
  const exp = nowS + SHARE_TOKEN_TTL_S;
  return `${exp.toString(36)}.${mac(key, share.hash, share.passwordHash, exp).toString('base64url')}`;
}

const TOKEN = /^([0-9a-z]{1,11})\.([A-Za-z0-9_-]{43})$/;

export function verifyShareToken(
  key: Uint8Array,
  share: { hash: string; passwordHash: string },
  token: string,
  nowS: number,
): boolean {
  const m = TOKEN.exec(token);
  if (!m) return false;
  const exp = parseInt(m[1]!, 36);
  if (!Number.isSafeInteger(exp) || exp <= nowS || exp > nowS + SHARE_TOKEN_TTL_S) return false;
  // Compared as text: decoding would ignore the spare bits of the last character, so a token
  // altered there would still pass.
  const given = Buffer.from(m[2]!, 'latin1');
  const want = Buffer.from(mac(key, share.hash, share.passwordHash, exp).toString('base64url'), 'latin1');
  return given.length === want.length && timingSafeEqual(given, want);
}

/** SHA-256 (hex) of a File Browser share token, as an import keeps it (migration 006). */
export function legacyTokenDigest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Does `token` hash to the kept digest? Digests of equal length, compared in constant time. */
export function matchesLegacyToken(digestHex: string, token: string): boolean {
  const want = Buffer.from(digestHex, 'latin1');
  const given = Buffer.from(legacyTokenDigest(token), 'latin1');
  return want.length === given.length && timingSafeEqual(want, given);
}
