import { describe, expect, it } from 'vitest';
import { HttpError } from '../http/errors.js';
import { canonicalPath, percentDecode } from './canonical.js';

function statusOfCall(fn: () => unknown): number | 'ok' {
  try {
    fn();
    return 'ok';
  } catch (e) {
    return e instanceof HttpError ? e.status : -1;
  }
}

describe('canonicalPath (S1)', () => {
  it('makes paths absolute and drops empty and "." segments', () => {
    expect(canonicalPath('a//b/./c')).toEqual({ path: '/a/b/c', trailingSlash: false });
    expect(canonicalPath('')).toEqual({ path: '/', trailingSlash: false });
    expect(canonicalPath('/')).toEqual({ path: '/', trailingSlash: false });
    expect(canonicalPath('/docs/')).toEqual({ path: '/docs', trailingSlash: true });
  });
  it('resolves ".." lexically inside the area', () => {
    expect(canonicalPath('/a/b/../c').path).toBe('/a/c');
    expect(canonicalPath('/a/..').path).toBe('/');
  });
  it('answers 403 when ".." climbs above the area', () => {
    expect(statusOfCall(() => canonicalPath('/..'))).toBe(403);
    expect(statusOfCall(() => canonicalPath('/a/../../etc'))).toBe(403);
    expect(statusOfCall(() => canonicalPath('%2e%2e/x', { decode: true }))).toBe(403);
    expect(statusOfCall(() => canonicalPath('a%2f..%2f..%2fetc', { decode: true }))).toBe(403);
  });
  it('decodes exactly once', () => {
    expect(canonicalPath('%252e%252e/x', { decode: true }).path).toBe('/%2e%2e/x');
    expect(canonicalPath('a%20b/c%23d.txt', { decode: true }).path).toBe('/a b/c#d.txt');
  });
  it('keeps backslashes and odd names as literal names', () => {
    expect(canonicalPath('..\\x').path).toBe('/..\\x');
    expect(canonicalPath('..;/a').path).toBe('/..;/a');
    expect(canonicalPath('...').path).toBe('/...');
  });
  it('answers 400 for NUL, control characters, bad escapes and invalid UTF-8', () => {
    expect(statusOfCall(() => canonicalPath('a%00b', { decode: true }))).toBe(400);
    expect(statusOfCall(() => canonicalPath('a\u0000b'))).toBe(400);
    expect(statusOfCall(() => canonicalPath('a%0ab', { decode: true }))).toBe(400);
    expect(statusOfCall(() => canonicalPath('a\u007fb'))).toBe(400);
    expect(statusOfCall(() => canonicalPath('%zz', { decode: true }))).toBe(400);
    expect(statusOfCall(() => canonicalPath('%c0%ae%c0%ae/x', { decode: true }))).toBe(400);
    expect(statusOfCall(() => canonicalPath('%ff', { decode: true }))).toBe(400);
  });
  it('keeps Unicode names as they are', () => {
    expect(percentDecode('%C3%A9t%C3%A9')).toBe('été');
    expect(canonicalPath('/日本/ファイル.txt').path).toBe('/日本/ファイル.txt');
  });
});
