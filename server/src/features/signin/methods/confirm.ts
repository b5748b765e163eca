/**
 * Whether the caller typed its own password, to confirm a change to its sign-in
 * (S35; docs/api.md §2.10, docs/api.md §2.12, docs/api.md §3.2). Asked of the auth methods that take a password at sign-in:
 * - json: the stored hash;
 * - hook: the hook command decides as at sign-in (`auth` yes, `pass` the stored hash, `block` no),
 *   without rewriting the user — the hook's source (LDAP, a file…) is where the password lives;
 * - proxy and noauth have no password: null, nothing to confirm.
 */
import { verifyPassword } from '../../../auth/passwords.js';
import type { AutherConfig } from '../../settings/repository.js';
import type { UserRecord } from '../../users/repository.js';
import { parseHookOutput, runHookCommand } from './hook.js';

export async function confirmsOwnPassword(
  auther: AutherConfig,
  user: Pick<UserRecord, 'username' | 'passwordHash'>,
  given: string | undefined,
): Promise<boolean | null> {
  if (auther.method !== 'json' && auther.method !== 'hook') return null;
  if (!given) return false;
  if (auther.method === 'json') return verifyPassword(user.passwordHash, given);
  const out = parseHookOutput(await runHookCommand(auther.command, { username: user.username, password: given }));
  switch (out.action) {
    case 'auth':
      return true;
    case 'pass':
      return verifyPassword(user.passwordHash, given);
    case 'block':
      return false;
    default:
      throw new Error('hook auth: unknown hook.action');
  }
}
