import { createHmac } from 'node:crypto';
import { SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { verifyHs256 } from './tokens.js';

const key = new Uint8Array(64).fill(7);
const NOW = 1_800_000_000;
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/** A token with any header and claims, signed with HS256 over exactly those bytes. */
function forge(header: Record<string, unknown>, claims: unknown, k: Uint8Array = key): string {
  const input = `${b64(header)}.${b64(claims)}`;
  return `${input}.${createHmac('sha256', k).update(input).digest('base64url')}`;
}
const good = { user: { id: 1 }, jti: 'j', iat: NOW - 10, exp: NOW + 60 };

describe('verifyHs256 (S20: HS256 only, exp and jti required)', () => {
  it('accepts what jose signs and returns its claims', async () => {
    const t = await new SignJWT({ user: { id: 3 } })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt(NOW)
      .setExpirationTime(NOW + 5)
      .setJti('x')
      .sign(key);
    expect(verifyHs256(t, key, NOW)).toMatchObject({ user: { id: 3 }, jti: 'x', exp: NOW + 5 });
    expect(verifyHs256(forge({ alg: 'HS256' }, good), key, NOW)).not.toBeNull();
  });

  it('refuses other algorithms, a wrong key or a changed payload', async () => {
    expect(verifyHs256(new UnsecuredJWT(good).encode(), key, NOW)).toBeNull();
    expect(verifyHs256(forge({ alg: 'none' }, good), key, NOW)).toBeNull();
    expect(verifyHs256(forge({ alg: 'HS512' }, good), key, NOW)).toBeNull();
    expect(verifyHs256(forge({ alg: 'HS256' }, good, new Uint8Array(64).fill(8)), key, NOW)).toBeNull();
    const [h, , s] = forge({ alg: 'HS256' }, good).split('.');
    expect(verifyHs256(`${h}.${b64({ ...good, user: { id: 2 } })}.${s}`, key, NOW)).toBeNull();
    expect(verifyHs256(`${h}.${b64(good)}.${s}x`, key, NOW)).toBeNull();
    expect(verifyHs256(forge({ alg: 'HS256', crit: ['exp'] }, good), key, NOW)).toBeNull();
  });

  it('checks exp (required, > now), nbf and iat types, jti presence and the claims shape', () => {
    const v = (claims: unknown) => verifyHs256(forge({ alg: 'HS256' }, claims), key, NOW);
    expect(v({ ...good, exp: NOW })).toBeNull(); // exp == now is expired
    expect(v({ ...good, exp: NOW + 1 })).not.toBeNull();
    expect(v({ ...good, exp: undefined })).toBeNull();
    expect(v({ ...good, exp: String(NOW + 60) })).toBeNull();
    expect(v({ ...good, jti: undefined })).toBeNull();
    expect(v({ ...good, iat: 'yesterday' })).toBeNull();
    expect(v({ ...good, nbf: NOW + 1 })).toBeNull();
    expect(v({ ...good, nbf: NOW })).not.toBeNull();
    expect(v([good])).toBeNull();
    expect(verifyHs256('a.b', key, NOW)).toBeNull();
    expect(verifyHs256('!!!.!!!.!!!', key, NOW)).toBeNull();
    // allowExpired verifies with now = 0
    expect(verifyHs256(forge({ alg: 'HS256' }, { ...good, exp: 5 }), key, 0)).not.toBeNull();
  });
});

describe('verifyHs256 signature spelling', () => {
  it('refuses a signature whose last character differs only in its spare bits', () => {
    const key = new Uint8Array(32).fill(7);
    const h = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
    const p = Buffer.from(JSON.stringify({ exp: 4102444800, jti: 'j', user: { id: 1 } })).toString('base64url');
    const sig = createHmac('sha256', key).update(`${h}.${p}`).digest('base64url');
    expect(verifyHs256(`${h}.${p}.${sig}`, key, 1000)).not.toBeNull();
    // 32 bytes → 43 characters: the last one carries 2 spare bits.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(sig.at(-1)!);
    const twin = sig.slice(0, -1) + alphabet[last ^ 1];
    expect(Buffer.from(twin, 'base64url').equals(Buffer.from(sig, 'base64url'))).toBe(true);
    expect(verifyHs256(`${h}.${p}.${twin}`, key, 1000)).toBeNull();
  });
});
