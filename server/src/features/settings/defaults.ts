import { HOOK_KEYS, type Settings, type UserDefaults } from '@coffer/protocol';

export const DEFAULT_MIN_PASSWORD_LENGTH = 12; // docs/api.md §2.9
export const DEFAULT_TUS = { chunkSize: 10 * 1024 * 1024, retryCount: 5 }; // docs/api.md §4.1
export const DEFAULT_HOME_BASE = '/users';
export const DEFAULT_WEBDAV = { refuseMacMetadata: true }; // docs/api.md §4.1

export function defaultUserDefaults(): UserDefaults {
  return {
    scope: '.',
    locale: 'en',
    viewMode: 'mosaic',
    singleClick: false,
    redirectAfterCopyMove: true,
    sorting: { by: 'name', asc: false },
    perm: { admin: false, execute: true, create: true, rename: true, modify: true, delete: true, share: true, download: true },
    commands: [],
    hideDotfiles: false,
    dateFormat: false,
    aceEditorTheme: '',
    quota: 0,
  };
}

/** Settings as stored, without authMethod (kept in the auther record). */
export type StoredSettings = Omit<Settings, 'authMethod'>;

export function defaultSettings(): StoredSettings {
  return {
    signup: false,
    hideLoginButton: true,
    createUserDir: false,
    minimumPasswordLength: DEFAULT_MIN_PASSWORD_LENGTH,
    userHomeBasePath: DEFAULT_HOME_BASE,
    defaults: defaultUserDefaults(),
    rules: [],
    branding: { name: '', disableExternal: false, disableUsedPercentage: false, files: '', theme: '', color: '' },
    tus: { ...DEFAULT_TUS },
    shell: [],
    commands: Object.fromEntries(HOOK_KEYS.map((k) => [k, []])),
    webdav: { ...DEFAULT_WEBDAV },
  };
}

/** Read-back rules of docs/api.md §4.1: zero values read back as the defaults. */
export function readBack(s: StoredSettings): StoredSettings {
  const out = structuredClone(s);
  if (!out.minimumPasswordLength) out.minimumPasswordLength = DEFAULT_MIN_PASSWORD_LENGTH;
  if (!out.userHomeBasePath) out.userHomeBasePath = DEFAULT_HOME_BASE;
  if (!out.tus.chunkSize && !out.tus.retryCount) out.tus = { ...DEFAULT_TUS };
  // Settings stored before quotas existed (migration 014) have none.
  out.defaults.quota ??= 0;
  return out;
}

/** Save-time normalisation of docs/api.md §4.2 PUT. */
export function normaliseForSave(s: StoredSettings): StoredSettings {
  const out = structuredClone(s);
  if (!out.defaults.locale) out.defaults.locale = 'en';
  if (!out.defaults.viewMode) out.defaults.viewMode = 'mosaic';
  out.defaults.commands ??= [];
  out.rules ??= [];
  out.shell ??= [];
  out.commands ??= {};
  for (const k of HOOK_KEYS) out.commands[k] ??= [];
  return out;
}
