import { describe, expect, it } from 'vitest';
import { discoveryUrl } from './discovery.js';

describe('OIDC discovery', () => {
  it('puts the discovery document under the issuer path', () => {
    expect(discoveryUrl('https://kc.example/realms/a')).toBe('https://kc.example/realms/a/.well-known/openid-configuration');
    expect(discoveryUrl('https://kc.example/')).toBe('https://kc.example/.well-known/openid-configuration');
  });
});
