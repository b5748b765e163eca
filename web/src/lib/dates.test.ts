import { describe, expect, it } from 'vitest';
import { formatDateTime, formatRelative } from './dates';

const now = new Date('2025-06-15T12:00:00Z');

describe('formatRelative', () => {
  it('picks the largest fitting unit', () => {
    expect(formatRelative(new Date('2025-06-15T09:00:00Z'), 'en', now)).toBe('3 hours ago');
    expect(formatRelative(new Date('2025-06-17T12:00:00Z'), 'en', now)).toBe('in 2 days');
  });
  it('speaks the given language', () => {
    expect(formatRelative(new Date('2025-06-15T09:00:00Z'), 'de', now)).toBe('vor 3 Stunden');
  });
});

describe('formatDateTime', () => {
  it('orders day and month per locale', () => {
    const d = new Date(2025, 0, 31, 14, 5);
    expect(formatDateTime(d, 'en-US')).toContain('Jan 31, 2025');
    expect(formatDateTime(d, 'de')).toContain('31.01.2025');
  });
});
