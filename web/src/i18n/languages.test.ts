import { describe, expect, it } from 'vitest';
import { bcp47, chooseLanguage, isRtl, LANGUAGES, matchLanguage } from './languages';

describe('languages', () => {
  it('lists the 28 languages of docs/client.md §9', () => {
    expect(LANGUAGES.map((l) => l.code).sort()).toEqual(
      [
        'he',
        'hu',
        'ar',
        'ca',
        'cs',
        'de',
        'el',
        'en',
        'es',
        'fr',
        'is',
        'it',
        'ja',
        'ko',
        'nl-be',
        'no',
        'pl',
        'pt-br',
        'pt',
        'ro',
        'ru',
        'sk',
        'sv-se',
        'tr',
        'uk',
        'vi',
        'zh-cn',
        'zh-tw',
      ].sort(),
    );
  });

  it.each([
    ['pt-BR', 'pt-br'],
    ['pt-PT', 'pt'],
    ['zh-Hant-HK', 'zh-tw'],
    ['zh', 'zh-cn'],
    ['nb-NO', 'no'],
    ['iw', 'he'],
    ['sv', 'sv-se'],
    ['nl-NL', 'nl-be'],
    ['de-AT', 'de'],
    ['en_GB', 'en'],
    ['ar-EG', 'ar'],
  ])('matches %s to %s', (tag, code) => {
    expect(matchLanguage(tag)).toBe(code);
  });

  it('matches nothing for a language we do not have', () => {
    expect(matchLanguage('fi-FI')).toBeNull();
    expect(matchLanguage('')).toBeNull();
  });

  it("prefers the user's setting, then the browser, then English", () => {
    expect(chooseLanguage('fr', ['de'])).toBe('fr');
    expect(chooseLanguage('', ['fi', 'de-CH', 'en'])).toBe('de');
    expect(chooseLanguage('xx', ['fi'])).toBe('en');
  });

  it('writes Arabic, Hebrew and Persian right to left', () => {
    expect(isRtl('ar')).toBe(true);
    expect(isRtl('he')).toBe(true);
    expect(isRtl('fa-IR')).toBe(true);
    expect(isRtl('en')).toBe(false);
  });

  it('gives Intl a BCP 47 tag', () => {
    expect(bcp47('pt-br')).toBe('pt-BR');
    expect(bcp47('no')).toBe('nb');
    expect(bcp47('de')).toBe('de');
  });
});
