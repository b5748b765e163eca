/**
 * Every locale file has exactly the English key tree, the same {{placeholders}}, and real
 * translations: a value equal to English is allowed only where listed below.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LANGUAGE_CODES } from './languages';

type Tree = { [key: string]: string | Tree };

const dir = path.join(import.meta.dirname, 'locales');
const read = (code: string) => JSON.parse(readFileSync(path.join(dir, `${code}.json`), 'utf8')) as Tree;

function flatten(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    if (typeof value === 'string') out.set(prefix + key, value);
    else for (const [k, v] of flatten(value, `${prefix}${key}.`)) out.set(k, v);
  }
  return out;
}

/** Symbols and words that read the same in every language. */
const SAME_EVERYWHERE = new Set([
  'common.ok',
  'search.types.pdf',
  // Names of a protocol and of a program.
  'settings.webdav.title',
  'settings.webdavMount.rclone',
  'units.B',
  'units.KiB',
  'units.MiB',
  'units.GiB',
  'units.TiB',
  'units.PiB',
  'upload.perSecond',
]);
/** Words that happen to be spelled as in English in one language (kept small on purpose). */
const SAME_IN: Record<string, string[]> = {
  de: ['files.name', 'nav.version', 'settings.passkeys.title', 'settings.passkeys.name'],
  fr: ['nav.version', 'search.types.image', 'toasts.region', 'share.units.minutes'],
  it: ['login.password', 'search.types.video', 'users.password'],
  pl: ['files.folder'],
  'nl-be': ['settings.passkeys.title'], // "Passkeys" is the Dutch word too
  'sv-se': ['nav.version'],
  vi: ['search.types.video'],
};
const MAX_SAME_PER_LOCALE = 4;

const placeholders = (s: string) => [...s.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]).sort();
/** The <name>…</name> parts a component fills in (react-i18next's Trans). */
const tags = (s: string) => [...s.matchAll(/<(\/?\w+)>/g)].map((m) => m[1]).sort();

const english = flatten(read('en'));

describe('locale files', () => {
  it('exist for exactly the 28 languages', () => {
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.replace(/\.json$/, ''))
      .sort();
    expect(files).toEqual([...LANGUAGE_CODES].sort());
  });

  it.each(LANGUAGE_CODES.filter((c) => c !== 'en'))('%s has the English key tree', (code) => {
    const messages = flatten(read(code));
    expect([...messages.keys()].sort()).toEqual([...english.keys()].sort());
  });

  it.each(LANGUAGE_CODES.filter((c) => c !== 'en'))(
    '%s keeps every placeholder and tag and leaves nothing empty',
    (code) => {
      for (const [key, value] of flatten(read(code))) {
        expect(value.trim(), `${code} ${key}`).not.toBe('');
        expect(placeholders(value), `${code} ${key}`).toEqual(placeholders(english.get(key) ?? ''));
        expect(tags(value), `${code} ${key}`).toEqual(tags(english.get(key) ?? ''));
      }
    },
  );

  it.each(LANGUAGE_CODES.filter((c) => c !== 'en'))(
    '%s is translated (English only where allowed)',
    (code) => {
      const allowed = new Set([...SAME_EVERYWHERE, ...(SAME_IN[code] ?? [])]);
      const untranslated = [...flatten(read(code))]
        .filter(([key, value]) => value === english.get(key) && !allowed.has(key))
        .map(([key]) => key);
      expect(untranslated).toEqual([]);
      expect((SAME_IN[code] ?? []).length).toBeLessThanOrEqual(MAX_SAME_PER_LOCALE);
    },
  );
});
