import { describe, expect, it } from 'vitest';
import { isLoopbackHost, oidcProblems, plainEndpoint, urlProblem } from './oidc-checks.js';

const base = {
  issuer: 'https://auth.example.com',
  clientId: 'coffer',
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

describe('OIDC settings checks', () => {
  it('knows loopback hosts, and nothing else, as loopback', () => {
    for (const h of ['localhost', '127.0.0.1', '127.8.9.10', '[::1]', '::1', '::ffff:127.0.0.1', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '127.1', '2130706433', '0x7f.1', '[0:0:0:0:0:0:0:1]', 'LOCALHOST']) expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['10.0.0.1', '192.168.1.1', '0.0.0.0', 'localhost.example.com', 'example.com', '[::]', '::ffff:10.0.0.1', '', '[::7f00:1]', '128.0.0.1', '1.127.0.0', '127.0.0.1.example.com', '[::ffff:8000:1]', 'a b']) expect(isLoopbackHost(h), h).toBe(false);
  });

  it('does not take a name under .localhost for loopback: the resolver sends it to DNS', () => {
    // Only `localhost` is in the hosts file; glibc asks DNS (and the search domains) for
    // `x.localhost`, so plain http to it could leave the machine with the client secret.
    for (const h of ['a.localhost', 'evil.com.localhost', 'localhost.', 'a.localhost.']) expect(isLoopbackHost(h), h).toBe(false);
    for (const u of ['http://idp.localhost:5556/dex', 'http://evil%2ecom.localhost', 'http://evil.com\u2215.localhost']) expect(urlProblem(u), u).toBe('https');
  });

  it('wants https, or http on loopback, and nothing but a plain URL', () => {
    expect(urlProblem('https://auth.example.com/realms/x')).toBeNull();
    expect(urlProblem('http://127.0.0.1:8080')).toBeNull();
    expect(urlProblem('http://localhost')).toBeNull();
    expect(urlProblem('http://auth.example.com')).toBe('https');
    expect(urlProblem('http://2130706433')).toBeNull(); // the URL parser reads it as 127.0.0.1
    expect(urlProblem('http://0x7f000001.example.com')).toBe('https');
    // The client used to refuse what the server accepts: one copy of the checks now serves both.
    expect(urlProblem('http://[::ffff:127.0.0.1]:5556/dex')).toBeNull();
    expect(urlProblem('http://[::1]:5556/callback')).toBeNull();
    for (const bad of ['', 'auth', '//auth.example.com', 'file:///etc/passwd', 'data:,x', 'https://u:p@x.example', 'https://x.example/?a=1', 'https://x.example/#f', 'https://x.example/ a', 'https://x.example/?', 'https://x.example#', 'http://127.0.0.1/realms/x?']) {
      expect(urlProblem(bad), bad).toBe('url');
    }
  });

  it('lets the back channel use plain http only on loopback or on an http issuer\'s own origin', () => {
    expect(plainEndpoint('https://idp.example/realms/x', 'https://other.example/token')).toBe(false);
    expect(plainEndpoint('http://127.0.0.1:5556/dex', 'http://127.0.0.1:5556/dex/token')).toBe(false);
    expect(plainEndpoint('http://localhost:5556/dex', 'http://[::1]:9000/keys')).toBe(false);
    expect(plainEndpoint('http://keycloak.lan:8080/realms/x', 'http://keycloak.lan:8080/realms/x/token')).toBe(false);
    expect(plainEndpoint('http://127.0.0.1:5556/dex', 'http://auth.example.com/token')).toBe(true);
    expect(plainEndpoint('https://idp.example', 'http://idp.example/token')).toBe(true); // not its origin: https there
    // An https issuer's back channel is https only: sign-in refuses an http endpoint then, loopback too.
    expect(plainEndpoint('https://idp.example', 'http://127.0.0.1:8080/token')).toBe(true);
    expect(plainEndpoint('https://idp.example', 'http://localhost/keys')).toBe(true);
    expect(plainEndpoint('http://keycloak.lan:8080', 'http://keycloak.lan:8081/token')).toBe(true);
    for (const bad of ['ftp://x/token', 'not a url', 'javascript:alert(1)']) expect(plainEndpoint('https://idp.example', bad), bad).toBe(true);
  });

  it('requires the oidc fields only when the oidc method will be on', () => {
    const empty = { ...base, issuer: '', clientId: '', redirectUrl: '' };
    expect(oidcProblems(empty, 'json', false)).toEqual({});
    expect(oidcProblems(empty, 'oidc', false)).toEqual({ issuer: 'required', clientId: 'required', clientSecret: 'required', redirectUrl: 'required' });
    expect(oidcProblems(base, 'oidc', true)).toEqual({});
  });
});
