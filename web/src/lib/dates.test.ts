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
  it('writes "L LT": the numeric date with a four-digit year, then the short time, per locale', () => {
    const d = new Date(2025, 0, 31, 14, 5);
    expect(formatDateTime(d, 'en-US')).toMatch(/^01\/31\/2025,? 2:05\s?PM$/);
    expect(formatDateTime(d, 'de')).toMatch(/^31\.01\.2025,? 14:05$/);
    expect(formatDateTime(new Date(2025, 6, 4, 9, 30), 'en-GB')).toMatch(/^04\/07\/2025,? 0?9:30$/);
  });
});
