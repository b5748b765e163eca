import { LANGUAGES } from '../../i18n/languages';

/** The 28 languages as select options, each name in its own language. */
export const LANGUAGE_OPTIONS = LANGUAGES.map((l) => [l.code, l.name, l.code] as const);
