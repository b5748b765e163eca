import { describe, expect, it } from 'vitest';
import { localPath } from './oidc.js';

describe('localPath (the OIDC return path, docs/api.md §2.13)', () => {
  it('keeps a path of this site', () => {
    expect(localPath('/files/docs/?q=1#x')).toBe('/files/docs/?q=1#x');
  });

  it('never gives a path that a browser reads as another host', () => {
    for (const raw of ['//evil.example', '/\\evil.example', 'https://evil.example/', '/.//evil.example/x', '/a/..//evil.example', '/%2e%2e//evil.example']) {
      const out = localPath(raw);
      expect(out.startsWith('/') && !out.startsWith('//')).toBe(true);
    }
  });
});
