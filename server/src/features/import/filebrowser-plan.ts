/**
 * What `coffer import filebrowser` carries over from File Browser's records (docs/migrating-from-filebrowser.md),
 * worked out without touching any database: users, global settings, the auth method, server
 * settings (as config-file keys) and shares. Every field of the file is hostile: each record is
 * checked with the schema the API uses for the same shape, scopes and share paths go through the
 * path rules of fs/ (a scope or path climbing above its root is refused), hashes must be bcrypt of
 * a bounded cost. A record that fails is left out with its reason; a setting Coffer cannot honour
 * is named in `differences`.
 */
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { PERMISSION_NAMES, SettingsInput, UserInput, type AuthMethod, type Permissions } from '@coffer/protocol';
import { importedHashProblem, MAX_BCRYPT_COST } from '../../auth/passwords.js';
import { canonicalPath } from '../../fs/canonical.js';
import { HttpError } from '../../http/errors.js';
import { rulesError } from '../../lib/rules.js';
import { normaliseForSave, type StoredSettings } from '../settings/defaults.js';
import { defaultAuther, type AutherConfig } from '../settings/repository.js';
import { fromInput, validateSettings } from '../settings/service.js';
import { isShareHashShape } from '../shares/service.js';
import { legacyTokenDigest } from '../shares/token.js';
import { validateUsername } from '../signin/home.js';
import { foldUsername, type NewUser } from '../users/repository.js';
import { normaliseScope } from '../users/service.js';
import type { FileBrowserDb, FileBrowserRecord } from './filebrowser-db.js';

/** File Browser hashes with bcrypt cost 10; the bound on imported costs is passwords.ts's. */
export { MAX_BCRYPT_COST };
const BCRYPT = /^\$2[aby]\$(\d\d)\$[./A-Za-z0-9]{53}$/;
/** File Browser's share tokens are 96 random bytes in base64 (128 characters). */
const MAX_TOKEN_LENGTH = 512;
const VIEW_MODES = new Set(['list', 'mosaic']);
const SORT_BY = new Set(['name', 'size', 'modified']);
const AUTH_METHODS: readonly AuthMethod[] = ['json', 'proxy', 'hook', 'noauth'];
/** Coffer writes files 0640 and makes folders 0750 (S54), whatever the settings say. */
const FILE_MODE = 0o640;
const DIR_MODE = 0o750;

export interface PlannedUser {
  /** File Browser's id (shares name their owner by it). */
  fbId: string;
  user: NewUser;
}

export interface PlannedShare {
  hash: string;
  /** Canonical path in the owner's scope ("/" kept at the end for a folder shared so). */
  path: string;
  owner: string;
  expire: number;
  passwordHash: string;
  /** SHA-256 (hex) of File Browser's download token; "" when none. */
  tokenSha256: string;
}

export interface ImportPlan {
  users: PlannedUser[];
  settings: StoredSettings | null;
  auther: AutherConfig;
  /** Coffer config-file keys (docs/configuration.md) for File Browser's server settings. */
  server: Record<string, string | number | boolean>;
  shares: PlannedShare[];
  /** Records left out, each with its reason. */
  skipped: string[];
  /** What Coffer cannot carry over or honour, each with its reason. */
  differences: string[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function firstError(schema: TSchema, value: unknown): string | null {
  for (const e of Value.Errors(schema, value)) {
    const at = (e as { instancePath?: string }).instancePath || '/';
    return `${at}: ${e.message}`;
  }
  return null;
}

function reason(err: unknown): string {
  if (err instanceof HttpError) return err.detail || err.message;
  return (err as Error).message;
}

/** bcrypt of cost at most MAX_BCRYPT_COST, else the reason it is refused. */
export function bcryptProblem(hash: unknown): string | null {
  if (typeof hash !== 'string') return 'no password hash';
  if (!BCRYPT.test(hash)) return 'the password hash is not a bcrypt hash';
  return importedHashProblem(hash);
}

function planUser(rec: FileBrowserRecord, differences: string[]): NewUser | string {
  if (rec.error) return rec.error;
  const u = rec.value;
  if (!isObject(u)) return 'not an object';
  const bad = firstError(UserInput, u);
  if (bad) return `invalid field ${bad}`;
  const input = u as UserInput;
  const username = input.username ?? '';
  try {
    validateUsername(username);
  } catch (err) {
    return reason(err);
  }
  const who = JSON.stringify(username);
  const hashProblem = bcryptProblem(u.password);
  if (hashProblem) return hashProblem;
  let scope: string;
  try {
    scope = normaliseScope(input.scope ?? '.');
  } catch (err) {
    return `scope ${JSON.stringify(String(input.scope).slice(0, 200))}: ${reason(err)}`;
  }
  const rules = (input.rules ?? []).map((r) => ({ regex: r.regex, allow: r.allow, path: r.path, regexp: r.regexp ? { raw: r.regexp.raw } : null }));
  // Dropping a rule could open what it closed: a user whose rules Coffer cannot apply is left out.
  const why = rulesError(rules);
  if (why) return `invalid rule: ${why}`;
  const perm = Object.fromEntries(PERMISSION_NAMES.map((p) => [p, Boolean(input.perm?.[p])])) as Permissions;
  if (perm.share && !perm.download) {
    perm.share = false;
    differences.push(`user ${who}: the share permission needs the download permission in Coffer; the user cannot share`);
  }
  let viewMode = input.viewMode ?? 'mosaic';
  if (!VIEW_MODES.has(viewMode)) {
    differences.push(`user ${who}: view mode ${JSON.stringify(viewMode.slice(0, 40))} is shown as mosaic`);
    viewMode = 'mosaic';
  }
  const by = input.sorting?.by ?? 'name';
  return {
    username,
    passwordHash: u.password as string,
    scope,
    locale: /^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})?$/.test(input.locale ?? '') ? input.locale! : 'en',
    lockPassword: input.lockPassword ?? false,
    viewMode,
    singleClick: input.singleClick ?? false,
    redirectAfterCopyMove: input.redirectAfterCopyMove ?? true,
    perm,
    commands: [...(input.commands ?? [])],
    sorting: { by: SORT_BY.has(by) ? by : 'name', asc: input.sorting?.asc ?? false },
    rules,
    hideDotfiles: input.hideDotfiles ?? false,
    dateFormat: input.dateFormat ?? false,
    aceEditorTheme: input.aceEditorTheme ?? '',
    // File Browser has no quotas.
    quota: 0,
  };
}

function planSettings(raw: unknown, skipped: string[], differences: string[]): StoredSettings | null {
  if (!isObject(raw)) {
    skipped.push('settings: not an object; Coffer keeps its own');
    return null;
  }
  const bad = firstError(SettingsInput, raw);
  if (bad) {
    skipped.push(`settings: invalid field ${bad}; Coffer keeps its own`);
    return null;
  }
  const settings = normaliseForSave(fromInput(raw as SettingsInput));
  try {
    validateSettings(settings);
  } catch (err) {
    skipped.push(`settings: ${reason(err)}; Coffer keeps its own`);
    return null;
  }
  if (raw.hideDotfiles === true) differences.push('settings: the global "hide dotfiles" has no equivalent; set it per user');
  if (typeof raw.fileMode === 'number' && raw.fileMode !== FILE_MODE) {
    differences.push(`settings: file mode ${raw.fileMode.toString(8)}: Coffer writes files 0640`);
  }
  if (typeof raw.dirMode === 'number' && raw.dirMode !== DIR_MODE) {
    differences.push(`settings: folder mode ${raw.dirMode.toString(8)}: Coffer makes folders 0750`);
  }
  if (typeof raw.key === 'string' && raw.key !== '') {
    differences.push("settings: File Browser's signing key is not carried over: every session ends, users sign in again");
  }
  return settings;
}

/**
 * The auth methods that do not check a password Coffer holds: noauth opens the server to anyone,
 * proxy trusts a header, hook runs the file's command (unsandboxed) at every sign-in. A database
 * file is not trusted to switch them on: the import keeps json unless `--keep-auth-method` says so.
 */
const CONFIRMED_METHODS: ReadonlySet<AuthMethod> = new Set(['noauth', 'proxy', 'hook']);

export interface PlanOptions {
  /** Take noauth, proxy or hook from the file (`--keep-auth-method`). */
  keepAuthMethod?: boolean;
}

function planAuther(settings: unknown, raw: unknown, differences: string[], opts: PlanOptions): AutherConfig {
  const s = isObject(settings) ? settings : {};
  const a = isObject(raw) ? raw : {};
  const method = AUTH_METHODS.find((m) => m === s.authMethod) ?? 'json';
  if (s.authMethod !== undefined && s.authMethod !== method) {
    differences.push(`auth method ${JSON.stringify(String(s.authMethod).slice(0, 40))} is unknown; sign-in with a password (json) is used`);
  }
  const auther = defaultAuther(method);
  if (typeof s.logoutPage === 'string' && s.logoutPage !== '') auther.logoutPage = s.logoutPage;
  if (typeof a.header === 'string') auther.header = a.header;
  if (typeof a.command === 'string') auther.command = a.command;
  const r = a.recaptcha;
  if (isObject(r) && typeof r.key === 'string' && typeof r.secret === 'string' && (r.key || r.secret)) {
    auther.recaptcha = { host: typeof r.host === 'string' && /^https?:\/\//.test(r.host) ? r.host : 'https://www.google.com', key: r.key, secret: r.secret };
  }
  const incomplete = (method === 'proxy' && !auther.header.trim()) || (method === 'hook' && !auther.command.trim());
  if (incomplete) {
    differences.push(`auth method ${method} has no ${method === 'proxy' ? 'header' : 'command'}; sign-in with a password (json) is used`);
    return { ...defaultAuther('json'), logoutPage: auther.logoutPage };
  }
  if (CONFIRMED_METHODS.has(method) && !opts.keepAuthMethod) {
    const what = method === 'hook' ? ` (command ${JSON.stringify(auther.command.slice(0, 200))})` : method === 'proxy' ? ` (header ${JSON.stringify(auther.header.slice(0, 80))})` : '';
    differences.push(`WARNING: auth method ${method}${what} is NOT imported: sign-in with a password (json) is used; import again with --keep-auth-method to keep it`);
    return { ...defaultAuther('json'), logoutPage: auther.logoutPage, recaptcha: auther.recaptcha };
  }
  return auther;
}

/** File Browser's server settings as Coffer config-file keys; flags given to coffer still win. */
function planServer(raw: unknown, differences: string[]): Record<string, string | number | boolean> {
  const s = isObject(raw) ? raw : {};
  const out: Record<string, string | number | boolean> = {};
  const text = (key: string, to: string) => {
    if (typeof s[key] === 'string' && s[key] !== '') out[to] = s[key];
  };
  const negated = (key: string, to: string) => {
    if (typeof s[key] === 'boolean') out[to] = !s[key];
  };
  text('root', 'root');
  text('baseURL', 'baseurl');
  text('address', 'address');
  text('socket', 'socket');
  text('tlsCert', 'cert');
  text('tlsKey', 'key');
  text('log', 'log');
  text('tokenExpirationTime', 'token-expiration-time');
  const port = typeof s.port === 'number' ? String(s.port) : s.port;
  if (typeof port === 'string' && port !== '') {
    const n = /^\d{1,5}$/.test(port) ? Number(port) : NaN;
    if (n >= 0 && n <= 65535) out.port = n;
    else differences.push(`server: port ${JSON.stringify(port.slice(0, 20))} is not a port number; Coffer's default is used`);
  }
  negated('enableThumbnails', 'disable-thumbnails');
  negated('resizePreview', 'disable-preview-resize');
  negated('enableExec', 'disable-exec');
  negated('typeDetectionByHeader', 'disable-type-detection-by-header');
  negated('imageResolutionCalculation', 'disable-image-resolution-calc');
  if (s.enableExec === true) {
    differences.push('server: command execution stays on, but commands and hooks run in a sandbox (bubblewrap) that sees only the user\'s scope and no network (--command-network)');
  }
  if (s.followExternalSymlinks === true) {
    differences.push('server: followExternalSymlinks is not honoured: links leading out of a scope are refused');
  }
  if (typeof s.authHook === 'string' && s.authHook !== '') {
    differences.push('server: authHook is not carried over; the hook auth method takes its command from the auth settings');
  }
  return out;
}

function planShare(rec: FileBrowserRecord, owners: Map<string, string>, nowS: number): PlannedShare | string {
  if (rec.error) return rec.error;
  const l = rec.value;
  if (!isObject(l)) return 'not an object';
  if (typeof l.hash !== 'string' || !isShareHashShape(l.hash)) return 'the hash is not a share hash';
  if (JSON.stringify(l.hash) !== rec.key) return 'the hash differs from its key';
  if (typeof l.path !== 'string') return 'no path';
  let path: string;
  try {
    const canon = canonicalPath(l.path);
    path = canon.path !== '/' && canon.trailingSlash ? canon.path + '/' : canon.path;
  } catch (err) {
    return `path ${JSON.stringify(l.path.slice(0, 200))}: ${reason(err)}`;
  }
  const ownerId = typeof l.userID === 'number' && Number.isSafeInteger(l.userID) ? String(l.userID) : undefined;
  const owner = ownerId === undefined ? undefined : owners.get(ownerId);
  if (!owner) return 'its owner is not imported';
  const expire = l.expire ?? 0;
  if (typeof expire !== 'number' || !Number.isSafeInteger(expire) || expire < 0) return 'invalid expiry';
  if (expire !== 0 && expire <= nowS) return `expired on ${new Date(expire * 1000).toISOString()}`;
  const passwordHash = l.password_hash ?? '';
  if (passwordHash !== '') {
    const bad = bcryptProblem(passwordHash);
    if (bad) return bad;
  }
  const token = l.token ?? '';
  if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) return 'invalid download token';
  return { hash: l.hash, path, owner, expire, passwordHash: passwordHash as string, tokenSha256: passwordHash !== '' && token !== '' ? legacyTokenDigest(token) : '' };
}

export function planImport(fb: FileBrowserDb, nowS: number, opts: PlanOptions = {}): ImportPlan {
  const skipped: string[] = [];
  const differences: string[] = [];
  const users: PlannedUser[] = [];
  const seen = new Set<string>();
  for (const rec of fb.users) {
    const got = planUser(rec, differences);
    const name = isObject(rec.value) && typeof rec.value.username === 'string' ? ` ${JSON.stringify(rec.value.username.slice(0, 80))}` : '';
    if (typeof got === 'string') {
      skipped.push(`user ${rec.key}${name}: ${got}`);
      continue;
    }
    if (seen.has(foldUsername(got.username))) {
      skipped.push(`user ${rec.key}${name}: the name is taken by another user of the file`);
      continue;
    }
    seen.add(foldUsername(got.username));
    users.push({ fbId: rec.key, user: got });
  }
  const owners = new Map(users.map((u) => [u.fbId, u.user.username]));
  const shares: PlannedShare[] = [];
  for (const rec of fb.links) {
    const got = planShare(rec, owners, nowS);
    if (typeof got === 'string') skipped.push(`share ${rec.key}: ${got}`);
    else shares.push(got);
  }
  if (fb.version !== undefined && fb.version !== 2) {
    // Only a short scalar is printed: a deeply nested value would overflow JSON.stringify's stack.
    const shown = typeof fb.version === 'number' || typeof fb.version === 'string' ? JSON.stringify(String(fb.version).slice(0, 40)) : `(${Array.isArray(fb.version) ? 'an array' : typeof fb.version})`;
    differences.push(`config version ${shown}: File Browser 2.x writes 2; the records were read as 2.x`);
  }
  return {
    users,
    settings: planSettings(fb.settings, skipped, differences),
    auther: planAuther(fb.settings, fb.auther, differences, opts),
    server: planServer(fb.server, differences),
    shares,
    skipped,
    differences,
  };
}
