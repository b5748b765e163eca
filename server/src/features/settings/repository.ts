import type { AuthMethod, Rule } from '@coffer/protocol';
import type { Db } from '../../db/index.js';
import { prepareQuery } from '../../db/prepared.js';
import type { ServerConfig } from '../../config/schema.js';
import { defaultSettings, readBack, type StoredSettings } from './defaults.js';

export interface RecaptchaConfig {
  host: string;
  key: string;
  secret: string;
}
/** The active auth method and each method's own configuration (api.md §2 "auther"). */
export interface AutherConfig {
  method: AuthMethod;
  recaptcha: RecaptchaConfig | null;
  header: string;
  command: string;
  logoutPage: string;
}

export function defaultAuther(method: AuthMethod = 'json'): AutherConfig {
  return { method, recaptcha: null, header: '', command: '', logoutPage: '/login' };
}

/** Global key/value records: settings, auther, stored server settings, signing key. */
export function createSettingsRepository(db: Db) {
  const k = db.kysely;
  const readKv = prepareQuery(db, k.selectFrom('kv').select('value').where('key', '=', ''));
  async function text(key: string): Promise<string | undefined> {
    const [r] = await readKv([key]);
    return r?.value;
  }
  async function get<T>(key: string): Promise<T | undefined> {
    const t = await text(key);
    return t === undefined ? undefined : (JSON.parse(t) as T);
  }
  // The global rules are read on every file request. The stored record is still read each time (a
  // PUT /api/settings on any instance counts at once); it is parsed again only when its text changed.
  let rulesFrom: string | undefined | null = null;
  let rulesCached: readonly Rule[] = [];
  /**
   * The global rules of a stored settings text just read (the token check reads it with the
   * session: one query per request). Not to be modified (shared between requests).
   */
  function rulesOf(t: string | undefined): readonly Rule[] {
    if (t !== rulesFrom) {
      const stored = t === undefined ? {} : (JSON.parse(t) as Partial<StoredSettings>);
      rulesCached = readBack({ ...defaultSettings(), ...stored }).rules;
      rulesFrom = t;
    }
    return rulesCached;
  }
  async function put(key: string, value: unknown): Promise<void> {
    const text = JSON.stringify(value);
    await k
      .insertInto('kv')
      .values({ key, value: text })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value: text }))
      .execute();
  }
  return {
    get,
    put,
    async isInitialised(): Promise<boolean> {
      return (await get<string>('key')) !== undefined;
    },
    async settings(): Promise<StoredSettings> {
      return readBack({ ...defaultSettings(), ...((await get<StoredSettings>('settings')) ?? {}) });
    },
    saveSettings: (s: StoredSettings) => put('settings', s),
    /** settings().rules, not to be modified (shared between requests). */
    async globalRules(): Promise<readonly Rule[]> {
      return rulesOf(await text('settings'));
    },
    rulesOf,
    async auther(): Promise<AutherConfig> {
      return { ...defaultAuther(), ...((await get<AutherConfig>('auther')) ?? {}) };
    },
    saveAuther: (a: AutherConfig) => put('auther', a),
    async server(): Promise<Partial<ServerConfig>> {
      return (await get<Partial<ServerConfig>>('server')) ?? {};
    },
    saveServer: (s: Partial<ServerConfig>) => put('server', s),
    async signingKey(): Promise<Uint8Array | undefined> {
      const b64 = await get<string>('key');
      return b64 === undefined ? undefined : new Uint8Array(Buffer.from(b64, 'base64'));
    },
    saveSigningKey: (key: Uint8Array) => put('key', Buffer.from(key).toString('base64')),
  };
}
export type SettingsRepository = ReturnType<typeof createSettingsRepository>;
