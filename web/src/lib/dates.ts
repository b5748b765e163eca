/** Dates in the user's language: absolute ("L LT") or relative to now (docs/client.md §2 file browser). */
import { memoize } from './memo';

// "L LT": the locale's numeric date with a four-digit year, then its short time (01/31/2025, 2:05 PM;
// 31.01.2025, 14:05).
const dateTimeFormat = memoize(
  (locale) =>
    new Intl.DateTimeFormat(locale, {
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: 'numeric',
      minute: '2-digit',
    }),
);
const relativeFormat = memoize((locale) => new Intl.RelativeTimeFormat(locale, { numeric: 'auto' }));

export function formatDateTime(date: Date, locale: string): string {
  return dateTimeFormat(locale).format(date);
}

const STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['second', 60],
  ['minute', 60],
  ['hour', 24],
  ['day', 30],
  ['month', 12],
  ['year', Number.POSITIVE_INFINITY],
];

/** "3 hours ago", "in 2 days", in `locale`. */
export function formatRelative(date: Date, locale: string, now: Date = new Date()): string {
  let delta = (date.getTime() - now.getTime()) / 1000;
  const rtf = relativeFormat(locale);
  for (const [unit, size] of STEPS) {
    if (Math.abs(delta) < size) return rtf.format(Math.round(delta), unit);
    delta /= size;
  }
  return rtf.format(Math.round(delta), 'year');
}
