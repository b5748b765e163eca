import { describe, expect, it } from 'vitest';
import { anyPropResponse, childHref, hrefOf, propResponse, type DavResource } from './props.js';

const base = Date.UTC(2026, 10, 26, 15, 4, 5, 678);
const resources: DavResource[] = [
  { href: '/dav/a/f.txt', name: 'f.txt', isDir: false, size: 12345, mtimeMs: base + 0.25, createdMs: base - 1000.5 },
  { href: '/dav/a/sub/', name: 'sub', isDir: true, size: 4096, mtimeMs: base, createdMs: base },
  { href: '/dav/a/x%26y', name: 'x&y <"z">', isDir: false, size: 0, mtimeMs: 5, createdMs: 0 },
  { href: '/dav/a/odd', name: 'odd\u0001\ufffe', isDir: false, size: 1, mtimeMs: 1e12 + 999, createdMs: 1e12 + 7 },
  { href: '/dav/a/old', name: 'old', isDir: false, size: 1, mtimeMs: -1500.5, createdMs: -86_400_000.25 },
];

describe('PROPFIND responses', () => {
  it('allprop without dead properties (the fast template) writes exactly what the general writer writes', () => {
    for (const r of resources) {
      for (const activeLocks of ['', '<D:activelock><D:depth>0</D:depth></D:activelock>']) {
        const st = { dead: [], activeLocks };
        expect(propResponse(r, { kind: 'allprop' }, st), r.name).toBe(anyPropResponse(r, { kind: 'allprop' }, st));
      }
    }
  });

  it('dates are the ISO and HTTP forms of the times, to the millisecond and the second', () => {
    for (const r of resources) {
      const xml = propResponse(r, { kind: 'allprop' }, { dead: [], activeLocks: '' });
      expect(xml).toContain(`<D:creationdate>${new Date(r.createdMs).toISOString()}</D:creationdate>`);
      expect(xml).toContain(`<D:getlastmodified>${new Date(r.mtimeMs).toUTCString()}</D:getlastmodified>`);
    }
  });

  it("a child's href is the folder's href and its encoded name", () => {
    for (const name of ['a b#c%d é.txt', 'plain', '?&=+']) {
      expect(childHref(hrefOf('/dav', '/list', true), name, false)).toBe(hrefOf('/dav', `/list/${name}`, false));
      expect(childHref(hrefOf('/dav', '/', true), name, true)).toBe(hrefOf('/dav', `/${name}`, true));
    }
  });
});
