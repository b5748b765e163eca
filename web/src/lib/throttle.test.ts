import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { throttle } from './throttle';

describe('throttle', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('runs the first call at once and folds the rest into one trailing call', () => {
    const fn = vi.fn();
    const t = throttle(fn, 32);
    t(1);
    t(2);
    t(3);
    expect(fn.mock.calls).toEqual([[1]]);
    vi.advanceTimersByTime(31);
    expect(fn).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(fn.mock.calls).toEqual([[1], [3]]);
  });

  it('runs at once again after a quiet window', () => {
    const fn = vi.fn();
    const t = throttle(fn, 100);
    t('a');
    vi.advanceTimersByTime(150);
    t('b');
    expect(fn.mock.calls).toEqual([['a'], ['b']]);
  });

  it('drops the trailing call when cancelled', () => {
    const fn = vi.fn();
    const t = throttle(fn, 32);
    t(1);
    t(2);
    t.cancel();
    vi.advanceTimersByTime(100);
    expect(fn.mock.calls).toEqual([[1]]);
  });

  it('makes the pending trailing call at once when flushed, and nothing when none is pending', () => {
    const fn = vi.fn();
    const t = throttle(fn, 100);
    t(1);
    t(2);
    t(3);
    t.flush();
    expect(fn.mock.calls).toEqual([[1], [3]]);
    vi.advanceTimersByTime(200);
    t.flush();
    expect(fn.mock.calls).toEqual([[1], [3]]);
  });
});
