import { describe, expect, it } from 'vitest';
import { formatRemaining, nextSpeed, NO_SPEED, percentDone, remainingSeconds } from './speed';

function feed(samples: number[]) {
  return samples.reduce(nextSpeed, NO_SPEED);
}

describe('upload speed', () => {
  it('takes the first sample as the speed', () => {
    expect(feed([1000]).speed).toBe(1000);
  });

  it('blends the average of the samples 20/80 with the previous value', () => {
    // second: average (1000 + 2000) / 2 = 1500 → 0.2 × 1500 + 0.8 × 1000 = 1100
    expect(feed([1000, 2000]).speed).toBeCloseTo(1100);
    // third: average 2000 → 0.2 × 2000 + 0.8 × 1100 = 1280
    expect(feed([1000, 2000, 3000]).speed).toBeCloseTo(1280);
  });

  it('averages only the last 5 samples', () => {
    const state = feed([100_000, 0, 0, 0, 0, 0]);
    expect(state.samples).toEqual([0, 0, 0, 0, 0]);
    const before = feed([100_000, 0, 0, 0, 0]).speed ?? 0;
    // The 100 000 sample has left the window: the average is 0, so the speed is 80 % of before.
    expect(state.speed).toBeCloseTo(before * 0.8);
  });

  it('follows a steady rate', () => {
    expect(feed(Array.from({ length: 60 }, () => 5000)).speed).toBeCloseTo(5000);
  });

  it('treats a negative sample (a chunk sent again) as no progress', () => {
    expect(feed([-500]).speed).toBe(0);
  });
});

describe('remaining time', () => {
  it('divides what is left by the speed, rounding up', () => {
    expect(remainingSeconds(10_000, 3000)).toBe(4);
    expect(remainingSeconds(0, 3000)).toBe(0);
  });

  it('is unknown without a speed or when stalled', () => {
    expect(remainingSeconds(10, null)).toBeNull();
    expect(remainingSeconds(10, 0)).toBeNull();
  });

  it('reads hh:mm:ss, or --:--:-- when unknown', () => {
    expect(formatRemaining(null)).toBe('--:--:--');
    expect(formatRemaining(0)).toBe('00:00:00');
    expect(formatRemaining(59)).toBe('00:00:59');
    expect(formatRemaining(3661)).toBe('01:01:01');
    expect(formatRemaining(100 * 3600 + 5)).toBe('100:00:05');
  });
});

describe('percent done', () => {
  it('is whole, and 100 only when everything is sent', () => {
    expect(percentDone(0, 0)).toBe(0);
    expect(percentDone(1, 3)).toBe(33);
    expect(percentDone(999_999, 1_000_000)).toBe(99);
    expect(percentDone(1_000_000, 1_000_000)).toBe(100);
  });
});
