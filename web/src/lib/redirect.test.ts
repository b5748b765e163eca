import { describe, expect, it } from 'vitest';
import { DEFAULT_AFTER_LOGIN, loginLocation, safeRedirect } from './redirect';

describe('safeRedirect', () => {
  it('follows a path inside the app, query and hash included', () => {
    expect(safeRedirect('/files/docs/a%20b/?x=1#h')).toBe('/files/docs/a%20b/?x=1#h');
  });
  it.each([
    null,
    '',
    'files/',
    'https://evil.example/',
    '//evil.example/x',
    '/\\evil.example',
    '/files/\u0000',
    '/login',
    '/login?redirect=/x',
  ])('refuses %j', (raw) => {
    expect(safeRedirect(raw)).toBe(DEFAULT_AFTER_LOGIN);
  });
});

describe('loginLocation', () => {
  it('carries the target back', () => {
    expect(loginLocation('/files/a b/?q=1')).toBe('/login?redirect=%2Ffiles%2Fa%20b%2F%3Fq%3D1');
  });
  it('opens sign-up mode with the way back', () => {
    expect(loginLocation('/share/abc/sub/', true)).toBe(
      '/login?mode=signup&redirect=%2Fshare%2Fabc%2Fsub%2F',
    );
    expect(loginLocation('/', true)).toBe('/login?mode=signup');
  });
  it('needs no redirect for the root or the login page itself', () => {
    expect(loginLocation('/')).toBe('/login');
    expect(loginLocation('/login?redirect=/x')).toBe('/login');
  });
});
