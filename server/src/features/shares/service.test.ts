import { describe, expect, it } from 'vitest';
import { HttpError } from '../../http/errors.js';
import { bareSharePath, expiryFrom, isAtOrBelow, isShareHashShape, MAX_EXPIRES, newShareHash } from './service.js';

function statusOf(fn: () => unknown): number {
  try {
    fn();
    return 0;
  } catch (err) {
    if (err instanceof HttpError) return err.status;
    throw err;
  }
}

describe('expiryFrom (docs/api.md §14.4 step 4, S42)', () => {
  const now = 1_700_000_000;

  it('is permanent (0) for an absent, empty or zero amount', () => {
    expect(expiryFrom(undefined, undefined, now)).toBe(0);
    expect(expiryFrom('', 'days', now)).toBe(0);
    expect(expiryFrom('0', 'seconds', now)).toBe(0);
    expect(expiryFrom('000', 'hours', now)).toBe(0);
  });

  it('multiplies by the unit, hours when none is given', () => {
    expect(expiryFrom('30', 'seconds', now)).toBe(now + 30);
    expect(expiryFrom('2', 'minutes', now)).toBe(now + 120);
    expect(expiryFrom('3', 'hours', now)).toBe(now + 3 * 3600);
    expect(expiryFrom('1', 'days', now)).toBe(now + 86400);
    expect(expiryFrom('5', undefined, now)).toBe(now + 5 * 3600);
    expect(expiryFrom('5', '', now)).toBe(now + 5 * 3600);
    expect(expiryFrom('007', 'seconds', now)).toBe(now + 7);
  });

  it('floors fractional clocks and accepts the largest duration in days', () => {
    expect(expiryFrom('1', 'seconds', now + 0.75)).toBe(now + 1);
    expect(expiryFrom(String(MAX_EXPIRES), 'days', now)).toBe(now + MAX_EXPIRES * 86400);
  });

  it('refuses anything but decimal digits, and amounts above the maximum, with 400', () => {
    for (const bad of ['abc', '1.5e3x', '-5', '1.5', ' 5', '5 ', '+5', '0x10', '1e3', '５', '9'.repeat(25), String(MAX_EXPIRES + 1)]) {
      expect(statusOf(() => expiryFrom(bad, 'hours', now)), bad).toBe(400);
    }
  });

  it('refuses an unknown unit with 400, even without an amount', () => {
    for (const unit of ['weeks', 'Hours', 'HOURS', 'hour', ' hours', 'constructor', '__proto__', 'toString']) {
      expect(statusOf(() => expiryFrom('5', unit, now)), unit).toBe(400);
      expect(statusOf(() => expiryFrom('', unit, now)), unit).toBe(400);
    }
  });
});

describe('share hashes (S41)', () => {
  it('are 128 random bits in unpadded URL-safe base64', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const h = newShareHash();
      expect(h).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(Buffer.from(h, 'base64url').length).toBe(16);
      seen.add(h);
    }
    expect(seen.size).toBe(1000);
  });

  it('accepts issued and File Browser shapes only', () => {
    expect(isShareHashShape(newShareHash())).toBe(true);
    expect(isShareHashShape('Ab3_-xYz')).toBe(true);
    expect(isShareHashShape('Ab3_-xY=')).toBe(true);
    for (const bad of ['', 'a/b', 'a b', 'a*b', '..', 'a%2F', 'A'.repeat(129), '=abc', 'ab==='])
      expect(isShareHashShape(bad), bad).toBe(false);
  });
});

describe('path matching for deletes (S48)', () => {
  it('drops the trailing slash a folder was shared with', () => {
    expect(bareSharePath('/dir/')).toBe('/dir');
    expect(bareSharePath('/')).toBe('/');
    expect(bareSharePath('/a.txt')).toBe('/a.txt');
  });

  it('matches the path itself and everything below by whole segment', () => {
    expect(isAtOrBelow('/gone', '/gone')).toBe(true);
    expect(isAtOrBelow('/gone/', '/gone')).toBe(true);
    expect(isAtOrBelow('/gone/a/b.txt', '/gone')).toBe(true);
    expect(isAtOrBelow('/gone-not.txt', '/gone')).toBe(false);
    expect(isAtOrBelow('/gonex/a', '/gone')).toBe(false);
    expect(isAtOrBelow('/other', '/gone')).toBe(false);
    expect(isAtOrBelow('/g', '/gone')).toBe(false);
    expect(isAtOrBelow('/anything', '/')).toBe(true);
  });
});
