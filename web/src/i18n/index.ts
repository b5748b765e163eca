/**
 * i18next set-up. English (the fallback) is in the first bundle, but for the namespaces only the
 * signed-in screens use (`LATE_NAMESPACES`: settings and users, about 6 KB gzipped), which
 * `loadLateEnglish` adds before the shell renders; any other language's file is fetched whole when
 * chosen (each locale is its own chunk). So the login screen carries at most two languages, not
 * 28, and not the settings' words (e2e budget.spec).
 */
import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { bcp47, FALLBACK_LANGUAGE, isRtl, type LanguageCode } from './languages';
// Named imports of a JSON file's top-level keys: the bundler leaves the others out of this chunk.
import {
  common,
  diskUsage,
  editor,
  errors,
  files,
  help,
  info,
  jobs,
  login,
  nav,
  preview,
  prompts,
  publicShare,
  search,
  share,
  shares,
  terminal,
  titles,
  toasts,
  trash,
  units,
  upload,
  uploadShare,
  usage,
} from './locales/en.json';

/** English namespaces in the first bundle (locales.test checks these and the late ones cover en.json). */
export const EARLY_ENGLISH = {
  common,
  diskUsage,
  editor,
  errors,
  files,
  help,
  info,
  jobs,
  login,
  nav,
  preview,
  prompts,
  publicShare,
  search,
  share,
  shares,
  terminal,
  titles,
  toasts,
  trash,
  units,
  upload,
  uploadShare,
  usage,
};
export const LATE_NAMESPACES = ['settings', 'users'] as const;

let late: Promise<void> | null = null;

/** Adds English's late namespaces (./lateEnglish.ts, a chunk of its own); once. */
export function loadLateEnglish(): Promise<void> {
  late ??= Promise.all([init(), import('./lateEnglish')]).then(([, m]) => {
    i18n.addResourceBundle(FALLBACK_LANGUAGE, 'translation', m.default, true, false);
  });
  return late;
}

type Messages = Record<string, unknown>;
const loaders = import.meta.glob<Messages>(['./locales/*.json', '!./locales/en.json'], { import: 'default' });

async function loadMessages(code: LanguageCode): Promise<Messages> {
  const load = loaders[`./locales/${code}.json`];
  if (!load) throw new Error(`no messages for ${code}`);
  return load();
}

/**
 * Starts fetching `code`'s messages without switching to it: the language a stored session names
 * loads while the session is renewed, and setLanguage finds it on its way (same module).
 */
export function preloadLanguage(code: LanguageCode): void {
  if (code !== FALLBACK_LANGUAGE) loadMessages(code).catch(() => undefined);
}

let ready: Promise<unknown> | null = null;

function init(): Promise<unknown> {
  ready ??= i18n.use(initReactI18next).init({
    lng: FALLBACK_LANGUAGE,
    fallbackLng: FALLBACK_LANGUAGE,
    resources: { en: { translation: EARLY_ENGLISH } },
    // Our codes are lower case ("pt-br"); without this i18next looks up "pt-BR" and misses.
    lowerCaseLng: true,
    load: 'currentOnly',
    interpolation: { escapeValue: false }, // React escapes
    returnNull: false,
    react: { useSuspense: false },
  });
  return ready;
}

/** Loads `code` if needed, switches to it and sets `lang` and `dir` on the root element. */
export async function setLanguage(code: LanguageCode): Promise<void> {
  await init();
  if (!i18n.hasResourceBundle(code, 'translation')) {
    i18n.addResourceBundle(code, 'translation', await loadMessages(code), true, true);
  }
  if (i18n.language !== code) await i18n.changeLanguage(code);
  const root = document.documentElement;
  root.lang = bcp47(code);
  root.dir = isRtl(code) ? 'rtl' : 'ltr';
}

/** The active language as a BCP 47 tag, for Intl formatters. */
export function activeLocale(): string {
  return bcp47((i18n.language || FALLBACK_LANGUAGE) as LanguageCode);
}

export { i18n };
