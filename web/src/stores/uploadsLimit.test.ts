import { beforeEach, describe, expect, it } from 'vitest';
import { setUploadsLimit, uploadsLimitFor, useUploadsLimitStore, validUploadsLimit } from './uploadsLimit';

describe('uploadsLimit', () => {
  beforeEach(() => {
    localStorage.clear();
    useUploadsLimitStore.setState({ byUser: {} });
  });

  it('accepts whole numbers from 1 to 10 only', () => {
    expect(validUploadsLimit(1)).toBe(1);
    expect(validUploadsLimit('10')).toBe(10);
    expect(validUploadsLimit(' 3 ')).toBe(3);
    for (const bad of [0, 11, 2.5, -1, '', 'x', '1e1', '2.0', null, undefined, NaN]) {
      expect(validUploadsLimit(bad), String(bad)).toBeNull();
    }
  });

  it('is 1 without a user and 5 for a user who chose nothing', () => {
    expect(uploadsLimitFor(null)).toBe(1);
    expect(uploadsLimitFor({ id: 7 })).toBe(5);
  });

  it('keeps each user’s choice in this browser', () => {
    setUploadsLimit(7, 3);
    expect(uploadsLimitFor({ id: 7 })).toBe(3);
    expect(uploadsLimitFor({ id: 8 })).toBe(5);
    useUploadsLimitStore.setState({ byUser: {} });
    expect(uploadsLimitFor({ id: 7 })).toBe(3);
    expect(() => setUploadsLimit(7, 11)).toThrow(RangeError);
    expect(uploadsLimitFor({ id: 7 })).toBe(3);
  });

  it('ignores a stored value out of range', () => {
    localStorage.setItem('coffer.uploadsLimit.9', '50');
    expect(uploadsLimitFor({ id: 9 })).toBe(5);
  });

  it('follows a limit saved in another tab', () => {
    setUploadsLimit(7, 3);
    localStorage.setItem('coffer.uploadsLimit.7', '8');
    window.dispatchEvent(new StorageEvent('storage', { key: 'coffer.uploadsLimit.7', newValue: '8' }));
    expect(uploadsLimitFor({ id: 7 })).toBe(8);
    localStorage.removeItem('coffer.uploadsLimit.7');
    window.dispatchEvent(new StorageEvent('storage', { key: 'coffer.uploadsLimit.7', newValue: null }));
    expect(uploadsLimitFor({ id: 7 })).toBe(5);
  });
});
