import { describe, expect, it } from 'vitest';
import { expiryDate, parseDuration, sharePath, sortShares } from './share';

describe('parseDuration', () => {
  it.each([
    ['', 0],
    ['0', 0],
    [' 12 ', 12],
    ['2147483647', 2147483647],
  ])('reads %j as %d', (text, n) => {
    expect(parseDuration(text)).toBe(n);
  });

  it.each(['-1', '1.5', '1e3', 'abc', '2147483648', '99999999999999999999'])('refuses %j', (text) => {
    expect(parseDuration(text)).toBeNull();
  });
});

describe('sortShares', () => {
  it('puts permanent links first, then the soonest to expire', () => {
    const order = sortShares([
      { hash: 'c', expire: 300 },
      { hash: 'a', expire: 0 },
      { hash: 'b', expire: 100 },
      { hash: 'd', expire: 0 },
    ]).map((s) => s.hash);
    expect(order).toEqual(['a', 'd', 'b', 'c']);
  });
});

describe('sharePath', () => {
  it('gives folders a trailing slash and leaves files alone', () => {
    expect(sharePath({ path: '/docs', isDir: true })).toBe('/docs/');
    expect(sharePath({ path: '/docs/', isDir: true })).toBe('/docs/');
    expect(sharePath({ path: '/a.txt', isDir: false })).toBe('/a.txt');
  });
});

describe('expiryDate', () => {
  it('is null for a permanent link and seconds otherwise', () => {
    expect(expiryDate({ expire: 0 })).toBeNull();
    expect(expiryDate({ expire: 1_700_000_000 })?.toISOString()).toBe('2023-11-14T22:13:20.000Z');
  });
});
