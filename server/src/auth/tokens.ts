import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { TokenPayload, TokenUser } from '@coffer/protocol';
import { SignJWT } from 'jose';
import { sql } from 'kysely';
import type { Db } from '../db/index.js';
import { Unauthorized } from '../http/errors.js';
import { prepareQuery } from '../db/prepared.js';
import { userFromRow, type UserRecord } from '../features/users/repository.js';

export const TOKEN_ISSUER = 'File Browser'; // docs/api.md §2.1: kept for compatibility
export const RENEW_WITHIN_S = 3600; // docs/api.md §2.3: X-Renew-Token when < 1 hour is left

export interface Session {
  jti: string;
  userId: number;
  iat: number;
  exp: number;
  /** The sign-in this token descends from: renewals keep it (docs/api.md §2.11). */
  family: string;
  /** Last use of any token of the family, Unix seconds (updated at most once a minute). */
  lastSeen: number;
  /** When the family signed in (Unix seconds): a renewal keeps it. */
  createdAt: number;
  /** How the family signed in (docs/api.md §2.11); '' for sessions from before migration 015. */
  signedInWith: SignedInWith | '';
  /** Set when the request came with an app password instead of a session token (docs/api.md §2.10). */
  appPassword?: { id: number; readOnly: boolean };
  /** The token has expired; only `authenticateResumable` lets such a session in (docs/api.md §13). */
  expired?: boolean;
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

/** Text that looks like a JWT: exactly two dots (docs/api.md §2.2). */
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

/** How a session signed in (docs/api.md §2.11): what confirms its changes to the sign-in depends on it. */
export const SIGNED_IN_WITH = ['password', 'passkey', 'oidc', 'proxy', 'hook', 'noauth'] as const;
export type SignedInWith = (typeof SIGNED_IN_WITH)[number];

function signedInWithOf(v: unknown): SignedInWith | '' {
  return (SIGNED_IN_WITH as readonly unknown[]).includes(v) ? (v as SignedInWith) : '';
}

/** Where a sign-in came from, recorded with its session (docs/api.md §2.11). */
export interface SessionOrigin {
  userAgent?: string;
  address?: string;
  /** How a sign-in was made; a renewal (`family`) keeps the family's and ignores this. */
  signedInWith?: SignedInWith;
  /** A renewal continues its session's family; a sign-in starts a new one. */
  family?: string;
}

/** A session family as the list shows it: its newest live token stands for it. */
export interface SessionEntry {
  family: string;
  jti: string;
  createdAt: number;
  lastSeen: number;
  expiresAt: number;
  userAgent: string;
  address: string;
}

/** `last_seen` is written at most this often per session (seconds): not a write per request. */
export const LAST_SEEN_GRANULARITY_S = 60;
const MAX_USER_AGENT = 512;

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
      .select([
        'sessions.jti as s_jti',
        'sessions.issued_at as s_issued_at',
        'sessions.expires_at as s_expires_at',
        'sessions.family as s_family',
        'sessions.last_seen as s_last_seen',
        'sessions.created_at as s_created_at',
        'sessions.signed_in_with as s_signed_in_with',
      ])
      // Whether the user has a second factor (TOTP on or a passkey): --require-second-factor is
      // checked on every request.
      .select((eb) =>
        eb
          .or([
            eb.exists(
              eb.selectFrom('totp').select('totp.user_id').whereRef('totp.user_id', '=', 'users.id').where('totp.confirmed', '=', sql.lit(1)),
            ),
            eb.exists(eb.selectFrom('passkeys').select('passkeys.id').whereRef('passkeys.user_id', '=', 'users.id')),
          ])
          .as('s_totp'),
      )
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

  /**
   * Forgets expired sessions, except those that created an unfinished upload: the expired token of
   * a session that was never ended may still continue its upload (docs/api.md §13), and the
   * session's row is what says it was not ended. It goes once the upload ends or expires (S52).
   */
  async function sweep(): Promise<void> {
    await k
      .deleteFrom('sessions')
      .where('expires_at', '<', now())
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('uploads').select('uploads.id').whereRef('uploads.session_jti', '=', 'sessions.jti'))),
      )
      .execute();
  }

  /**
   * Ends sessions with the same DELETE run twice, one statement after the other (S24: no token
   * outlives a logout). A renewal inserts its new token, then checks that another token of its
   * family still lives (`issue`). On PostgreSQL a DELETE removes the rows of its statement's
   * snapshot: a renewal that committed its token after that snapshot, and whose check still saw the
   * old token because the DELETE had not committed yet, would keep a live token after the logout.
   * The second statement's snapshot is taken after the first one committed, so it sees such a token:
   * either the renewal checked after the first commit (and refused itself), or it had committed its
   * token before that check, hence before the second snapshot. On SQLite writes are serialised and
   * the second statement finds nothing.
   */
  async function endSessions(query: () => { executeTakeFirst(): Promise<{ numDeletedRows: bigint }> }): Promise<number> {
    const first = await query().executeTakeFirst();
    const second = await query().executeTakeFirst();
    return Number(first.numDeletedRows) + Number(second.numDeletedRows);
  }

  /** Whether the family has a token other than `jti`: a renewal continues a sign-in that still lives. */
  async function familyLivesBeside(userId: number, family: string, jti: string): Promise<boolean> {
    const other = await k
      .selectFrom('sessions')
      .select('jti')
      .where('user_id', '=', userId)
      .where('family', '=', family)
      .where('jti', '!=', jti)
      .limit(1)
      .executeTakeFirst();
    return other !== undefined;
  }

  return {
    async issue(user: UserRecord, origin: SessionOrigin = {}): Promise<string> {
      const iat = now();
      const exp = iat + Math.max(1, Math.round(deps.lifetimeSeconds));
      const jti = randomBytes(18).toString('base64url'); // 144 bits
      let family = randomBytes(18).toString('base64url');
      let createdAt = iat;
      let signedInWith: string = origin.signedInWith ?? '';
      if (origin.family) {
        // A renewal: the family's first sign-in time and the way it signed in stay.
        const first = await k
          .selectFrom('sessions')
          .select(['created_at', 'signed_in_with'])
          .where('family', '=', origin.family)
          .where('user_id', '=', user.id)
          .orderBy('created_at', 'asc')
          .limit(1)
          .executeTakeFirst();
        family = origin.family;
        signedInWith = '';
        if (first) {
          createdAt = Number(first.created_at);
          signedInWith = first.signed_in_with;
        }
      }
      await k
        .insertInto('sessions')
        .values({
          jti,
          user_id: user.id,
          issued_at: iat,
          expires_at: exp,
          family,
          created_at: createdAt,
          last_seen: iat,
          user_agent: (origin.userAgent ?? '').slice(0, MAX_USER_AGENT),
          address: (origin.address ?? '').slice(0, 64),
          signed_in_with: signedInWith,
        })
        .execute();
      if (origin.family && !(await familyLivesBeside(user.id, family, jti))) {
        // The sign-in was ended (logout) while this renewal ran: its new token ends with it (S24).
        await k.deleteFrom('sessions').where('jti', '=', jti).execute();
        throw new Unauthorized();
      }
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
      return {
        jti: row.jti,
        userId: c.userId,
        iat: Number(row.issued_at),
        exp: Number(row.expires_at),
        family: row.family,
        lastSeen: Number(row.last_seen),
        createdAt: Number(row.created_at),
        signedInWith: signedInWithOf(row.signed_in_with),
      };
    },

    /**
     * verify(), the session's user and the stored settings text in one query (the per-request path
     * of `app.authenticate`): read from the database every time, so a revoked session or a deleted
     * user fails at once (S20–S22) and changed global rules apply to the next request.
     * `allowExpired` accepts a token past its `exp` whose session is still recorded (docs/api.md §13).
     */
    async verifyWithUser(
      token: string,
      opts: { allowExpired?: boolean } = {},
    ): Promise<{ session: Session; user: UserRecord; settingsText: string | undefined; hasSecondFactor: boolean } | null> {
      const c = claims(token, opts.allowExpired);
      if (!c) return null;
      const [row] = await sessionWithUser([c.jti]);
      if (!row || Number(row.id) !== c.userId) return null;
      if (!opts.allowExpired && Number(row.s_expires_at) < now()) return null;
      const {
        s_jti: jti,
        s_issued_at: iat,
        s_expires_at: exp,
        s_family: family,
        s_last_seen: lastSeen,
        s_created_at: createdAt,
        s_signed_in_with: how,
        s_settings: settingsText,
        s_totp: totp,
        ...user
      } = row;
      return {
        session: {
          jti,
          userId: c.userId,
          iat: Number(iat),
          exp: Number(exp),
          family,
          lastSeen: Number(lastSeen),
          createdAt: Number(createdAt),
          signedInWith: signedInWithOf(how),
        },
        user: userFromRow(user),
        settingsText: settingsText ?? undefined,
        hasSecondFactor: Boolean(totp),
      };
    },

    /** Records that the session was used now, when its last record is a minute old or more. */
    async touch(session: Session): Promise<void> {
      const t = now();
      if (t - session.lastSeen < LAST_SEEN_GRANULARITY_S) return;
      await k.updateTable('sessions').set({ last_seen: t }).where('jti', '=', session.jti).execute();
    },

    /**
     * The user's live sessions, one entry per family (docs/api.md §2.11): its newest token, the
     * family's first sign-in and last use. Newest use first.
     */
    async list(userId: number): Promise<SessionEntry[]> {
      const rows = await k
        .selectFrom('sessions')
        .selectAll()
        .where('user_id', '=', userId)
        .where('expires_at', '>=', now())
        .orderBy('issued_at', 'asc')
        .execute();
      const byFamily = new Map<string, SessionEntry>();
      for (const r of rows) {
        const prev = byFamily.get(r.family);
        byFamily.set(r.family, {
          family: r.family,
          jti: r.jti,
          createdAt: Math.min(Number(r.created_at), prev?.createdAt ?? Infinity),
          lastSeen: Math.max(Number(r.last_seen), prev?.lastSeen ?? 0),
          expiresAt: Math.max(Number(r.expires_at), prev?.expiresAt ?? 0),
          userAgent: r.user_agent,
          address: r.address,
        });
      }
      return [...byFamily.values()].sort((a, b) => b.lastSeen - a.lastSeen);
    },

    /** Ends every token of one of the user's session families; false when it has none. */
    async revokeFamily(userId: number, family: string): Promise<boolean> {
      const n = await endSessions(() => k.deleteFrom('sessions').where('user_id', '=', userId).where('family', '=', family));
      return n > 0;
    },

    /** Ends every session of a user except those of `keepFamily` (the device asking). */
    async revokeOtherFamilies(userId: number, keepFamily: string): Promise<void> {
      await endSessions(() => k.deleteFrom('sessions').where('user_id', '=', userId).where('family', '!=', keepFamily));
    },

    async revoke(jti: string): Promise<void> {
      await k.deleteFrom('sessions').where('jti', '=', jti).execute();
    },

    /** Ends every session of a user, except `keepJti` (S21: the request that changed the password). */
    async revokeUser(userId: number, keepJti?: string): Promise<void> {
      await endSessions(() => {
        const q = k.deleteFrom('sessions').where('user_id', '=', userId);
        return keepJti ? q.where('jti', '!=', keepJti) : q;
      });
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
