import type { FastifyBaseLogger } from 'fastify';
import { dummyHash, hashPassword, hasLocalPassword, isBcrypt, verifyPassword } from '../../../auth/passwords.js';
import type { AppOptions } from '../../../services.js';
import type { AutherConfig } from '../../settings/repository.js';
import type { UserRecord, UserRepository } from '../../users/repository.js';
import { recaptchaEnabled, verifyRecaptcha } from '../recaptcha.js';
import type { Credentials } from './credentials.js';

/**
 * The stored user when the password matches, else null. An unknown user is verified against a
 * dummy hash so both failures cost the same (S31).
 */
export async function checkStoredPassword(users: UserRepository, creds: Credentials): Promise<UserRecord | null> {
  const user = await users.byUsername(creds.username);
  // A user without a local password costs a hash too: the timing does not tell such accounts apart.
  const hash = user && hasLocalPassword(user.passwordHash) ? user.passwordHash : await dummyHash();
  const ok = await verifyPassword(hash, creds.password);
  return user && ok ? user : null;
}

/** S34: a bcrypt hash imported from File Browser becomes argon2id at the first successful login. */
export async function upgradeHash(users: UserRepository, user: UserRecord, password: string, log: FastifyBaseLogger): Promise<UserRecord> {
  if (!isBcrypt(user.passwordHash)) return user;
  const upgraded = { ...user, passwordHash: await hashPassword(password) };
  await users.update(upgraded);
  log.info({ event: 'password_rehashed', userId: user.id }, 'bcrypt hash replaced by argon2id');
  return upgraded;
}

/**
 * docs/api.md §2.5 json method: reCAPTCHA first when configured (403 rejected / 500 unreachable, never
 * counted as a failed login), then the stored password.
 */
export async function jsonLogin(
  env: { users: UserRepository; options: Pick<AppOptions, 'fetch'> },
  auther: AutherConfig,
  creds: Credentials,
  log: FastifyBaseLogger,
): Promise<UserRecord | null> {
  if (recaptchaEnabled(auther.recaptcha)) await verifyRecaptcha(env.options.fetch, auther.recaptcha, creds.recaptcha);
  const user = await checkStoredPassword(env.users, creds);
  return user && upgradeHash(env.users, user, creds.password, log);
}
