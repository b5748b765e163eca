/** Binary size units (docs/client.md §9: "sizes in binary units"). */
import { memoize } from './memo';

export const SIZE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'] as const;
export type SizeUnit = (typeof SIZE_UNITS)[number];

/** Splits a byte count into a value below 1024 and its binary unit. */
export function splitBytes(bytes: number): { value: number; unit: SizeUnit } {
  let value = Math.max(0, bytes);
  let i = 0;
  while (value >= 1024 && i < SIZE_UNITS.length - 1) {
    value /= 1024;
    i += 1;
  }
  return { value, unit: SIZE_UNITS[i] ?? 'B' };
}

/** The number part in the locale's digits and separators: bytes whole, larger units with one decimal. */
export function formatSizeNumber(value: number, unit: SizeUnit, locale: string): string {
  return (unit === 'B' ? wholeFormat : oneDecimalFormat)(locale).format(value);
}

const wholeFormat = memoize((locale) => new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }));
const oneDecimalFormat = memoize(
  (locale) => new Intl.NumberFormat(locale, { maximumFractionDigits: 1, minimumFractionDigits: 0 }),
);

/** Percentage of used storage, rounded (docs/client.md §9); 0 when the total is unknown. */
export function usedPercent(used: number, total: number): number {
  if (!(total > 0)) return 0;
  return Math.min(100, Math.max(0, Math.round((used / total) * 100)));
}
