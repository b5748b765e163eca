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
/** The active auth method and each method's own configuration (docs/api.md §2.5). */
export interface AutherConfig {
  method: AuthMethod;
  recaptcha: RecaptchaConfig | null;
  header: string;
  command: string;
  logoutPage: string;
  /** The oidc method's provider (docs/api.md §2.13); null until configured. */
  oidc: OidcConfig | null;
}

/** docs/api.md §2.13: one OpenID provider. `clientSecret` never leaves the server. */
export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Space-separated, `openid` among them. */
  scopes: string;
  /** The claim whose value is the Coffer user name. */
  usernameClaim: string;
  /** Unknown names become users with the user defaults; false refuses them. */
  createUsers: boolean;
  /** With adminValue: the claim (a string or a list, e.g. groups) that makes a user admin; '' = no mapping. */
  adminClaim: string;
  adminValue: string;
  /** The provider's name on the login button. */
  name: string;
  /** This server's callback, `<public URL><baseURL>/api/oidc/callback`, registered at the provider. */
  redirectUrl: string;
  /** false: the login page shows only the provider's button and POST /api/login refuses passwords. */
  passwordLogin: boolean;
  /**
   * The first sign-in of a provider user whose name is a Coffer account not yet linked to this
   * provider takes that account (true) or is refused (false, the default): see docs/oidc.md.
   */
  linkExisting?: boolean;
}

export function defaultOidc(): OidcConfig {
  return {
    issuer: '',
    clientId: '',
    clientSecret: '',
    scopes: 'openid profile email',
    usernameClaim: 'preferred_username',
    createUsers: true,
    adminClaim: '',
    adminValue: '',
    name: 'OpenID Connect',
    redirectUrl: '',
    passwordLogin: true,
  };
}

export function defaultAuther(method: AuthMethod = 'json'): AutherConfig {
  return { method, recaptcha: null, header: '', command: '', logoutPage: '/login', oidc: null };
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
  let parsedFrom: string | undefined | null = null;
  let parsed: StoredSettings = defaultSettings();
  /** The settings of a stored text just read, parsed again only when the text changed. Shared: not to be modified. */
  function settingsOf(t: string | undefined): Readonly<StoredSettings> {
    if (t !== parsedFrom) {
      const stored = t === undefined ? {} : (JSON.parse(t) as Partial<StoredSettings>);
      parsed = readBack({ ...defaultSettings(), ...stored });
      parsedFrom = t;
    }
    return parsed;
  }
  /**
   * The global rules of a stored settings text just read (the token check reads it with the
   * session: one query per request). Not to be modified (shared between requests).
   */
  function rulesOf(t: string | undefined): readonly Rule[] {
    return settingsOf(t).rules;
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
    /** settings() for every request that reads it (WebDAV): one query, parsed once per change. Not to be modified. */
    async current(): Promise<Readonly<StoredSettings>> {
      return settingsOf(await text('settings'));
    },
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
    /**
     * Stores the signing key unless one is stored already: a stored key is never replaced (the
     * running instances hold it), so whoever stores one reads back `signingKey()` to use.
     */
    async saveSigningKey(key: Uint8Array): Promise<void> {
      const value = JSON.stringify(Buffer.from(key).toString('base64'));
      await k.insertInto('kv').values({ key: 'key', value }).onConflict((oc) => oc.column('key').doNothing()).execute();
    },
  };
}
export type SettingsRepository = ReturnType<typeof createSettingsRepository>;
