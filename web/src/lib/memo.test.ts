import { describe, expect, it, vi } from 'vitest';
import { memoize } from './memo';

describe('memoize', () => {
  it('makes each key once and hands the same value back', () => {
    const make = vi.fn((key: string) => ({ key }));
    const get = memoize(make);
    const a = get('a');
    expect(get('a')).toBe(a);
    expect(get('b')).toEqual({ key: 'b' });
    expect(make).toHaveBeenCalledTimes(2);
  });

  it('keeps nothing when making fails', () => {
    let fail = true;
    const get = memoize((key: string) => {
      if (fail) throw new RangeError(key);
      return key;
    });
    expect(() => get('x')).toThrow(RangeError);
    fail = false;
    expect(get('x')).toBe('x');
  });
});
