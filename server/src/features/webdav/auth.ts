/**
 * Who a WebDAV request is (issue 19, item 3): HTTP Basic, never a cookie or a token in the URL. The
 * user name and an app password (docs/api.md §2.10), or the account password through the
 * configured auth method, are checked in the same throttle as /api/login (S30); noauth serves
 * user 1 and proxy trusts its header as the web API does. A password the json method
 * verified is remembered for a few minutes, keyed by a digest of the credentials and bound to the
 * user's name, stored hash and the auth configuration it was checked under, so that a client's
 * hundreds of requests do not each cost an argon2 check. Under the hook method nothing is trusted:
 * the hook answers every request (authOf). Each use re-reads the user
 * and the auth configuration from the database, so that on every instance a changed password, a
 * renamed or deleted user, a second factor turned on or another auth method ends it at once.
 */
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { looksLikeAppPassword, type AppPasswordService } from '../../auth/app-passwords.js';
import { MAX_PASSWORD_BYTES } from '../../auth/passwords.js';
import { secondFactorRequired, type SecondFactorService } from '../../auth/second-factor.js';
import { Forbidden, HttpError } from '../../http/errors.js';
import type { SigninService } from '../signin/service.js';
import type { AutherConfig } from '../settings/repository.js';
import type { UserRecord, UserRepository } from '../users/repository.js';
import type { Invalidation } from '../cluster/shared.js';

export const REALM = 'Coffer';
/** What a read-only app password may send to WebDAV. */
const DAV_READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PROPFIND']);
const CHALLENGE = { 'WWW-Authenticate': `Basic realm="${REALM}", charset="UTF-8"` };

/** 401 with the Basic challenge: clients ask the user for a password and retry. */
export class NeedsCredentials extends HttpError {
  constructor() {
    super(401, '', { headers: CHALLENGE });
  }
}

export interface BasicCredentials {
  username: string;
  password: string;
}

/** `Authorization: Basic base64(user:password)` (RFC 7617, UTF-8); null when absent or another scheme. */
export function parseBasic(header: string | undefined): BasicCredentials | null {
  if (!header) return null;
  const space = header.indexOf(' ');
  if (space < 0 || header.slice(0, space).toLowerCase() !== 'basic') return null;
  const decoded = Buffer.from(header.slice(space + 1).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  const password = decoded.slice(colon + 1);
  if (Buffer.byteLength(password) > MAX_PASSWORD_BYTES) return null;
  return { username: decoded.slice(0, colon), password };
}

/** App passwords (docs/api.md §2.10): `verifyBasic` checks one through the same login throttle. */
export type AppPasswordCheck = Pick<AppPasswordService, 'verifyBasic'>;

/** How long a verified password is taken on trust (re-read user, same stored hash). */
const TRUST_MS = 5 * 60 * 1000;
const MAX_TRUSTED = 10_000;

export function createDavAuth(deps: {
  signin: SigninService;
  users: UserRepository;
  /** The auth method and its configuration, as stored now (every instance sees a change). */
  auther: () => Promise<AutherConfig>;
  appPasswords: AppPasswordCheck;
  /** --require-second-factor: a user it covers has no WebDAV until enrolled (docs/api.md §2.12). */
  secondFactor?: { policy: string; service: Pick<SecondFactorService, 'enabled'> };
  /** Changes on any instance (features/cluster/shared.ts): trust in a changed user's password ends at once. */
  invalidation?: Pick<Invalidation, 'subscribe'>;
  now?: () => number;
}) {
  const now = deps.now ?? Date.now;
  /** digest of the credentials → the user and the auth configuration they were checked against. */
  const trusted = new Map<string, { userId: number; username: string; passwordHash: string; auth: string; until: number }>();
  // Each use re-reads the user and the auth method anyway; dropping at once also frees the memory
  // and keeps a deleted user's entry from waiting for its expiry.
  deps.invalidation?.subscribe('users', (id) => {
    for (const [key, t] of trusted) if (id === undefined || String(t.userId) === id) trusted.delete(key);
  });
  deps.invalidation?.subscribe('settings', () => trusted.clear());
  /**
   * What a trusted password stays bound to: the method and what decides its verdict. Only under
   * json, where Coffer itself holds the password, is anything trusted. proxy and noauth check no
   * password. Under hook the command decides every sign-in, and its verdict can change without
   * anything Coffer stores changing (an account blocked in the directory behind it): a trusted
   * password would let a refused one in for minutes, so the hook runs for every request (docs/webdav.md;
   * app passwords do not run it).
   */
  const authOf = (a: AutherConfig) => (a.method === 'json' ? JSON.stringify([a.method, a.command]) : null);

  const digest = (c: BasicCredentials) => createHash('sha256').update(c.username).update('\0').update(c.password).digest('base64url');

  async function fromTrust(key: string): Promise<UserRecord | null> {
    const t = trusted.get(key);
    if (!t) return null;
    if (t.until < now()) {
      trusted.delete(key);
      return null;
    }
    const [user, auther] = await Promise.all([deps.users.byId(t.userId), deps.auther()]);
    // Another auth method (or hook command), a renamed user (the name is part of the credentials),
    // a changed password; a second factor turned on since: the password alone no longer signs in
    // (docs/api.md §2.12).
    if (
      !user ||
      authOf(auther) !== t.auth ||
      user.username !== t.username ||
      user.passwordHash !== t.passwordHash ||
      (await deps.secondFactor?.service.enabled(user.id))
    ) {
      trusted.delete(key);
      return null;
    }
    return user;
  }

  return {
    /** The request's user; 401 with a challenge without (valid) credentials, 429 when throttled. */
    async authenticate(req: FastifyRequest): Promise<UserRecord> {
      const creds = parseBasic(req.headers.authorization);
      const key = creds ? digest(creds) : '';
      if (creds && looksLikeAppPassword(creds.password)) {
        // An app password is never an account password: checked alone (a SHA-256 lookup, so not
        // taken on trust), its user's permissions narrowed when it is read-only.
        const match = await deps.appPasswords.verifyBasic(creds.username, creds.password, req.ip);
        if (!match) throw new NeedsCredentials();
        // Read-only reads, whatever a method checks (UNLOCK checks no permission): docs/api.md §2.10.
        if (match.session.appPassword?.readOnly && !DAV_READ_METHODS.has(req.method)) throw new Forbidden();
        // As in the API's authenticate: an app password of a user who must enrol first opens nothing.
        const sf = deps.secondFactor;
        if (sf && secondFactorRequired(sf.policy, match.user) && !(await sf.service.enabled(match.user.id))) {
          throw new Forbidden();
        }
        return match.user;
      }
      const known = creds ? await fromTrust(key) : null;
      if (known) return known;
      const ctx = {
        address: req.ip,
        peer: req.socket.remoteAddress,
        header(name: string) {
          const v = req.headers[name.toLowerCase()];
          return Array.isArray(v) ? v[0] : v;
        },
        log: req.log,
      };
      let user: UserRecord;
      // Read before the check: a method switched during it must not be what the trust is bound to.
      const auth = authOf(await deps.auther());
      try {
        user = await deps.signin.signInWithPassword(creds, ctx);
      } catch (err) {
        // A wrong password (403 from the sign-in) or none at all: ask again.
        if (err instanceof HttpError && (err.status === 401 || err.status === 403)) throw new NeedsCredentials();
        throw err;
      }
      if (creds && auth !== null && user.username === creds.username) {
        if (trusted.size >= MAX_TRUSTED) trusted.delete(trusted.keys().next().value as string);
        trusted.set(key, { userId: user.id, username: user.username, passwordHash: user.passwordHash, auth, until: now() + TRUST_MS });
      }
      return user;
    },
  };
}
export type DavAuth = ReturnType<typeof createDavAuth>;
