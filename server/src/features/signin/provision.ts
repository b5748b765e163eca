/** Users the server creates by itself: signup, proxy and hook logins (docs/api.md §2, S33, S73). */
import type { FastifyBaseLogger } from 'fastify';
import type { ServerConfig } from '../../config/schema.js';
import { Conflict } from '../../http/errors.js';
import type { StoredSettings } from '../settings/defaults.js';
import { DuplicateUsername, type NewUser, type UserRecord, type UserRepository } from '../users/repository.js';
import { ensureScopeFolder } from '../../fs/scope-folder.js';

/** Settings defaults, then S73: no admin, no execute, no commands, no rules. */
export function provisionedUser(settings: StoredSettings, fields: { username: string; passwordHash: string; scope: string; lockPassword: boolean }): NewUser {
  const d = settings.defaults;
  return {
    username: fields.username,
    passwordHash: fields.passwordHash,
    scope: fields.scope,
    locale: d.locale || 'en',
    lockPassword: fields.lockPassword,
    viewMode: d.viewMode || 'mosaic',
    singleClick: d.singleClick,
    redirectAfterCopyMove: d.redirectAfterCopyMove,
    perm: { ...d.perm, admin: false, execute: false },
    commands: [],
    sorting: { ...d.sorting },
    rules: [],
    hideDotfiles: d.hideDotfiles,
    dateFormat: d.dateFormat,
    aceEditorTheme: d.aceEditorTheme,
    quota: d.quota ?? 0,
  };
}

/** S33: a name taken case-insensitively, or a derived home another user already has, is 409. */
export async function assertAvailable(users: UserRepository, username: string, derivedScope: string | null): Promise<void> {
  if ((await users.byUsernameFolded(username)).length > 0) throw new Conflict();
  if (derivedScope === null) return;
  const folded = derivedScope.toLowerCase();
  if ((await users.list()).some((u) => u.scope.toLowerCase() === folded)) throw new Conflict();
}

/** Creates the home folder, then stores the user; a lost race on the name is 409. */
export async function storeProvisioned(
  env: { users: UserRepository; config: Pick<ServerConfig, 'root'> },
  user: NewUser,
  log: FastifyBaseLogger,
  how: string,
): Promise<UserRecord> {
  await ensureScopeFolder(env.config.root, user.scope);
  let stored: UserRecord;
  try {
    stored = await env.users.insert(user);
  } catch (err) {
    if (err instanceof DuplicateUsername) throw new Conflict('', { cause: err });
    throw err;
  }
  log.info({ event: 'user_created', how, userId: stored.id, username: stored.username, scope: stored.scope }, 'user created');
  return stored;
}
