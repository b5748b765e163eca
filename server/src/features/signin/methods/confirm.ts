/**
 * What confirms a change to the caller's own sign-in — a new app password, new recovery codes, the
 * second factor on or off, a new passkey, a new password — and the admin's changes to users (S35;
 * docs/api.md §2.10, docs/api.md §2.12, docs/api.md §3.2; the rule is in docs/oidc.md "Confirming changes").
 *
 * It depends on how the session signed in (recorded with it, migration 015) and on the user, not
 * only on the global auth method: under oidc with the password form kept, a local account's
 * session must not change its sign-in without its password.
 * - `none`: the session came through the proxy or noauth (the front proxy vouches for every
 *   request; nothing typed could confirm more). A session from before migration 015 counts as
 *   such only while the global method is proxy or noauth.
 * - `password`: the user has a local password — the stored hash, or under the hook method the
 *   hook command as at sign-in (`auth` yes, `pass` the stored hash, `block` no), without rewriting
 *   the user.
 * - `recent-sign-in`: a user without a local password (made by an OIDC or proxy sign-in) confirms
 *   by having signed in less than RECENT_SIGN_IN_SECONDS ago; an older session signs in again.
 */
import { hasLocalPassword, verifyPassword } from '../../../auth/passwords.js';
import type { Session } from '../../../auth/tokens.js';
import type { AutherConfig } from '../../settings/repository.js';
import type { UserRecord } from '../../users/repository.js';
import { parseHookOutput, runHookCommand } from './hook.js';

/** How recent a sign-in must be to confirm a change for a user without a local password (10 minutes). */
export const RECENT_SIGN_IN_SECONDS = 10 * 60;

export type Confirmation = 'password' | 'recent-sign-in' | 'none';

export function confirmationFor(
  auther: Pick<AutherConfig, 'method'>,
  user: Pick<UserRecord, 'passwordHash'>,
  session: Pick<Session, 'signedInWith'>,
): Confirmation {
  const how = session.signedInWith;
  if (how === 'proxy' || how === 'noauth') return 'none';
  if (how === '' && (auther.method === 'proxy' || auther.method === 'noauth')) return 'none';
  return hasLocalPassword(user.passwordHash) ? 'password' : 'recent-sign-in';
}

/** Whether the typed password is the user's own (the hook decides under the hook method). */
async function passwordMatches(auther: AutherConfig, user: Pick<UserRecord, 'username' | 'passwordHash'>, given: string): Promise<boolean> {
  if (auther.method !== 'hook') return verifyPassword(user.passwordHash, given);
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

/**
 * The check: `ok`, `wrong-password` (missing or wrong: 400 at the routes) or `sign-in-again`
 * (a user without a local password whose session is older than RECENT_SIGN_IN_SECONDS).
 */
export async function confirmChange(
  auther: AutherConfig,
  user: Pick<UserRecord, 'username' | 'passwordHash'>,
  session: Pick<Session, 'signedInWith' | 'createdAt' | 'appPassword'>,
  given: string | undefined,
  nowSeconds: number,
): Promise<'ok' | 'wrong-password' | 'sign-in-again'> {
  switch (confirmationFor(auther, user, session)) {
    case 'none':
      return 'ok';
    case 'recent-sign-in':
      // An app password is no sign-in: its creation time (createdAt) must not pass for one.
      if (session.appPassword) return 'sign-in-again';
      return nowSeconds - session.createdAt <= RECENT_SIGN_IN_SECONDS ? 'ok' : 'sign-in-again';
    case 'password':
      if (typeof given !== 'string' || given === '') return 'wrong-password';
      return (await passwordMatches(auther, user, given)) ? 'ok' : 'wrong-password';
  }
}
