/**
 * App passwords (docs/api.md §2.10): long-lived secrets for WebDAV and scripts, one per use,
 * named, optionally read-only and expiring, revocable at once.
 *
 * The secret is `cfap_` + 32 random bytes (base64url); only its SHA-256 is stored. With 256 bits
 * of entropy a slow hash adds nothing, and a digest can be looked up: the secret is never compared
 * as text (the looked-up digest is compared again in constant time).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { PERMISSION_NAMES, type Permissions } from '@coffer/protocol';
import { sql } from 'kysely';
import type { Db } from '../db/index.js';
import { prepareQuery } from '../db/prepared.js';
import { userFromRow, type UserRecord } from '../features/users/repository.js';
import type { LoginThrottle } from './throttle.js';
import { LAST_SEEN_GRANULARITY_S, type Session } from './tokens.js';

export const APP_PASSWORD_PREFIX = 'cfap_';
const SHAPE = /^cfap_[A-Za-z0-9_-]{43}$/;
/** Names are for people; bounded so that a list stays readable. */
export const MAX_APP_PASSWORD_NAME = 100;
/** Per user: enough for every device and script, not a table to fill. */
export const MAX_APP_PASSWORDS = 100;

/** Text shaped like an app password (docs/api.md §2.2). */
export function looksLikeAppPassword(v: string | undefined): v is string {
  return typeof v === 'string' && SHAPE.test(v);
}

function digest(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

export interface AppPassword {
  id: number;
  userId: number;
  name: string;
  readOnly: boolean;
  createdAt: number;
  /** 0 = never. */
  expiresAt: number;
  /** 0 = never used. */
  lastUsed: number;
  lastAddress: string;
}

/** What a read-only app password may do, whatever the user's own permissions (docs/api.md §2.10). */
export function readOnlyPerm(perm: Permissions): Permissions {
  return Object.fromEntries(
    PERMISSION_NAMES.map((p) => [p, p === 'download' && perm.download]),
  ) as Permissions;
}

export interface AppPasswordMatch {
  appPassword: AppPassword;
  /** The user as the request may act: permissions narrowed when the password is read-only. */
  user: UserRecord;
  /** A stand-in session for the request (`req.session`): no token, no renewal. */
  session: Session;
  settingsText: string | undefined;
}

function fromRow(r: {
  id: number;
  user_id: number;
  name: string;
  read_only: number;
  created_at: number;
  expires_at: number;
  last_used: number;
  last_address: string;
}): AppPassword {
  return {
    id: Number(r.id),
    userId: Number(r.user_id),
    name: r.name,
    readOnly: Boolean(r.read_only),
    createdAt: Number(r.created_at),
    expiresAt: Number(r.expires_at),
    lastUsed: Number(r.last_used),
    lastAddress: r.last_address,
  };
}

export function createAppPasswordService(deps: { db: Db; loginThrottle: LoginThrottle; now?: () => number }) {
  const k = deps.db.kysely;
  const now = deps.now ?? (() => Math.floor(Date.now() / 1000));
  // Run on every request that carries an app password: one row with the user and the settings text.
  const byDigest = prepareQuery(
    deps.db,
    k
      .selectFrom('app_passwords')
      .innerJoin('users', 'users.id', 'app_passwords.user_id')
      .selectAll('users')
      .select([
        'app_passwords.id as a_id',
        'app_passwords.name as a_name',
        'app_passwords.secret_hash as a_secret_hash',
        'app_passwords.read_only as a_read_only',
        'app_passwords.created_at as a_created_at',
        'app_passwords.expires_at as a_expires_at',
        'app_passwords.last_used as a_last_used',
        'app_passwords.last_address as a_last_address',
      ])
      .select((eb) =>
        eb.selectFrom('kv').select('kv.value').where('kv.key', '=', sql.lit('settings')).as('s_settings'),
      )
      .where('app_passwords.secret_hash', '=', ''),
  );

  /** The live app password behind `secret` and its user, or null (unknown, revoked, expired, user gone). */
  async function verify(secret: string, address: string): Promise<AppPasswordMatch | null> {
    if (!looksLikeAppPassword(secret)) return null;
    const given = digest(secret);
    const [row] = await byDigest([given.toString('hex')]);
    if (!row) return null;
    const stored = Buffer.from(row.a_secret_hash, 'hex');
    if (stored.length !== given.length || !timingSafeEqual(stored, given)) return null;
    const t = now();
    const {
      a_id,
      a_name,
      a_secret_hash: _hash,
      a_read_only,
      a_created_at,
      a_expires_at,
      a_last_used,
      a_last_address,
      s_settings,
      ...userRow
    } = row;
    const appPassword = fromRow({
      id: a_id,
      user_id: userRow.id,
      name: a_name,
      read_only: a_read_only,
      created_at: a_created_at,
      expires_at: a_expires_at,
      last_used: a_last_used,
      last_address: a_last_address,
    });
    if (appPassword.expiresAt !== 0 && appPassword.expiresAt <= t) return null;
    if (t - appPassword.lastUsed >= LAST_SEEN_GRANULARITY_S || appPassword.lastAddress !== address) {
      await k
        .updateTable('app_passwords')
        .set({ last_used: t, last_address: address.slice(0, 64) })
        .where('id', '=', appPassword.id)
        .execute();
    }
    const stored_user = userFromRow(userRow);
    const user = appPassword.readOnly
      ? { ...stored_user, perm: readOnlyPerm(stored_user.perm), commands: [] }
      : stored_user;
    const session: Session = {
      jti: `app-password:${appPassword.id}`,
      userId: user.id,
      iat: appPassword.createdAt,
      exp: appPassword.expiresAt || Number.MAX_SAFE_INTEGER,
      family: `app-password:${appPassword.id}`,
      lastSeen: t,
      createdAt: appPassword.createdAt,
      // Not a sign-in: requireSignedIn keeps app passwords away from every change to the sign-in.
      signedInWith: '',
      appPassword: { id: appPassword.id, readOnly: appPassword.readOnly },
    };
    return { appPassword, user, session, settingsText: s_settings ?? undefined };
  }

  return {
    verify,

    /**
     * HTTP Basic for WebDAV (docs/api.md §2.10): the user name and one of that user's app
     * passwords, through the login throttle (S30) like the sign-in form — an address that keeps
     * failing gets 429 (TooManyRequests is thrown), the real user elsewhere is not locked out.
     * Null when the pair does not match. Never the account password.
     */
    async verifyBasic(username: string, password: string, address: string): Promise<AppPasswordMatch | null> {
      const release = await deps.loginThrottle.begin(address, username);
      let match: AppPasswordMatch | null = null;
      try {
        match = await verify(password, address);
        if (match && match.user.username.toLowerCase() !== username.trim().toLowerCase()) match = null;
        if (!match) await deps.loginThrottle.failed(address, username);
      } finally {
        release();
      }
      return match;
    },

    /** A new app password: the record and the secret, which is shown this once. */
    async create(
      userId: number,
      input: { name: string; readOnly: boolean; expiresAt: number },
    ): Promise<{ appPassword: AppPassword; secret: string } | null> {
      const count = await k
        .selectFrom('app_passwords')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow();
      if (Number(count.n) >= MAX_APP_PASSWORDS) return null;
      const secret = APP_PASSWORD_PREFIX + randomBytes(32).toString('base64url');
      const t = now();
      const row = await k
        .insertInto('app_passwords')
        .values({
          user_id: userId,
          name: input.name,
          secret_hash: digest(secret).toString('hex'),
          read_only: input.readOnly ? 1 : 0,
          created_at: t,
          expires_at: input.expiresAt,
          last_used: 0,
          last_address: '',
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return { appPassword: fromRow(row), secret };
    },

    /** The user's app passwords (expired ones included, marked by their time), newest first. */
    async list(userId: number): Promise<AppPassword[]> {
      const rows = await k
        .selectFrom('app_passwords')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('id', 'desc')
        .execute();
      return rows.map(fromRow);
    },

    /** Revokes one of the user's app passwords; false when the user has none with that id. */
    async revoke(userId: number, id: number): Promise<boolean> {
      const r = await k
        .deleteFrom('app_passwords')
        .where('user_id', '=', userId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },

    /** Revokes all of a user's app passwords (the user is deleted). */
    async revokeUser(userId: number): Promise<void> {
      await k.deleteFrom('app_passwords').where('user_id', '=', userId).execute();
    },

    now,
  };
}
export type AppPasswordService = ReturnType<typeof createAppPasswordService>;
