import type { AuthMethod } from '@coffer/protocol';
import type { Db } from '../../db/index.js';
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
  async function get<T>(key: string): Promise<T | undefined> {
    const r = await k.selectFrom('kv').select('value').where('key', '=', key).executeTakeFirst();
    return r ? (JSON.parse(r.value) as T) : undefined;
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
