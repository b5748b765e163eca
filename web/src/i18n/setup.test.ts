import { describe, expect, it } from 'vitest';
import { i18n, preloadLanguage, setLanguage } from './index';

describe('setLanguage', () => {
  it.each([
    ['pt-br', 'Entrar', 'pt-BR', 'ltr'],
    ['sv-se', 'Logga in', 'sv-SE', 'ltr'],
    ['zh-tw', '登入', 'zh-TW', 'ltr'],
    ['de', 'Anmelden', 'de', 'ltr'],
    ['he', 'התחברות', 'he', 'rtl'],
  ] as const)('switches to %s, with lang and dir on the root element', async (code, submit, lang, dir) => {
    await setLanguage(code);
    expect(i18n.t('login.submit')).toBe(submit);
    expect(document.documentElement.lang).toBe(lang);
    expect(document.documentElement.dir).toBe(dir);
  });
});

describe('preloadLanguage', () => {
  it('fetches a language without switching to it; setLanguage then uses it', async () => {
    await setLanguage('en');
    preloadLanguage('fr');
    expect(i18n.language).toBe('en');
    expect(document.documentElement.lang).toBe('en');
    await setLanguage('fr');
    expect(i18n.t('login.submit')).toBe('Se connecter');
    expect(document.documentElement.lang).toBe('fr');
  });
});

describe('English in two parts', () => {
  it('the first bundle and the late namespaces together are en.json, without overlap', async () => {
    const { EARLY_ENGLISH, LATE_NAMESPACES } = await import('./index');
    const en = (await import('./locales/en.json')).default as Record<string, unknown>;
    const early = Object.keys(EARLY_ENGLISH);
    expect(early.filter((k) => (LATE_NAMESPACES as readonly string[]).includes(k))).toEqual([]);
    expect([...early, ...LATE_NAMESPACES].sort()).toEqual(Object.keys(en).sort());
  });

  it('the late module holds the late namespaces, as en.json has them', async () => {
    const { LATE_NAMESPACES } = await import('./index');
    const late = (await import('./lateEnglish')).default;
    const en = (await import('./locales/en.json')).default as Record<string, unknown>;
    expect(Object.keys(late)).toEqual([...LATE_NAMESPACES]);
    for (const k of LATE_NAMESPACES) expect(late[k]).toEqual(en[k]);
  });

  it('the late namespaces are there once loaded, the early ones from the start', async () => {
    const { loadLateEnglish } = await import('./index');
    await setLanguage('en');
    expect(i18n.t('login.submit')).toBe('Log in');
    await loadLateEnglish();
    expect(i18n.t('settings.users')).not.toBe('settings.users');
    expect(i18n.t('login.submit')).toBe('Log in');
  });
});
