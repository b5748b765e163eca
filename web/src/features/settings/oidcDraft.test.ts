import { describe, expect, it } from 'vitest';
import type { OidcSettings } from '@coffer/protocol';
import { draftOf, inputOf, keepsStoredSecret, oidcProblems, serverProblems } from './oidcDraft';

const stored: OidcSettings = {
  method: 'json',
  issuer: 'https://auth.example.com',
  clientId: 'coffer',
  clientSecretSet: true,
  scopes: 'openid profile',
  usernameClaim: 'preferred_username',
  createUsers: true,
  adminClaim: '',
  adminValue: '',
  name: 'Auth',
  redirectUrl: 'https://files.example.com/api/oidc/callback',
  passwordLogin: true,
  linkExisting: false,
};

describe('the OIDC card draft', () => {
  it('finds what the server finds: a loopback provider written as an IPv4-mapped address is fine', () => {
    // The card's own copy of the checks refused this while the server accepted it.
    const d = { ...draftOf({ ...stored, issuer: 'http://[::ffff:127.0.0.1]:5556/dex' }), method: 'oidc' };
    expect(oidcProblems(d)).toEqual({});
    expect(oidcProblems({ ...d, issuer: 'http://auth.example.com', newSecret: 's' })).toEqual({ issuer: 'https' });
    // A control character in a new secret is refused here too, before the round trip.
    expect(oidcProblems({ ...d, newSecret: 'a\u0007b' })).toEqual({ clientSecret: 'text' });
  });

  it('needs a secret only when none will be stored', () => {
    const d = { ...draftOf(stored), method: 'oidc' };
    expect(oidcProblems(d).clientSecret).toBeUndefined();
    expect(oidcProblems({ ...d, clearSecret: true }).clientSecret).toBe('required');
    expect(oidcProblems({ ...d, secretSet: false }).clientSecret).toBe('required');
    expect(oidcProblems({ ...d, secretSet: false, newSecret: 's3cret' }).clientSecret).toBeUndefined();
    expect(oidcProblems({ ...d, method: 'json', clearSecret: true }).clientSecret).toBeUndefined();
  });

  it('does not count the stored secret for another issuer, as the server does not', () => {
    const d = { ...draftOf(stored), method: 'oidc' };
    expect(keepsStoredSecret(d)).toBe(true);
    expect(keepsStoredSecret({ ...d, issuer: ' https://auth.example.com ' })).toBe(true);
    const moved = { ...d, issuer: 'https://other.example.com' };
    expect(keepsStoredSecret(moved)).toBe(false);
    expect(oidcProblems(moved).clientSecret).toBe('required');
    expect(oidcProblems({ ...moved, newSecret: 'new' }).clientSecret).toBeUndefined();
  });

  it('sends null to clear the secret, the new one to replace it, nothing to keep it', () => {
    const d = draftOf(stored);
    expect('clientSecret' in inputOf(d)).toBe(false);
    expect(inputOf({ ...d, newSecret: 'x' }).clientSecret).toBe('x');
    expect(inputOf({ ...d, newSecret: 'x', clearSecret: true }).clientSecret).toBeNull();
    expect(inputOf({ ...d, method: 'proxy' }).method).toBeUndefined();
  });

  it('reads the fields of a 422 answer, and nothing else', () => {
    expect(serverProblems('{"error":"invalid","fields":{"issuer":"https"}}')).toEqual({ issuer: 'https' });
    expect(serverProblems('{"error":"other"}')).toBeNull();
    expect(serverProblems('not json')).toBeNull();
  });
});
