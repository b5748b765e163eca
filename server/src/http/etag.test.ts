import { describe, expect, it } from 'vitest';
import { etagFor, etagText, hexOf } from './send-file.js';

describe('hexOf', () => {
  it('is exactly Number.prototype.toString(16), across the ranges it builds from bytes and beyond', () => {
    const values = [0, 1, 15, 16, 255, 2 ** 30 - 1, 2 ** 30, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1, 0x1000000000, 2 ** 53 - 1, 2 ** 53, 2 ** 60, -1, -(2 ** 40), 0.5, 1e21, NaN, Infinity];
    // Microsecond modification times of today and a spread of others.
    for (let i = 0; i < 20_000; i++) values.push(Math.round((Date.now() + i * 104_729.377) * 1000), Math.floor(Math.random() * 2 ** 53), Math.floor(Math.random() * 2 ** 34));
    // One assertion for all (60,000 expect calls take seconds on a loaded machine).
    expect(values.filter((n) => hexOf(n) !== n.toString(16))).toEqual([]);
  });

  it('makes the same validator as before: quotes, microseconds and size in hexadecimal', () => {
    const mtimeMs = 1_764_000_000_123.456;
    expect(etagFor(4096, mtimeMs)).toBe(`"${Math.round(mtimeMs * 1000).toString(16)}-${(4096).toString(16)}"`);
    expect(etagText(4096, mtimeMs)).toBe(etagFor(4096, mtimeMs).slice(1, -1));
    expect(etagFor(0, -1500.5)).toBe(`"${Math.round(-1500.5 * 1000).toString(16)}-0"`);
  });
});
