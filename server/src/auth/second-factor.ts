/**
 * Two-factor sign-in with TOTP (RFC 6238, docs/api.md §2.12): enrolment (a secret, confirmed by a
 * code from it), the check at sign-in (a code is accepted once: its time step must be newer than
 * the last one accepted), and ten single-use recovery codes stored as SHA-256 digests.
 *
 * Codes are compared by otpauth in constant time; recovery codes have 80 random bits, so their
 * digest is looked up (and deleted) in one statement, which also makes each usable once.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { Db } from '../db/index.js';

export const TOTP_PERIOD_S = 30;
export const TOTP_DIGITS = 6;
/** Codes of the step before and after are accepted too (clock drift, a code typed at the turn). */
export const TOTP_WINDOW = 1;
export const RECOVERY_CODES = 10;
const ISSUER = 'Coffer';
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export type SecondFactorCheck = 'ok' | 'wrong';

/** --require-second-factor (docs/api.md §2.12): whether this user must have one. */
export function secondFactorRequired(policy: string, user: { perm: { admin: boolean } }): boolean {
  return policy === 'all' || (policy === 'admins' && user.perm.admin);
}

/**
 * What a session of a user who must set up a second factor and has none may reach: its status,
 * the enrolment, renewal and logout (docs/api.md §2.12). Paths without the base URL.
 */
export const ENROLMENT_ROUTES = new Set([
  'GET /api/second-factor',
  'POST /api/second-factor/totp',
  'POST /api/second-factor/totp/confirm',
  'GET /api/passkeys',
  'POST /api/passkeys/options',
  'POST /api/passkeys',
  'POST /api/renew',
  'POST /api/logout',
]);

function totpOf(secret: string, label = ''): TOTP {
  return new TOTP({
    issuer: ISSUER,
    label,
    algorithm: 'SHA1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_S,
    secret: Secret.fromBase32(secret),
  });
}

/** A recovery code as people type it: any case, spaces and dashes ignored. */
export function normaliseRecoveryCode(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, '');
}

function recoveryDigest(code: string): string {
  return createHash('sha256').update(normaliseRecoveryCode(code)).digest('hex');
}

/** `XXXX-XXXX-XXXX-XXXX` from 16 base32 characters: 80 random bits. */
function newRecoveryCode(): string {
  const bytes = randomBytes(16);
  const chars = [...bytes].map((b) => BASE32[b & 31]).join('');
  return chars.match(/.{4}/g)!.join('-');
}

const TOTP_SHAPE = /^[0-9]{6}$/;
const RECOVERY_SHAPE = /^[A-Z2-7]{16}$/;

export function createSecondFactorService(deps: { db: Db; now?: () => number }) {
  const k = deps.db.kysely;
  const now = deps.now ?? (() => Math.floor(Date.now() / 1000));

  /** The step of an accepted code, or null; otpauth compares in constant time. */
  function acceptedStep(secret: string, code: string): number | null {
    if (!TOTP_SHAPE.test(code)) return null;
    const t = now();
    const delta = totpOf(secret).validate({ token: code, timestamp: t * 1000, window: TOTP_WINDOW });
    return delta === null ? null : Math.floor(t / TOTP_PERIOD_S) + delta;
  }

  async function newRecoveryCodes(userId: number): Promise<string[]> {
    const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
    await k.transaction().execute(async (tx) => {
      await tx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
      await tx
        .insertInto('recovery_codes')
        .values(codes.map((c) => ({ user_id: userId, code_hash: recoveryDigest(c) })))
        .execute();
    });
    return codes;
  }

  return {
    /** Whether the user signs in with a second factor, and how many recovery codes are left. */
    async status(userId: number): Promise<{ totp: boolean; recoveryCodesLeft: number; passkeys: number }> {
      const row = await k
        .selectFrom('totp')
        .select('confirmed')
        .where('user_id', '=', userId)
        .executeTakeFirst();
      const left = await k
        .selectFrom('recovery_codes')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow();
      const passkeys = await k
        .selectFrom('passkeys')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow();
      return { totp: Boolean(row?.confirmed), recoveryCodesLeft: Number(left.n), passkeys: Number(passkeys.n) };
    },

    /** Whether sign-in asks this user for a second factor: TOTP on, or a passkey (docs/api.md §2.13). */
    async enabled(userId: number): Promise<boolean> {
      const row = await k
        .selectFrom('totp')
        .select('confirmed')
        .where('user_id', '=', userId)
        .executeTakeFirst();
      if (row?.confirmed) return true;
      return (await k.selectFrom('passkeys').select('id').where('user_id', '=', userId).limit(1).executeTakeFirst()) !== undefined;
    },

    /** Whether this user has TOTP on (codes and recovery codes are taken). */
    async totpEnabled(userId: number): Promise<boolean> {
      const row = await k
        .selectFrom('totp')
        .select('confirmed')
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return Boolean(row?.confirmed);
    },

    /**
     * Starts enrolment: a new secret, kept unconfirmed (a previous unconfirmed one is replaced).
     * Null when the user already has a confirmed one.
     */
    async begin(userId: number, username: string): Promise<{ secret: string; uri: string } | null> {
      const existing = await k
        .selectFrom('totp')
        .select('confirmed')
        .where('user_id', '=', userId)
        .executeTakeFirst();
      if (existing?.confirmed) return null;
      const secret = new Secret({ size: 20 }).base32;
      await k.deleteFrom('totp').where('user_id', '=', userId).where('confirmed', '=', 0).execute();
      await k
        .insertInto('totp')
        .values({ user_id: userId, secret, confirmed: 0, created_at: now(), last_step: 0 })
        .execute();
      return { secret, uri: totpOf(secret, username).toString() };
    },

    /**
     * Ends enrolment with a code from the new secret: the recovery codes (shown once), or null
     * when the code is wrong or there is nothing to confirm.
     */
    async confirm(userId: number, code: string): Promise<string[] | null> {
      const row = await k
        .selectFrom('totp')
        .selectAll()
        .where('user_id', '=', userId)
        .where('confirmed', '=', 0)
        .executeTakeFirst();
      if (!row) return null;
      const step = acceptedStep(row.secret, code.trim());
      if (step === null) return null;
      const r = await k
        .updateTable('totp')
        .set({ confirmed: 1, last_step: step })
        .where('user_id', '=', userId)
        .where('confirmed', '=', 0)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return null;
      return newRecoveryCodes(userId);
    },

    /**
     * The second step of signing in: a current code (refused when its step, or a later one, was
     * already accepted: no replay within the window), or an unused recovery code, which is used up.
     */
    async verify(userId: number, code: string): Promise<SecondFactorCheck> {
      const given = code.trim();
      if (RECOVERY_SHAPE.test(normaliseRecoveryCode(given))) {
        const r = await k
          .deleteFrom('recovery_codes')
          .where('user_id', '=', userId)
          .where('code_hash', '=', recoveryDigest(given))
          .executeTakeFirst();
        return Number(r.numDeletedRows) === 1 ? 'ok' : 'wrong';
      }
      const row = await k
        .selectFrom('totp')
        .selectAll()
        .where('user_id', '=', userId)
        .where('confirmed', '=', 1)
        .executeTakeFirst();
      if (!row) return 'wrong';
      const step = acceptedStep(row.secret, given);
      if (step === null) return 'wrong';
      // One statement decides, so two requests with the same code cannot both pass.
      const r = await k
        .updateTable('totp')
        .set({ last_step: step })
        .where('user_id', '=', userId)
        .where('last_step', '<', step)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1 ? 'ok' : 'wrong';
    },

    /** Ten new recovery codes; the old ones stop working. */
    regenerateRecoveryCodes: newRecoveryCodes,

    /** Turns the second factor off (the user, or an admin's reset). */
    async remove(userId: number): Promise<boolean> {
      const r = await k.deleteFrom('totp').where('user_id', '=', userId).executeTakeFirst();
      await k.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
      return Number(r.numDeletedRows) > 0;
    },
  };
}
export type SecondFactorService = ReturnType<typeof createSecondFactorService>;
