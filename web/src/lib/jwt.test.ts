import { describe, expect, it } from 'vitest';
import { decodeToken, isExpired } from './jwt';

function fakeJwt(payload: object): string {
  const b64 = (s: string) => btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  const body = b64(String.fromCharCode(...new TextEncoder().encode(JSON.stringify(payload))));
  return `${b64('{"alg":"HS256"}')}.${body}.sig`;
}

describe('decodeToken', () => {
  it('reads user and exp, UTF-8 included', () => {
    const p = decodeToken(fakeJwt({ user: { id: 1, username: 'zoë' }, exp: 10, iat: 1 }));
    expect(p.user.username).toBe('zoë');
    expect(p.exp).toBe(10);
  });
  it('throws on garbage', () => {
    expect(() => decodeToken('abc')).toThrow();
    expect(() => decodeToken(fakeJwt({ exp: 5 }))).toThrow();
  });
});

describe('isExpired', () => {
  it('compares exp seconds with now', () => {
    expect(isExpired({ exp: 100 }, 99_999)).toBe(false);
    expect(isExpired({ exp: 100 }, 100_000)).toBe(true);
  });
});
