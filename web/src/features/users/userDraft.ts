/**
 * The user form's data (docs/client.md §2 "Users list and user form", §4 "Admin save", §5; docs/api.md §3):
 * what the form edits, the user JSON it sends, the checks made before sending, and the server's
 * refusals turned into messages next to the right field. Plain TypeScript, tested without React.
 */
import type { Permissions, Rule, User, UserDefaults } from '@coffer/protocol';
import { quotaFromParts, quotaParts, type QuotaParts } from '../../lib/quota';
import { editableRules, ruleIndexFromError, ruleProblems } from '../settings/rules';

export interface UserDraft {
  username: string;
  /** Empty on an existing user: the stored password is kept (docs/api.md §3.5 PUT `all`). */
  password: string;
  scope: string;
  /** New users only: derive the scope from the home base path and the name. */
  createHome: boolean;
  locale: string;
  lockPassword: boolean;
  perm: Permissions;
  commands: string[];
  rules: Rule[];
  /** The byte quota as typed; an empty amount is no quota. */
  quota: QuotaParts;
}

/** What the settings say about new users (admins read GET /api/settings). */
export interface UserSettings {
  defaults: UserDefaults;
  createUserDir: boolean;
  userHomeBasePath: string;
  minimumPasswordLength: number;
}

export function draftFromUser(user: User): UserDraft {
  return {
    username: user.username,
    password: '',
    scope: user.scope,
    createHome: false,
    locale: user.locale,
    lockPassword: user.lockPassword,
    perm: { ...user.perm },
    commands: [...user.commands],
    rules: editableRules(user.rules),
    quota: quotaParts(user.quota ?? 0),
  };
}

/** A new user starts from the settings' defaults; "create home" from the createUserDir setting. */
export function newDraft(settings: UserSettings): UserDraft {
  const { defaults } = settings;
  return {
    username: '',
    password: '',
    scope: settings.createUserDir ? '' : defaults.scope,
    createHome: settings.createUserDir,
    locale: defaults.locale,
    lockPassword: false,
    perm: { ...defaults.perm },
    commands: [...defaults.commands],
    rules: [],
    quota: quotaParts(defaults.quota ?? 0),
  };
}

/**
 * The server's rule for a home folder's name (docs/api.md §2.8 signup step 4): trimmed, ".." removed,
 * characters outside [0-9A-Za-z@_.-] become "-", runs of "-" collapse. "" when nothing is left.
 */
export function cleanUsername(username: string): string {
  const cleaned = username
    .trim()
    .replaceAll('..', '')
    .replace(/[^0-9A-Za-z@_.-]/g, '-')
    .replace(/-{2,}/g, '-');
  return cleaned === '-' || cleaned === '.' ? '' : cleaned;
}

/** `<userHomeBasePath>/<cleaned name>`, or null while the name gives no folder name. */
export function homeFolder(userHomeBasePath: string, username: string): string | null {
  const name = cleanUsername(username);
  if (!name) return null;
  const base = `/${userHomeBasePath}`.replace(/\/{2,}/g, '/').replace(/\/+$/, '');
  return `${base}/${name}`;
}

/**
 * The user JSON to send. A new user takes the defaults for what the form does not show; an
 * existing one keeps its own. An admin's password is never locked (docs/client.md §4 "Admin checkbox").
 * "Create home": with the createUserDir setting on, an empty scope lets the server derive it (and
 * refuse a home folder another user already has); with it off, the form names the folder itself.
 */
export function userData(draft: UserDraft, base: User | null, settings: UserSettings | null): Omit<User, 'id'> {
  const d = settings?.defaults;
  let scope = draft.scope.trim();
  if (!base && draft.createHome) {
    scope = settings?.createUserDir ? '' : (homeFolder(settings?.userHomeBasePath ?? '/users', draft.username) ?? '');
  }
  return {
    viewMode: base?.viewMode ?? d?.viewMode ?? 'list',
    singleClick: base?.singleClick ?? d?.singleClick ?? false,
    redirectAfterCopyMove: base?.redirectAfterCopyMove ?? d?.redirectAfterCopyMove ?? true,
    sorting: base?.sorting ?? d?.sorting ?? { by: 'name', asc: false },
    hideDotfiles: base?.hideDotfiles ?? d?.hideDotfiles ?? false,
    dateFormat: base?.dateFormat ?? d?.dateFormat ?? false,
    aceEditorTheme: base?.aceEditorTheme ?? d?.aceEditorTheme ?? '',
    username: draft.username.trim(),
    password: draft.password,
    scope,
    locale: draft.locale,
    lockPassword: draft.perm.admin ? false : draft.lockPassword,
    perm: { ...draft.perm },
    commands: [...draft.commands],
    rules: draft.rules.map((r) => ({ ...r, regexp: { raw: r.regex ? (r.regexp?.raw ?? '') : '' } })),
    quota: quotaFromParts(draft.quota) ?? 0,
  };
}

export type FieldName = 'username' | 'password' | 'scope' | 'current' | 'rules' | 'quota';

export type UserProblem =
  | { field: 'username'; key: 'usernameRequired' | 'usernameTaken' | 'usernameNoFolder' }
  | { field: 'password'; key: 'passwordRequired' | 'passwordTooEasy' }
  | { field: 'password'; key: 'passwordTooShort'; min: number }
  | { field: 'scope'; key: 'scopeOutside' | 'homeTaken' }
  | { field: 'current'; key: 'currentRequired' | 'currentWrong' }
  | { field: 'rules'; key: 'rules'; index: number; message: string | null }
  | { field: 'quota'; key: 'quotaInvalid' }
  /** Not about one field: shown as a toast (`message` is the server's text when there is no key). */
  | { field: null; key: 'lastAdmin' | null; message: string };

/** Length as the server counts it: UTF-8 bytes (docs/api.md §2.9). */
function byteLength(text: string): number {
  return new TextEncoder().encode(text).length;
}

/**
 * What must be fixed before sending, first problem per field. `minLength` is the settings'
 * minimum password length when known; `current` the admin's own password when json
 * authentication asks for it (null when it does not).
 */
export function draftProblems(
  draft: UserDraft,
  opts: { isNew: boolean; minLength: number | null; current: string | null },
): UserProblem[] {
  const out: UserProblem[] = [];
  if (draft.username.trim() === '') out.push({ field: 'username', key: 'usernameRequired' });
  else if (opts.isNew && draft.createHome && !cleanUsername(draft.username))
    out.push({ field: 'username', key: 'usernameNoFolder' });
  if (opts.isNew && draft.password === '') out.push({ field: 'password', key: 'passwordRequired' });
  else if (draft.password !== '' && opts.minLength !== null && byteLength(draft.password) < opts.minLength)
    out.push({ field: 'password', key: 'passwordTooShort', min: opts.minLength });
  const rule = [...ruleProblems(draft.rules).keys()][0];
  if (rule !== undefined) out.push({ field: 'rules', key: 'rules', index: rule, message: null });
  if (quotaFromParts(draft.quota) === null) out.push({ field: 'quota', key: 'quotaInvalid' });
  if (opts.current === '') out.push({ field: 'current', key: 'currentRequired' });
  return out;
}

/** A refusal of POST/PUT/DELETE /api/users read as a problem (docs/api.md §2.9 password rules, §3, S37, S39). */
export function problemFromError(status: number, message: string): UserProblem {
  if (status === 409) {
    return message.includes('home folder')
      ? { field: 'scope', key: 'homeTaken' }
      : { field: 'username', key: 'usernameTaken' };
  }
  // The last admin cannot be deleted or lose perm.admin (S37); other 403s cannot reach an admin.
  if (status === 403) return { field: null, key: 'lastAdmin', message };
  if (status === 400) {
    const short = /password is too short, minimum length is (\d+)/.exec(message);
    if (short) return { field: 'password', key: 'passwordTooShort', min: Number(short[1]) };
    if (message.includes('password is too easy')) return { field: 'password', key: 'passwordTooEasy' };
    if (message.includes('password is empty')) return { field: 'password', key: 'passwordRequired' };
    if (message.includes('current password is incorrect')) return { field: 'current', key: 'currentWrong' };
    if (message.includes('username is empty')) return { field: 'username', key: 'usernameRequired' };
    if (message.includes('usable as a folder name')) return { field: 'username', key: 'usernameNoFolder' };
    if (message.includes('climbs above the server root')) return { field: 'scope', key: 'scopeOutside' };
    const rule = message.includes('invalid rule') ? ruleIndexFromError(message) : null;
    if (rule !== null) {
      const detail = /invalid rule: (?:rule \d+: )?(.*?)\)?\s*$/.exec(message)?.[1] ?? message;
      return { field: 'rules', key: 'rules', index: rule, message: detail };
    }
  }
  return { field: null, key: null, message };
}
