import { describe, expect, it } from 'vitest';
import { breadcrumbs } from './breadcrumbs';

describe('breadcrumbs', () => {
  it('is empty at the root', () => {
    expect(breadcrumbs('/')).toEqual([]);
  });

  it('lists every segment up to 4, each opening its folder', () => {
    expect(breadcrumbs('/a/b/c/d/')).toEqual([
      { name: 'a', path: '/a/', truncated: false },
      { name: 'b', path: '/a/b/', truncated: false },
      { name: 'c', path: '/a/b/c/', truncated: false },
      { name: 'd', path: '/a/b/c/d/', truncated: false },
    ]);
  });

  it('keeps 4 crumbs when cut, the first reading "..."', () => {
    const out = breadcrumbs('/a/b/c/d/e/f.txt');
    expect(out.map((c) => c.name)).toEqual(['...', 'd', 'e', 'f.txt']);
    expect(out[0]).toEqual({ name: '...', path: '/a/b/c/', truncated: true });
    expect(out[3]?.path).toBe('/a/b/c/d/e/f.txt');
  });

  it('ends a file path with the file itself, not a folder of its name', () => {
    expect(breadcrumbs('/docs/a.txt')).toEqual([
      { name: 'docs', path: '/docs/', truncated: false },
      { name: 'a.txt', path: '/docs/a.txt', truncated: false },
    ]);
  });
});
