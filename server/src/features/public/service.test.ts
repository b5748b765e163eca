import { describe, expect, it } from 'vitest';
import { decodeSharePassword, splitHash } from './service.js';

describe('splitHash (docs/api.md §15.1)', () => {
  it('takes the first segment as the hash and the rest as the sub-path', () => {
    expect(splitHash('abc')).toEqual({ hash: 'abc', sub: '' });
    expect(splitHash('abc/')).toEqual({ hash: 'abc', sub: '' });
    expect(splitHash('abc/d/e.txt')).toEqual({ hash: 'abc', sub: 'd/e.txt' });
    expect(splitHash('abc/../x')).toEqual({ hash: 'abc', sub: '../x' });
    expect(splitHash('')).toEqual({ hash: '', sub: '' });
    expect(splitHash('/x')).toEqual({ hash: '', sub: 'x' });
  });
});

describe('decodeSharePassword (docs/api.md §15.3)', () => {
  it('undoes encodeURIComponent, with "+" read as a space as in a query', () => {
    const pw = 'p@ss wörd+/%&?=#;';
    expect(decodeSharePassword(encodeURIComponent(pw))).toBe(pw);
    expect(decodeSharePassword('a+b')).toBe('a b');
    expect(decodeSharePassword('plain')).toBe('plain');
  });

  it('reports invalid percent-encoding and invalid UTF-8 as undefined', () => {
    expect(decodeSharePassword('%zz')).toBeUndefined();
    expect(decodeSharePassword('%')).toBeUndefined();
    expect(decodeSharePassword('%c0%ae')).toBeUndefined();
    expect(decodeSharePassword('%ff')).toBeUndefined();
  });
});
