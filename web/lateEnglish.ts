/**
 * `virtual:late-english`: English's namespaces that only the signed-in screens use, as a module
 * apart from src/i18n/locales/en.json (which the first bundle imports, and a module is never split
 * between chunks). src/i18n/index.ts loadLateEnglish imports it when the shell loads.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Plugin } from 'vite';

/** The same list as LATE_NAMESPACES in src/i18n/index.ts (setup.test checks). */
const LATE = ['settings', 'users'];
const EN = path.join(import.meta.dirname, 'src', 'i18n', 'locales', 'en.json');
const ID = '\0virtual:late-english';

export function lateEnglish(): Plugin {
  return {
    name: 'coffer-late-english',
    resolveId: (id) => (id === 'virtual:late-english' ? ID : null),
    load(id) {
      if (id !== ID) return null;
      this.addWatchFile(EN);
      const en = JSON.parse(readFileSync(EN, 'utf8')) as Record<string, unknown>;
      return `export default ${JSON.stringify(Object.fromEntries(LATE.map((k) => [k, en[k]])))};`;
    },
  };
}
