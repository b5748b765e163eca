/** Sizes and dates in the active language (spec: "dates and sizes formatted per locale"). */
import { useTranslation } from 'react-i18next';
import { formatSizeNumber, splitBytes } from '../lib/bytes';
import { formatDateTime, formatRelative } from '../lib/dates';
import { bcp47, FALLBACK_LANGUAGE, type LanguageCode } from './languages';

export function useFormat() {
  const { t, i18n } = useTranslation();
  const locale = bcp47((i18n.language || FALLBACK_LANGUAGE) as LanguageCode);
  return {
    locale,
    size(bytes: number): string {
      const { value, unit } = splitBytes(bytes);
      // First-strong isolation: "1.5 KiB" keeps its own order inside a right-to-left sentence.
      return `\u2068${t(`units.${unit}`, { value: formatSizeNumber(value, unit, locale) })}\u2069`;
    },
    dateTime(date: Date): string {
      return formatDateTime(date, locale);
    },
    relative(date: Date): string {
      return formatRelative(date, locale);
    },
  };
}
