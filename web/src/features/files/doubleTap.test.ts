import { describe, expect, it } from 'vitest';
import { DoubleTap } from './doubleTap';

describe('DoubleTap', () => {
  it('takes a second tap on the same item within 300 ms as a double tap', () => {
    const d = new DoubleTap<string>();
    expect(d.tap('a', 1_000)).toBe(false);
    expect(d.tap('a', 1_300)).toBe(true);
  });

  it('does not count taps further apart, or on another item', () => {
    const d = new DoubleTap<string>();
    expect(d.tap('a', 1_000)).toBe(false);
    expect(d.tap('a', 1_301)).toBe(false);
    expect(d.tap('b', 1_400)).toBe(false);
    expect(d.tap('a', 1_500)).toBe(false);
    expect(d.tap('a', 1_600)).toBe(true);
  });

  it('starts over after a double tap: a third quick tap is a first one', () => {
    const d = new DoubleTap<string>();
    d.tap('a', 0);
    expect(d.tap('a', 100)).toBe(true);
    expect(d.tap('a', 200)).toBe(false);
    expect(d.tap('a', 300)).toBe(true);
  });

  it('knows whether the press was a touch', () => {
    const d = new DoubleTap<string>();
    expect(d.touch).toBe(false);
    d.pressed('touch');
    expect(d.touch).toBe(true);
    d.pressed('mouse');
    expect(d.touch).toBe(false);
  });
});
