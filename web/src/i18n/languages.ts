/** The 28 interface languages (docs/client.md §9), named in their own language. */
export const LANGUAGES = [
  { code: 'ar', name: 'العربية' },
  { code: 'ca', name: 'Català' },
  { code: 'cs', name: 'Čeština' },
  { code: 'de', name: 'Deutsch' },
  { code: 'el', name: 'Ελληνικά' },
  { code: 'en', name: 'English' },
  { code: 'es', name: 'Español' },
  { code: 'fr', name: 'Français' },
  { code: 'he', name: 'עברית' },
  { code: 'hu', name: 'Magyar' },
  { code: 'is', name: 'Íslenska' },
  { code: 'it', name: 'Italiano' },
  { code: 'ja', name: '日本語' },
  { code: 'ko', name: '한국어' },
  { code: 'nl-be', name: 'Nederlands (België)' },
  { code: 'no', name: 'Norsk' },
  { code: 'pl', name: 'Polski' },
  { code: 'pt', name: 'Português' },
  { code: 'pt-br', name: 'Português (Brasil)' },
  { code: 'ro', name: 'Română' },
  { code: 'ru', name: 'Русский' },
  { code: 'sk', name: 'Slovenčina' },
  { code: 'sv-se', name: 'Svenska' },
  { code: 'tr', name: 'Türkçe' },
  { code: 'uk', name: 'Українська' },
  { code: 'vi', name: 'Tiếng Việt' },
  { code: 'zh-cn', name: '简体中文' },
  { code: 'zh-tw', name: '繁體中文' },
] as const;

export type LanguageCode = (typeof LANGUAGES)[number]['code'];
export const LANGUAGE_CODES: readonly LanguageCode[] = LANGUAGES.map((l) => l.code);
export const FALLBACK_LANGUAGE: LanguageCode = 'en';

/** Scripts written right to left. Persian is listed although it is not (yet) one of the 28. */
const RTL = new Set(['ar', 'he', 'fa']);

export function isRtl(code: string): boolean {
  return RTL.has(code.toLowerCase().split('-')[0] ?? '');
}

const BCP47: Partial<Record<LanguageCode, string>> = {
  'nl-be': 'nl-BE',
  no: 'nb',
  'pt-br': 'pt-BR',
  'sv-se': 'sv-SE',
  'zh-cn': 'zh-CN',
  'zh-tw': 'zh-TW',
};

/** The BCP 47 tag for Intl formatting and the `lang` attribute. */
export function bcp47(code: LanguageCode): string {
  return BCP47[code] ?? code;
}

/**
 * Maps one language tag (a user's stored locale such as "pt-br" or "en_GB", or a browser's
 * "zh-Hant-HK") to one of our languages, or null when we have none close to it.
 */
export function matchLanguage(tag: string): LanguageCode | null {
  const t = tag.trim().toLowerCase().replace(/_/g, '-');
  if (!t) return null;
  if ((LANGUAGE_CODES as readonly string[]).includes(t)) return t as LanguageCode;
  const [primary = '', ...rest] = t.split('-');
  switch (primary) {
    case 'zh':
      return rest.some((s) => ['hant', 'tw', 'hk', 'mo'].includes(s)) ? 'zh-tw' : 'zh-cn';
    case 'pt':
      return rest.includes('br') ? 'pt-br' : 'pt';
    case 'nb':
    case 'nn':
    case 'no':
      return 'no';
    case 'iw':
    case 'he':
      return 'he';
    case 'sv':
      return 'sv-se';
    case 'nl':
      return 'nl-be';
    default:
      return (LANGUAGE_CODES as readonly string[]).includes(primary) ? (primary as LanguageCode) : null;
  }
}

/** spec: the user's setting first, then the browser's languages in order, then English. */
export function chooseLanguage(
  userLocale: string | null | undefined,
  browser: readonly string[],
): LanguageCode {
  const fromUser = userLocale ? matchLanguage(userLocale) : null;
  if (fromUser) return fromUser;
  for (const tag of browser) {
    const m = matchLanguage(tag);
    if (m) return m;
  }
  return FALLBACK_LANGUAGE;
}
