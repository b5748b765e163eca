import { describe, expect, it } from 'vitest';
import { clampHeight, DEFAULT_HEIGHT_EM, heightAtPointer, heightForKey, heightLimits } from './height';

describe('heightLimits', () => {
  it('is 2.25 em plus the divider at least, the window minus 4 em at most', () => {
    const limits = heightLimits(800, 16, 8);
    expect(limits.min).toBeCloseTo(2.75);
    expect(limits.max).toBeCloseTo(46);
  });

  it('never lets the maximum fall under the minimum in a tiny window', () => {
    const limits = heightLimits(80, 16, 8);
    expect(limits.max).toBe(limits.min);
  });
});

describe('clampHeight', () => {
  const limits = { min: 2.75, max: 46 };
  it('keeps the height within the limits', () => {
    expect(clampHeight(DEFAULT_HEIGHT_EM, limits)).toBe(25);
    expect(clampHeight(1, limits)).toBe(2.75);
    expect(clampHeight(100, limits)).toBe(46);
  });

  it('falls back to the default for a broken stored value', () => {
    expect(clampHeight(Number.NaN, limits)).toBe(25);
    expect(clampHeight(Number.NaN, { min: 2.75, max: 10 })).toBe(10);
  });
});

describe('heightAtPointer', () => {
  it('measures from the pointer to the bottom of the window', () => {
    expect(heightAtPointer(400, 800, 16)).toBe(25);
    expect(heightAtPointer(800, 800, 16)).toBe(0);
  });
});

describe('heightForKey', () => {
  const limits = { min: 2.75, max: 46 };
  it('grows with Up and Page Up, shrinks with Down and Page Down', () => {
    expect(heightForKey('ArrowUp', 25, limits)).toBe(26);
    expect(heightForKey('ArrowDown', 25, limits)).toBe(24);
    expect(heightForKey('PageUp', 25, limits)).toBe(30);
    expect(heightForKey('PageDown', 25, limits)).toBe(20);
  });

  it('jumps to the limits with Home and End and stays within them', () => {
    expect(heightForKey('Home', 25, limits)).toBe(2.75);
    expect(heightForKey('End', 25, limits)).toBe(46);
    expect(heightForKey('ArrowUp', 46, limits)).toBe(46);
    expect(heightForKey('PageDown', 4, limits)).toBe(2.75);
  });

  it('ignores other keys', () => {
    expect(heightForKey('Enter', 25, limits)).toBeNull();
  });
});
