import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { TokenPayload, TokenUser } from '@coffer/protocol';
import { SignJWT } from 'jose';
import { sql } from 'kysely';
import type { Db } from '../db/index.js';
import { prepareQuery } from '../db/prepared.js';
import { userFromRow, type UserRecord } from '../features/users/repository.js';

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

const B64URL = /^[A-Za-z0-9_-]*$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

function jsonObject(part: string): Record<string, unknown> | null {
  if (!B64URL.test(part)) return null;
  try {
    const v: unknown = JSON.parse(utf8.decode(Buffer.from(part, 'base64url')));
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * The claims of a compact HS256 JWS whose signature checks out with `key`, or null. Synchronous
 * (one HMAC): jose's verify imports the key and runs WebCrypto for every token, which was a tenth
 * of the time of a small authenticated request. Same checks as jose's jwtVerify with HS256 only,
 * `exp` and `jti` required, no clock tolerance: header `alg` exactly "HS256", no `crit`; `exp` a
 * number and > now; `iat`/`nbf` numbers when present, `nbf` <= now.
 */
export function verifyHs256(token: string, key: Uint8Array, now: number): Partial<TokenPayload> | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const [h, p, sig] = parts as [string, string, string];
  const header = jsonObject(h);
  if (!header || header.alg !== 'HS256' || 'crit' in header) return null;
  if (!B64URL.test(sig)) return null;
  const given = Buffer.from(sig, 'base64url');
  // Only the canonical spelling: no second text (other spare bits in the last character) for one signature.
  if (given.toString('base64url') !== sig) return null;
  const expected = createHmac('sha256', key).update(`${h}.${p}`).digest();
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  const claims = jsonObject(p);
  if (!claims || !Object.hasOwn(claims, 'exp') || !Object.hasOwn(claims, 'jti')) return null;
  for (const c of ['exp', 'iat', 'nbf']) if (claims[c] !== undefined && typeof claims[c] !== 'number') return null;
  if ((claims.exp as number) <= now) return null;
  if (typeof claims.nbf === 'number' && claims.nbf > now) return null;
  return claims as Partial<TokenPayload>;
}

interface Claims {
  jti: string;
  userId: number;
  exp: number;
}

/** How many verified tokens `claims` remembers (the oldest is forgotten first). */
const VERIFIED_TOKENS = 1024;

function claimsOf(payload: Partial<TokenPayload> | null): Claims | null {
  const userId = payload?.user?.id;
  if (!payload || typeof payload.jti !== 'string' || typeof userId !== 'number' || typeof payload.exp !== 'number') return null;
  return { jti: payload.jti, userId, exp: payload.exp };
}

/**
 * JWTs that are also server-side sessions (S20): every token carries a `jti` recorded in the
 * `sessions` table; revoking a session or deleting a user makes its tokens fail at once.
 */
export function createTokenService(deps: { db: Db; key: Uint8Array; lifetimeSeconds: number; now?: () => number }) {
  const k = deps.db.kysely;
  const now = deps.now ?? (() => Math.floor(Date.now() / 1000));
  let issuedSinceSweep = 0;
  // Run on every authenticated request: built once (db/prepared.ts). One row: the session, its
  // user and the stored settings text (for the global rules), so a request reads the database once.
  const sessionByJti = prepareQuery(deps.db, k.selectFrom('sessions').selectAll().where('jti', '=', ''));
  const sessionWithUser = prepareQuery(
    deps.db,
    k
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .selectAll('users')
      .select(['sessions.jti as s_jti', 'sessions.issued_at as s_issued_at', 'sessions.expires_at as s_expires_at'])
      .select((eb) => eb.selectFrom('kv').select('kv.value').where('kv.key', '=', sql.lit('settings')).as('s_settings'))
      .where('sessions.jti', '=', ''),
  );

  // Claims of tokens whose signature checked out, by token text: the HMAC and the JSON parsing are
  // pure functions of the text, so a token seen before only needs its expiry checked again (its
  // `nbf`, in the past when first seen, stays so). The session behind it is still read per request.
  const verified = new Map<string, Claims>();

  /** The token's claims when its signature, alg and times are right (`exp` ignored with allowExpired). */
  function claims(token: string, allowExpired?: boolean): Claims | null {
    if (allowExpired) return claimsOf(verifyHs256(token, deps.key, 0));
    const t = now();
    const known = verified.get(token);
    if (known) return known.exp > t ? known : null;
    const c = claimsOf(verifyHs256(token, deps.key, t));
    if (c) {
      if (verified.size >= VERIFIED_TOKENS) verified.delete(verified.keys().next().value!);
      verified.set(token, c);
    }
    return c;
  }

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
      const c = claims(token, opts.allowExpired);
      if (!c) return null;
      const [row] = await sessionByJti([c.jti]);
      if (!row || Number(row.user_id) !== c.userId) return null;
      if (!opts.allowExpired && Number(row.expires_at) < now()) return null;
      return { jti: row.jti, userId: c.userId, iat: Number(row.issued_at), exp: Number(row.expires_at) };
    },

    /**
     * verify(), the session's user and the stored settings text in one query (the per-request path
     * of `app.authenticate`): read from the database every time, so a revoked session or a deleted
     * user fails at once (S20–S22) and changed global rules apply to the next request.
     */
    async verifyWithUser(
      token: string,
    ): Promise<{ session: Session; user: UserRecord; settingsText: string | undefined } | null> {
      const c = claims(token);
      if (!c) return null;
      const [row] = await sessionWithUser([c.jti]);
      if (!row || Number(row.id) !== c.userId) return null;
      if (Number(row.s_expires_at) < now()) return null;
      const { s_jti: jti, s_issued_at: iat, s_expires_at: exp, s_settings: settingsText, ...user } = row;
      return {
        session: { jti, userId: c.userId, iat: Number(iat), exp: Number(exp) },
        user: userFromRow(user),
        settingsText: settingsText ?? undefined,
      };
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
