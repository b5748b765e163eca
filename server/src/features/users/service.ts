/**
 * The rules of the users API (docs/api.md §3, S9, S21, S22, S35–S39): envelope checks in File
 * Browser's order, the `which` semantics, non-admin limits, the last admin, duplicate names,
 * scope normalisation and folders, session revocation and the E8 log lines. Nothing is written
 * until every check has passed.
 */
import { USER_FIELDS, USER_WHICH_NAMES, type Permissions, type Rule, type RuleInput, type UserField, type UserInput, type UserModifyRequest, type UserDeleteRequest } from '@coffer/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { AppPasswordService } from '../../auth/app-passwords.js';
import type { LoginThrottle } from '../../auth/throttle.js';
import type { Session, TokenService } from '../../auth/tokens.js';
import { checkPasswordPolicy, hashPassword } from '../../auth/passwords.js';
import { canonicalPath } from '../../fs/canonical.js';
import { BadRequest, Conflict, Forbidden, HttpError, NotFound } from '../../http/errors.js';
import { assertWellFormedText } from '../../lib/json-text.js';
import { rulesError } from '../../lib/rules.js';
import type { SettingsRepository } from '../settings/repository.js';
import { homeScope, validateUsername } from '../signin/home.js';
import { confirmationFor, confirmChange } from '../signin/methods/confirm.js';
import { DuplicateUsername, type NewUser, type UserRecord, type UserRepository } from './repository.js';
import { ensureScopeFolder } from '../../fs/scope-folder.js';

export const CURRENT_PASSWORD_INCORRECT = 'the current password is incorrect';
/** A user without a local password whose session is too old to confirm a change (docs/oidc.md "Confirming changes"). */
export const SIGN_IN_AGAIN = 'sign in again to confirm this change';
export const SHARE_NEEDS_DOWNLOAD = 'permission to share requires permission to download';

/** S35: `which` entries that need the caller's current password (FB's list plus lockPassword, rules). */
const NEEDS_CURRENT_PASSWORD: ReadonlySet<string> = new Set(['all', 'username', 'password', 'scope', 'commands', 'perm', 'lockPassword', 'rules']);
/** S37: fields a non-admin can never write, even on itself. */
const ADMIN_ONLY_FIELDS: ReadonlySet<UserField> = new Set(['username', 'scope', 'lockPassword', 'perm', 'commands', 'rules', 'quota']);
/**
 * Coffer's own fields: File Browser's clients do not know them, so a full replace (`which: ["all"]`)
 * that leaves one out keeps the stored value instead of failing (docs/api.md §3.5).
 */
const KEPT_WHEN_MISSING: ReadonlySet<UserField> = new Set(['quota']);
const WHICH_NAMES: ReadonlySet<string> = new Set(USER_WHICH_NAMES);

export interface UsersServiceDeps {
  users: UserRepository;
  settings: SettingsRepository;
  tokens: TokenService;
  /** A new password or a deleted user ends the user's app passwords too (docs/api.md §2.10). */
  appPasswords: Pick<AppPasswordService, 'revokeUser'>;
  /** The server root (config.root): scope folders are created below it. */
  serverRoot: string;
  /** Wrong current passwords count as failed logins of the caller and its address (S30). */
  loginThrottle: Pick<LoginThrottle, 'begin' | 'failed'>;
}

/** Who is asking: the user re-read for this request, its session, its address, and the request's logger. */
export interface Actor {
  user: UserRecord;
  session: Session;
  /** The client address (req.ip): the login throttle counts wrong current passwords per address. */
  address: string;
  log: FastifyBaseLogger;
}

/** Runs one job at a time: check-then-write sequences (duplicates, last admin) stay consistent. */
function createLock() {
  let tail: Promise<unknown> = Promise.resolve();
  return function locked<T>(job: () => Promise<T>): Promise<T> {
    const run = tail.then(job, job);
    tail = run.catch(() => undefined);
    return run;
  };
}

/** S9: an absolute, lexically clean virtual scope ("." and "" → "/"); climbing above the root → 400. */
export function normaliseScope(raw: string): string {
  try {
    return canonicalPath(raw.trim()).path;
  } catch (err) {
    if (err instanceof HttpError && err.status === 403) throw new BadRequest('the scope climbs above the server root', { cause: err });
    throw err;
  }
}

function normaliseRules(rules: RuleInput[] | null | undefined): Rule[] {
  return (rules ?? []).map((r) => ({ regex: r.regex, allow: r.allow, path: r.path, regexp: r.regexp ? { raw: r.regexp.raw } : null }));
}

function checkRules(rules: RuleInput[] | null | undefined): void {
  const why = rulesError(rules ?? []);
  if (why) throw new BadRequest(`invalid rule: ${why}`);
}

function checkPerm(perm: Permissions | undefined): void {
  if (perm?.share && !perm.download) throw new BadRequest(SHARE_NEEDS_DOWNLOAD);
}

const ZERO_PERM: Permissions = { admin: false, execute: false, create: false, rename: false, modify: false, delete: false, share: false, download: false };

export function createUsersService(deps: UsersServiceDeps) {
  const locked = createLock();

  /**
   * S35: the caller's own password, or a recent sign-in for a user without one (docs/api.md §3.2
   * envelope). A typed password is a guess: it goes through the login throttle (S30) under the
   * caller's name and address, so a stolen session cannot guess the password behind it — 429 once
   * the address (or, for addresses that already failed, the name) is over its limit, whatever the
   * password. A missing password is no guess: it answers 400 and is not counted.
   */
  async function checkCurrentPassword(actor: Actor, given: string | undefined): Promise<void> {
    const now = Math.floor(Date.now() / 1000);
    const auther = await deps.settings.auther();
    const check = () => confirmChange(auther, actor.user, actor.session, given, now);
    let answer: Awaited<ReturnType<typeof confirmChange>>;
    if (confirmationFor(auther, actor.user, actor.session) !== 'password' || typeof given !== 'string' || given === '') {
      answer = await check();
    } else {
      const release = await deps.loginThrottle.begin(actor.address, actor.user.username);
      try {
        answer = await check();
        if (answer === 'wrong-password') await deps.loginThrottle.failed(actor.address, actor.user.username);
      } finally {
        release();
      }
    }
    if (answer === 'wrong-password') throw new BadRequest(CURRENT_PASSWORD_INCORRECT);
    if (answer === 'sign-in-again') throw new Forbidden(SIGN_IN_AGAIN);
  }

  /** S37: a username taken by another user after folding → 409. */
  async function checkNameFree(username: string, exceptId?: number): Promise<void> {
    const same = await deps.users.byUsernameFolded(username);
    if (same.some((u) => u.id !== exceptId)) throw new Conflict();
  }

  /** Derived home folders must not be shared: another user already rooted there → 409. */
  async function checkHomeFree(scope: string): Promise<void> {
    const all = await deps.users.list();
    if (all.some((u) => normaliseScopeQuiet(u.scope) === scope)) throw new Conflict('home folder already used by another user');
  }

  async function isLastAdmin(user: UserRecord): Promise<boolean> {
    return user.perm.admin && (await deps.users.countAdmins()) <= 1;
  }

  return {
    list(): Promise<UserRecord[]> {
      return deps.users.list();
    },

    /** Admin: any id (404 when unknown); others reach only their own id (the route checks). */
    async get(id: number): Promise<UserRecord> {
      const user = await deps.users.byId(id);
      if (!user) throw new NotFound();
      return user;
    },

    /** POST /api/users; returns the new record. Check order of docs/api.md §3.4. */
    async create(actor: Actor, body: UserModifyRequest | undefined): Promise<UserRecord> {
      if (!body) throw new BadRequest('empty request');
      if (body.what !== 'user') throw new BadRequest('invalid data type');
      await checkCurrentPassword(actor, body.current_password);
      if (body.which && body.which.length > 0) throw new BadRequest('which must be empty when creating a user');
      assertWellFormedText(body.data);
      const d: UserInput = body.data ?? {};
      const settings = await deps.settings.settings();
      checkPasswordPolicy(d.password ?? '', settings.minimumPasswordLength);
      checkPerm(d.perm);
      const username = d.username ?? '';
      validateUsername(username);
      checkRules(d.rules);
      const given = (d.scope ?? '').trim();
      const derived = given === '' && settings.createUserDir;
      const scope = derived ? normaliseScope(homeScopeOf(settings.userHomeBasePath, username)) : normaliseScope(given);
      const passwordHash = await hashPassword(d.password!);
      const record: NewUser = {
        username,
        passwordHash,
        scope,
        locale: d.locale ?? '',
        lockPassword: d.lockPassword ?? false,
        viewMode: d.viewMode || 'list',
        singleClick: d.singleClick ?? false,
        redirectAfterCopyMove: d.redirectAfterCopyMove ?? false,
        perm: { ...ZERO_PERM, ...d.perm },
        commands: [...(d.commands ?? [])],
        sorting: { by: d.sorting?.by || 'name', asc: d.sorting?.asc ?? false },
        rules: normaliseRules(d.rules),
        hideDotfiles: d.hideDotfiles ?? false,
        dateFormat: d.dateFormat ?? false,
        aceEditorTheme: d.aceEditorTheme ?? '',
        // Left out (File Browser's client does not know it): the settings' default quota.
        quota: d.quota ?? settings.defaults.quota,
      };
      const created = await locked(async () => {
        await checkNameFree(username);
        if (derived) await checkHomeFree(scope);
        await ensureScopeFolder(deps.serverRoot, scope);
        try {
          return await deps.users.insert(record);
        } catch (err) {
          if (err instanceof DuplicateUsername) throw new Conflict('', { cause: err });
          throw err;
        }
      });
      actor.log.info({ actor: actor.user.id, target: created.id, username: created.username, admin: created.perm.admin, scope }, 'user created');
      return created;
    },

    /** PUT /api/users/{id} (docs/api.md §3.5, S35–S39). The route has already refused other ids to non-admins. */
    async update(actor: Actor, id: number, body: UserModifyRequest | undefined): Promise<void> {
      if (!body) throw new BadRequest('empty request');
      if (body.what !== 'user') throw new BadRequest('invalid data type');
      const which = body.which ?? [];
      for (const name of which) {
        if (!WHICH_NAMES.has(name)) throw new BadRequest(`unknown field in which: ${JSON.stringify(name).slice(0, 80)}`);
      }
      const full = which.length === 0 || which.includes('all');
      if (full || which.some((w) => NEEDS_CURRENT_PASSWORD.has(w))) await checkCurrentPassword(actor, body.current_password);
      const d = body.data;
      if (!d) throw new BadRequest('data is missing');
      if (d.id !== id) throw new BadRequest('data.id does not match the user id');
      assertWellFormedText(d);
      const fields: UserField[] = full ? [...USER_FIELDS] : [...new Set(which as UserField[])];
      for (const f of fields) {
        if (d[f] === undefined && !(full && (f === 'password' || KEPT_WHEN_MISSING.has(f)))) throw new BadRequest(`data.${f} is missing`);
      }
      const current = await deps.users.byId(id);
      if (!current) throw new NotFound();
      const isAdmin = actor.user.perm.admin;
      if (fields.includes('perm')) checkPerm(d.perm);
      if (full && !isAdmin) throw new Forbidden();
      const settings = await deps.settings.settings();
      // Full replace with an empty password keeps the stored one (docs/api.md §3.5).
      const changesPassword = fields.includes('password') && !(full && !d.password);
      for (const f of fields) {
        if (f === 'password' && changesPassword) {
          if (!isAdmin && actor.user.lockPassword) throw new Forbidden();
          checkPasswordPolicy(d.password ?? '', settings.minimumPasswordLength);
        }
        if (ADMIN_ONLY_FIELDS.has(f) && !isAdmin) throw new Forbidden();
      }
      if (fields.includes('username')) validateUsername(d.username!);
      if (fields.includes('rules')) checkRules(d.rules);
      const scope = fields.includes('scope') ? normaliseScope(d.scope!) : current.scope;
      const passwordHash = changesPassword ? await hashPassword(d.password!) : current.passwordHash;

      const written = fields.filter((f) => (f !== 'password' || changesPassword) && d[f] !== undefined);
      await locked(async () => {
        const fresh = await deps.users.byId(id);
        if (!fresh) throw new NotFound();
        const next: UserRecord = { ...fresh, passwordHash };
        for (const f of written) {
          switch (f) {
            case 'password':
              break;
            case 'scope':
              next.scope = scope;
              break;
            case 'viewMode':
              next.viewMode = d.viewMode || 'list';
              break;
            case 'sorting':
              next.sorting = { by: d.sorting!.by || 'name', asc: d.sorting!.asc };
              break;
            case 'commands':
              next.commands = [...(d.commands ?? [])];
              break;
            case 'rules':
              next.rules = normaliseRules(d.rules);
              break;
            case 'perm':
              next.perm = { ...d.perm! };
              break;
            default:
              (next as unknown as Record<string, unknown>)[f] = d[f];
          }
        }
        // S37: the last admin cannot lose perm.admin.
        if (fresh.perm.admin && !next.perm.admin && (await isLastAdmin(fresh))) throw new Forbidden();
        if (next.username !== fresh.username) await checkNameFree(next.username, id);
        if (next.scope !== fresh.scope) await ensureScopeFolder(deps.serverRoot, next.scope);
        try {
          await deps.users.update(next);
        } catch (err) {
          if (err instanceof DuplicateUsername) throw new Conflict('', { cause: err });
          throw err;
        }
      });
      if (changesPassword) {
        // S21: every other session of that user ends now; the caller keeps its own when it changed its own password.
        await deps.tokens.revokeUser(id, actor.user.id === id ? actor.session.jti : undefined);
        await deps.appPasswords.revokeUser(id);
      }
      actor.log.info({ actor: actor.user.id, target: id, fields: written }, 'user updated');
    },

    /** DELETE /api/users/{id} (docs/api.md §3.6, S22, S35, S37). */
    async remove(actor: Actor, id: number, body: UserDeleteRequest | undefined): Promise<void> {
      if (!body) throw new BadRequest('empty request');
      await checkCurrentPassword(actor, body.current_password);
      const deleted = await locked(async () => {
        const target = await deps.users.byId(id);
        if (!target) throw new NotFound();
        if (await isLastAdmin(target)) throw new Forbidden();
        await deps.users.delete(id);
        return target;
      });
      await deps.tokens.revokeUser(id); // S22
      await deps.appPasswords.revokeUser(id);
      actor.log.info({ actor: actor.user.id, target: id, username: deleted.username }, 'user deleted');
    },
  };
}
export type UsersService = ReturnType<typeof createUsersService>;

function normaliseScopeQuiet(scope: string): string {
  try {
    return canonicalPath(scope).path;
  } catch {
    return scope;
  }
}

/** `<userHomeBasePath>/<cleaned username>`, with a base path that climbs reported as 400 (S9). */
function homeScopeOf(base: string, username: string): string {
  try {
    return homeScope(base, username);
  } catch (err) {
    if (err instanceof HttpError && err.status === 403) throw new BadRequest('the home base path climbs above the server root', { cause: err });
    throw err;
  }
}
