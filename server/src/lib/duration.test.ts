import { describe, expect, it } from 'vitest';
import { parseDuration } from './duration.js';

describe('parseDuration', () => {
  it('reads Go-style durations', () => {
    expect(parseDuration('2h')).toBe(7200);
    expect(parseDuration('30m')).toBe(1800);
    expect(parseDuration('4s')).toBe(4);
    expect(parseDuration('1h30m')).toBe(5400);
    expect(parseDuration('1.5h')).toBe(5400);
    expect(parseDuration('0')).toBe(0);
  });
  it('rejects anything else', () => {
    for (const bad of ['', 'abc', '2', '2x', 'h', '-1h', ' 1h1', '1h-']) {
      expect(parseDuration(bad), bad).toBeNull();
    }
  });
});
