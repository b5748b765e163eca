import { randomBytes } from 'node:crypto';
import type { TokenPayload, TokenUser } from '@coffer/protocol';
import { jwtVerify, SignJWT } from 'jose';
import type { Db } from '../db/index.js';
import type { UserRecord } from '../features/users/repository.js';

export const TOKEN_ISSUER = 'File Browser'; // api.md §1: kept for compatibility
export const RENEW_WITHIN_S = 3600; // api.md §1: X-Renew-Token when < 1 hour is left

export interface Session {
  jti: string;
  userId: number;
  iat: number;
  exp: number;
}

export function tokenUser(u: UserRecord): TokenUser {
  return {
    id: u.id,
    locale: u.locale,
    viewMode: u.viewMode,
    singleClick: u.singleClick,
    redirectAfterCopyMove: u.redirectAfterCopyMove,
    perm: { ...u.perm },
    commands: [...u.commands],
    lockPassword: u.lockPassword,
    hideDotfiles: u.hideDotfiles,
    dateFormat: u.dateFormat,
    username: u.username,
    aceEditorTheme: u.aceEditorTheme,
  };
}

/** Text that looks like a JWT: exactly two dots (api.md §1). */
export function looksLikeJwt(v: string | undefined): v is string {
  return typeof v === 'string' && v.length < 16384 && v.split('.').length === 3;
}

/**
 * JWTs that are also server-side sessions (S20): every token carries a `jti` recorded in the
 * `sessions` table; revoking a session or deleting a user makes its tokens fail at once.
 */
export function createTokenService(deps: { db: Db; key: Uint8Array; lifetimeSeconds: number; now?: () => number }) {
  const k = deps.db.kysely;
  const now = deps.now ?? (() => Math.floor(Date.now() / 1000));
  let issuedSinceSweep = 0;

  async function sweep(): Promise<void> {
    await k.deleteFrom('sessions').where('expires_at', '<', now()).execute();
  }

  return {
    async issue(user: UserRecord): Promise<string> {
      const iat = now();
      const exp = iat + Math.max(1, Math.round(deps.lifetimeSeconds));
      const jti = randomBytes(18).toString('base64url'); // 144 bits
      await k.insertInto('sessions').values({ jti, user_id: user.id, issued_at: iat, expires_at: exp }).execute();
      if (++issuedSinceSweep >= 100) {
        issuedSinceSweep = 0;
        await sweep();
      }
      return new SignJWT({ user: tokenUser(user) })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuer(TOKEN_ISSUER)
        .setIssuedAt(iat)
        .setExpirationTime(exp)
        .setJti(jti)
        .sign(deps.key);
    },

    /** The live session a token stands for, or null (bad signature, alg, exp, revoked…). */
    async verify(token: string, opts: { allowExpired?: boolean } = {}): Promise<Session | null> {
      let payload: Partial<TokenPayload>;
      try {
        ({ payload } = (await jwtVerify(token, deps.key, {
          algorithms: ['HS256'],
          requiredClaims: ['exp', 'jti'],
          currentDate: opts.allowExpired ? new Date(0) : new Date(now() * 1000),
          clockTolerance: 0,
        })) as unknown as { payload: Partial<TokenPayload> });
      } catch {
        return null;
      }
      const userId = payload.user?.id;
      if (typeof payload.jti !== 'string' || typeof userId !== 'number' || typeof payload.exp !== 'number') return null;
      const row = await k.selectFrom('sessions').selectAll().where('jti', '=', payload.jti).executeTakeFirst();
      if (!row || Number(row.user_id) !== userId) return null;
      if (!opts.allowExpired && Number(row.expires_at) < now()) return null;
      return { jti: row.jti, userId, iat: Number(row.issued_at), exp: Number(row.expires_at) };
    },

    async revoke(jti: string): Promise<void> {
      await k.deleteFrom('sessions').where('jti', '=', jti).execute();
    },

    /** Ends every session of a user, except `keepJti` (S21: the request that changed the password). */
    async revokeUser(userId: number, keepJti?: string): Promise<void> {
      let q = k.deleteFrom('sessions').where('user_id', '=', userId);
      if (keepJti) q = q.where('jti', '!=', keepJti);
      await q.execute();
    },

    async countActive(): Promise<number> {
      const r = await k.selectFrom('sessions').select((eb) => eb.fn.countAll<number>().as('n')).where('expires_at', '>=', now()).executeTakeFirstOrThrow();
      return Number(r.n);
    },
    sweep,
    now,
  };
}
export type TokenService = ReturnType<typeof createTokenService>;
