import { describe, expect, it } from 'vitest';
import { deriveShareTokenKey, issueShareToken, SHARE_TOKEN_TTL_S, verifyShareToken } from './token.js';

const key = deriveShareTokenKey(new Uint8Array(64).fill(7));
const share = { hash: 'pQ3v0-Hk2mXcYt9bW1sL8A', passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$abc$def' };
const now = 1_700_000_000;

describe('share download tokens (S44)', () => {
  it('are URL-safe, at least 16 characters, and open their own share', () => {
    const t = issueShareToken(key, share, now);
    expect(t).toMatch(/^[0-9a-z]+\.[A-Za-z0-9_-]{43}$/);
    expect(t.length).toBeGreaterThanOrEqual(16);
    expect(verifyShareToken(key, share, t, now)).toBe(true);
    expect(verifyShareToken(key, share, t, now + SHARE_TOKEN_TTL_S - 1)).toBe(true);
  });

  it('expire after one hour', () => {
    const t = issueShareToken(key, share, now);
    expect(verifyShareToken(key, share, t, now + SHARE_TOKEN_TTL_S)).toBe(false);
    expect(verifyShareToken(key, share, t, now + 10 * SHARE_TOKEN_TTL_S)).toBe(false);
  });

  it('are bound to the share hash, its password hash and the server key', () => {
    const t = issueShareToken(key, share, now);
    expect(verifyShareToken(key, { ...share, hash: 'other-share-hash-000000' }, t, now)).toBe(false);
    expect(verifyShareToken(key, { ...share, passwordHash: share.passwordHash + 'x' }, t, now)).toBe(false);
    expect(verifyShareToken(deriveShareTokenKey(new Uint8Array(64).fill(8)), share, t, now)).toBe(false);
  });

  it('refuse any altered character, the spare bits of the last one included', () => {
    const t = issueShareToken(key, share, now);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let i = 0; i < t.length; i++) {
      if (t[i] === '.') continue;
      for (const c of i < t.indexOf('.') ? '0123456789abcdefghijklmnopqrstuvwxyz' : alphabet) {
        if (c === t[i]) continue;
        const altered = t.slice(0, i) + c + t.slice(i + 1);
        expect(verifyShareToken(key, share, altered, now), altered).toBe(false);
      }
    }
  });

  it('refuse tokens that claim a longer life, malformed ones and the empty string', () => {
    const t = issueShareToken(key, share, now);
    const mac = t.split('.')[1]!;
    expect(verifyShareToken(key, share, `${(now + 2 * SHARE_TOKEN_TTL_S).toString(36)}.${mac}`, now)).toBe(false);
    for (const bad of ['', '.', 'abc', `${t}.x`, t.replace('.', ''), t + '=', ` ${t}`, 'zzzzzzzzzzzz.' + mac]) {
      expect(verifyShareToken(key, share, bad, now), bad).toBe(false);
    }
  });
});
