import { describe, expect, it } from 'vitest';
import { quotaFromParts, quotaParts } from './quota';

describe('quota parts', () => {
  it('shows no quota as an empty amount', () => {
    expect(quotaParts(0)).toEqual({ amount: '', unit: 'GiB' });
    expect(quotaFromParts({ amount: '  ', unit: 'TiB' })).toBe(0);
  });

  it('picks the largest unit that shows the quota exactly enough', () => {
    expect(quotaParts(5 * 1024 ** 3)).toEqual({ amount: '5', unit: 'GiB' });
    expect(quotaParts(1.5 * 1024 ** 4)).toEqual({ amount: '1.5', unit: 'TiB' });
    expect(quotaParts(300 * 1024 ** 2)).toEqual({ amount: '300', unit: 'MiB' });
    expect(quotaParts(1000)).toEqual({ amount: '0', unit: 'MiB' });
  });

  it('reads amounts with a dot or a comma, and refuses what is not a positive number', () => {
    expect(quotaFromParts({ amount: '2', unit: 'GiB' })).toBe(2 * 1024 ** 3);
    expect(quotaFromParts({ amount: '0,5', unit: 'MiB' })).toBe(512 * 1024);
    for (const amount of ['-1', 'abc', '1e3', '0', '1.2.3', '99999999999']) {
      expect(quotaFromParts({ amount, unit: amount === '99999999999' ? 'TiB' : 'GiB' }), amount).toBeNull();
    }
  });

  it('round-trips what it shows', () => {
    for (const bytes of [1024 ** 2, 7 * 1024 ** 3, 2.25 * 1024 ** 4]) expect(quotaFromParts(quotaParts(bytes))).toBe(bytes);
  });
});
