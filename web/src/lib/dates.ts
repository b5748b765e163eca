/** Dates in the user's language: absolute ("L LT"-like) or relative to now (spec §2 file browser). */
import { memoize } from './memo';

const dateTimeFormat = memoize(
  (locale) => new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }),
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
