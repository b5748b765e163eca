/**
 * The value flags of the admin commands (docs/configuration.md, `coffer config set`): user fields (users add/update and the
 * settings' user defaults), global settings and the auther (config init/set). Each flag is
 * declared once with its parser; parsing collects every problem before anything is written.
 */
import { Option, type Command } from 'commander';
import { PERMISSION_NAMES, type AuthMethod, type Permissions, type Sorting } from '@coffer/protocol';
import { convert } from '../config/load.js';
import { OPTIONS, type OptionSpec, type ServerConfig } from '../config/schema.js';
import type { StoredSettings } from '../features/settings/defaults.js';
import { defaultOidc, type AutherConfig, type OidcConfig } from '../features/settings/repository.js';

export type FlagKind = 'boolean' | 'string' | 'integer' | 'list' | 'words';

export interface FlagSpec<T> {
  flag: string;
  short?: string;
  kind: FlagKind;
  description: string;
  /** Allowed values for a string flag. */
  choices?: readonly string[];
  /** Smallest value of an integer flag. */
  min?: number;
  apply(target: T, value: never): void;
}

/** The user fields a flag can set (UserDefaults plus lockPassword). */
export interface UserFields {
  scope: string;
  locale: string;
  viewMode: string;
  singleClick: boolean;
  redirectAfterCopyMove: boolean;
  sorting: Sorting;
  perm: Permissions;
  commands: string[];
  hideDotfiles: boolean;
  dateFormat: boolean;
  aceEditorTheme: string;
  /** Bytes; 0 = none (no flag yet: the settings' default, or the web form). */
  quota: number;
  lockPassword?: boolean;
}

function flag<T, V>(spec: Omit<FlagSpec<T>, 'apply'> & { apply(target: T, value: V): void }): FlagSpec<T> {
  return spec as unknown as FlagSpec<T>;
}

export const USER_FLAGS: FlagSpec<UserFields>[] = [
  ...PERMISSION_NAMES.map((p) =>
    flag<UserFields, boolean>({ flag: `perm.${p}`, kind: 'boolean', description: `permission "${p}"`, apply: (u, v) => void (u.perm[p] = v) }),
  ),
  flag<UserFields, string>({ flag: 'scope', kind: 'string', description: 'scope: the folder (inside the root) the user sees as "/"', apply: (u, v) => void (u.scope = v) }),
  flag<UserFields, string>({ flag: 'locale', kind: 'string', description: 'interface language code, e.g. en', apply: (u, v) => void (u.locale = v) }),
  flag<UserFields, string>({ flag: 'view-mode', kind: 'string', choices: ['list', 'mosaic'], description: 'list or mosaic', apply: (u, v) => void (u.viewMode = v) }),
  flag<UserFields, boolean>({ flag: 'single-click', kind: 'boolean', description: 'open files with a single click', apply: (u, v) => void (u.singleClick = v) }),
  flag<UserFields, boolean>({ flag: 'redirect-after-copy-move', kind: 'boolean', description: 'go to the target folder after copy/move', apply: (u, v) => void (u.redirectAfterCopyMove = v) }),
  flag<UserFields, string>({ flag: 'sorting.by', kind: 'string', choices: ['name', 'size', 'modified'], description: 'sort listings by name, size or modified', apply: (u, v) => void (u.sorting.by = v) }),
  flag<UserFields, boolean>({ flag: 'sorting.asc', kind: 'boolean', description: 'sort ascending', apply: (u, v) => void (u.sorting.asc = v) }),
  flag<UserFields, string[]>({ flag: 'commands', kind: 'list', description: 'commands the user may run, comma- or space-separated ("" for none)', apply: (u, v) => void (u.commands = v) }),
  flag<UserFields, boolean>({ flag: 'hide-dotfiles', kind: 'boolean', description: 'hide files whose name starts with a dot', apply: (u, v) => void (u.hideDotfiles = v) }),
  flag<UserFields, boolean>({ flag: 'date-format', kind: 'boolean', description: 'show exact dates instead of relative times', apply: (u, v) => void (u.dateFormat = v) }),
  flag<UserFields, string>({ flag: 'ace-editor-theme', kind: 'string', description: 'editor theme ("" = default)', apply: (u, v) => void (u.aceEditorTheme = v) }),
];

export const LOCK_PASSWORD_FLAG = flag<UserFields, boolean>({
  flag: 'lock-password',
  kind: 'boolean',
  description: 'the user cannot change its own password',
  apply: (u, v) => void (u.lockPassword = v),
});

/** What config init/set change: the settings record, the auther, the stored server settings. */
export interface ConfigTarget {
  settings: StoredSettings;
  auther: AutherConfig;
  /** Given recaptcha.* values (merged into auther.recaptcha after parsing). */
  recaptcha: { host?: string; key?: string; secret?: string };
  server: Partial<ServerConfig>;
}

const S54_FILE_MODE = 0o640;
const S54_DIR_MODE = 0o750;

function fixedMode(name: string, fixed: number) {
  return (_t: ConfigTarget, v: string) => {
    if (!/^0?[0-7]{3}$/.test(v)) throw new Error(`--${name}: expected an octal mode such as 0${fixed.toString(8)}`);
    if (parseInt(v, 8) !== fixed) {
      throw new Error(`--${name}: Coffer always creates ${name === 'file-mode' ? 'files' : 'folders'} with mode 0${fixed.toString(8)} (S54); narrow it with the process umask`);
    }
  };
}

/** The oidc method's settings (docs/api.md §2.13), kept in `auther.oidc`. */
function oidcFlag<V>(name: string, kind: FlagSpec<unknown>['kind'], description: string, set: (o: OidcConfig, v: V) => void): FlagSpec<ConfigTarget> {
  return flag<ConfigTarget, V>({ flag: `oidc.${name}`, kind, description, apply: (t, v) => set((t.auther.oidc ??= defaultOidc()), v) });
}

const OIDC_FLAGS: FlagSpec<ConfigTarget>[] = [
  oidcFlag<string>('issuer', 'string', 'oidc: the issuer URL of the OpenID provider', (o, v) => void (o.issuer = v)),
  oidcFlag<string>('client-id', 'string', 'oidc: the client id registered at the provider', (o, v) => void (o.clientId = v)),
  oidcFlag<string>('client-secret', 'string', 'oidc: the client secret (client_secret_basic)', (o, v) => void (o.clientSecret = v)),
  oidcFlag<string>('redirect-url', 'string', 'oidc: this server\'s callback as registered, e.g. https://files.example.com/api/oidc/callback', (o, v) => void (o.redirectUrl = v)),
  oidcFlag<string>('scopes', 'string', 'oidc: scopes asked for (default "openid profile email")', (o, v) => void (o.scopes = v)),
  oidcFlag<string>('username-claim', 'string', 'oidc: the claim that gives the user name (default preferred_username)', (o, v) => void (o.usernameClaim = v)),
  oidcFlag<boolean>('create-users', 'boolean', 'oidc: create unknown users with the user defaults at first sign-in (default true)', (o, v) => void (o.createUsers = v)),
  oidcFlag<string>('admin-claim', 'string', 'oidc: the claim that makes a user admin, e.g. groups ("" = none)', (o, v) => void (o.adminClaim = v)),
  oidcFlag<string>('admin-value', 'string', 'oidc: the value (or list member) of --oidc.admin-claim that makes a user admin', (o, v) => void (o.adminValue = v)),
  oidcFlag<string>('name', 'string', 'oidc: the provider\'s name on the login button ("Sign in with …")', (o, v) => void (o.name = v)),
  oidcFlag<boolean>('link-existing', 'boolean', 'oidc: the first sign-in of a provider user may take the existing Coffer account of the same name (default false: refused)', (o, v) => void (o.linkExisting = v)),
  oidcFlag<boolean>('password-login', 'boolean', 'oidc: also show the password form and accept passwords (default true)', (o, v) => void (o.passwordLogin = v)),
];

export const SETTINGS_FLAGS: FlagSpec<ConfigTarget>[] = [
  flag<ConfigTarget, boolean>({ flag: 'signup', short: 's', kind: 'boolean', description: 'allow visitors to create accounts', apply: (t, v) => void (t.settings.signup = v) }),
  flag<ConfigTarget, boolean>({ flag: 'hide-login-button', kind: 'boolean', description: 'hide the login button on public pages', apply: (t, v) => void (t.settings.hideLoginButton = v) }),
  flag<ConfigTarget, boolean>({ flag: 'create-user-dir', kind: 'boolean', description: 'give new users a home folder under the home base path', apply: (t, v) => void (t.settings.createUserDir = v) }),
  flag<ConfigTarget, string>({ flag: 'user-home-base-path', kind: 'string', description: 'parent folder of derived home folders (default /users)', apply: (t, v) => void (t.settings.userHomeBasePath = v) }),
  flag<ConfigTarget, number>({ flag: 'minimum-password-length', kind: 'integer', min: 1, description: 'minimum password length (default 12)', apply: (t, v) => void (t.settings.minimumPasswordLength = v) }),
  flag<ConfigTarget, string[]>({ flag: 'shell', kind: 'words', description: 'shell that runs user commands, e.g. "sh -c" ("" = none: commands run without a shell)', apply: (t, v) => void (t.settings.shell = v) }),
  flag<ConfigTarget, string>({ flag: 'file-mode', kind: 'string', description: 'mode of created files: fixed at 0640 (S54), accepted for File Browser scripts', apply: fixedMode('file-mode', S54_FILE_MODE) }),
  flag<ConfigTarget, string>({ flag: 'dir-mode', kind: 'string', description: 'mode of created folders: fixed at 0750 (S54), accepted for File Browser scripts', apply: fixedMode('dir-mode', S54_DIR_MODE) }),
  flag<ConfigTarget, AuthMethod>({ flag: 'auth.method', kind: 'string', choices: ['json', 'proxy', 'hook', 'noauth', 'oidc'], description: 'json, proxy (needs --auth.header), hook (needs --auth.command), noauth or oidc (needs --oidc.issuer, --oidc.client-id, --oidc.client-secret, --oidc.redirect-url)', apply: (t, v) => void (t.auther.method = v) }),
  flag<ConfigTarget, string>({ flag: 'auth.header', kind: 'string', description: 'proxy auth: the header that carries the user name', apply: (t, v) => void (t.auther.header = v) }),
  flag<ConfigTarget, string>({ flag: 'auth.command', kind: 'string', description: 'hook auth: the command that checks credentials', apply: (t, v) => void (t.auther.command = v) }),
  flag<ConfigTarget, string>({ flag: 'auth.logout-page', kind: 'string', description: 'where the client goes after logout (default /login)', apply: (t, v) => void (t.auther.logoutPage = v) }),
  ...OIDC_FLAGS,
  flag<ConfigTarget, string>({ flag: 'recaptcha.host', kind: 'string', description: 'reCAPTCHA host (default https://www.google.com)', apply: (t, v) => void (t.recaptcha.host = v) }),
  flag<ConfigTarget, string>({ flag: 'recaptcha.key', kind: 'string', description: 'reCAPTCHA site key', apply: (t, v) => void (t.recaptcha.key = v) }),
  flag<ConfigTarget, string>({ flag: 'recaptcha.secret', kind: 'string', description: 'reCAPTCHA secret', apply: (t, v) => void (t.recaptcha.secret = v) }),
  flag<ConfigTarget, string>({ flag: 'branding.name', kind: 'string', description: 'instance name shown in the title and the sidebar', apply: (t, v) => void (t.settings.branding.name = v) }),
  flag<ConfigTarget, string>({ flag: 'branding.theme', kind: 'string', choices: ['', 'light', 'dark'], description: 'default theme: "", light or dark', apply: (t, v) => void (t.settings.branding.theme = v) }),
  flag<ConfigTarget, string>({ flag: 'branding.color', kind: 'string', description: 'theme colour, e.g. #2979ff', apply: (t, v) => void (t.settings.branding.color = v) }),
  flag<ConfigTarget, string>({ flag: 'branding.files', kind: 'string', description: 'branding folder (img/…, custom.css)', apply: (t, v) => void (t.settings.branding.files = v) }),
  flag<ConfigTarget, boolean>({ flag: 'branding.disable-external', kind: 'boolean', description: 'hide links to external sites', apply: (t, v) => void (t.settings.branding.disableExternal = v) }),
  flag<ConfigTarget, boolean>({ flag: 'branding.disable-used-percentage', kind: 'boolean', description: 'hide the used disk percentage', apply: (t, v) => void (t.settings.branding.disableUsedPercentage = v) }),
  flag<ConfigTarget, number>({ flag: 'tus.chunk-size', kind: 'integer', min: 1, description: 'upload chunk size in bytes (default 10485760)', apply: (t, v) => void (t.settings.tus.chunkSize = v) }),
  flag<ConfigTarget, boolean>({ flag: 'webdav.refuse-mac-metadata', kind: 'boolean', description: "WebDAV answers macOS Finder's ._* and .DS_Store files as stored without storing them (default true)", apply: (t, v) => void (t.settings.webdav.refuseMacMetadata = v) }),
  flag<ConfigTarget, number>({ flag: 'tus.retry-count', kind: 'integer', min: 0, description: 'upload retries (default 5)', apply: (t, v) => void (t.settings.tus.retryCount = v) }),
];

/** Server settings that config init/set store (the stored serve flags). */
export const SERVER_OPTIONS: OptionSpec[] = OPTIONS.filter((o) => o.stored);

const TRUE = new Set(['true', '1', 'yes', '']);
const FALSE = new Set(['false', '0', 'no']);

/** Parses one raw flag value (commander gives `true` for a bare optional-value flag). */
export function parseValue(spec: Pick<FlagSpec<unknown>, 'flag' | 'kind' | 'choices' | 'min'>, raw: unknown): unknown {
  const text = raw === true ? 'true' : String(raw);
  switch (spec.kind) {
    case 'boolean': {
      const s = text.trim().toLowerCase();
      if (TRUE.has(s)) return true;
      if (FALSE.has(s)) return false;
      throw new Error(`--${spec.flag}: expected true or false (got ${JSON.stringify(text)})`);
    }
    case 'integer': {
      if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(Number(text))) throw new Error(`--${spec.flag}: expected a whole number (got ${JSON.stringify(text)})`);
      const n = Number(text);
      if (spec.min !== undefined && n < spec.min) throw new Error(`--${spec.flag}: must be at least ${spec.min}`);
      return n;
    }
    case 'list':
      return text.split(/[\s,]+/).filter(Boolean);
    case 'words':
      return text.split(/\s+/).filter(Boolean);
    case 'string':
      if (raw === true) throw new Error(`--${spec.flag}: needs a value`);
      if (spec.choices && !spec.choices.includes(text)) throw new Error(`--${spec.flag}: expected one of ${spec.choices.map((c) => JSON.stringify(c)).join(', ')} (got ${JSON.stringify(text)})`);
      return text;
  }
}

function optionFor(spec: Pick<FlagSpec<unknown>, 'flag' | 'short' | 'kind' | 'description'>): Option {
  const value = spec.kind === 'boolean' ? '[bool]' : '<value>';
  const o = new Option(`${spec.short ? `-${spec.short}, ` : ''}--${spec.flag} ${value}`, spec.description);
  o.attributeName = () => spec.flag;
  return o;
}

/** Declares flags on a command; their values come back keyed by the flag name. */
export function addFlags(cmd: Command, specs: Pick<FlagSpec<unknown>, 'flag' | 'short' | 'kind' | 'description'>[]): Command {
  for (const s of specs) cmd.addOption(optionFor(s));
  return cmd;
}

/** Declares the stored serve flags (long names only) on config init/set. */
export function addServerFlags(cmd: Command): Command {
  for (const spec of SERVER_OPTIONS) {
    const o = new Option(`--${spec.flag} ${spec.kind === 'boolean' ? '[bool]' : '<value>'}`, `server: ${spec.description}`);
    o.attributeName = () => `server:${spec.flag}`;
    cmd.addOption(o);
  }
  return cmd;
}

/** Applies every given flag of `specs` to `target`; returns the problems (nothing thrown). */
export function applyFlags<T>(specs: FlagSpec<T>[], opts: Record<string, unknown>, target: T, problems: string[]): string[] {
  const given: string[] = [];
  for (const spec of specs) {
    const raw = opts[spec.flag];
    if (raw === undefined) continue;
    try {
      spec.apply(target, parseValue(spec, raw) as never);
      given.push(spec.flag);
    } catch (err) {
      problems.push((err as Error).message);
    }
  }
  return given;
}

/** Stored serve flags given on the command line, converted like `serve` converts them. */
export function applyServerFlags(opts: Record<string, unknown>, server: Partial<ServerConfig>, problems: string[]): string[] {
  const given: string[] = [];
  for (const spec of SERVER_OPTIONS) {
    const raw = opts[`server:${spec.flag}`];
    if (raw === undefined) continue;
    const res = convert(spec, raw === true ? 'true' : raw);
    if (res.ok) {
      (server as Record<string, unknown>)[spec.key] = res.value;
      given.push(spec.flag);
    } else problems.push(`--${res.error}`);
  }
  if (server.imgProcessors !== undefined && server.imgProcessors < 1) problems.push('--img-processors: must be at least 1');
  return given;
}
