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
