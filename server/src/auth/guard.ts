import type { Permissions } from '@coffer/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Forbidden, HttpError, Unauthorized } from '../http/errors.js';
import type { RateLimiter } from '../http/rate-limit.js';
import type { SettingsRepository } from '../features/settings/repository.js';
import { looksLikeAppPassword, type AppPasswordService } from './app-passwords.js';
import { ENROLMENT_ROUTES, secondFactorRequired, type SecondFactorService } from './second-factor.js';
import type { UserRecord } from '../features/users/repository.js';
import { looksLikeJwt, RENEW_WITHIN_S, type TokenService } from './tokens.js';

/** What a read-only app password may send (docs/api.md §2.10). */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Reads one cookie from the Cookie header without a cookie library. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * Where a request's token comes from (docs/api.md §2.2, S25, S26): X-Auth always; the `auth` cookie
 * only for GET/HEAD (the WebSocket upgrade is a GET); never the query string. An app password
 * (docs/api.md §2.10) in X-Auth or as `Authorization: Bearer`, never in the cookie.
 */
export function tokenFrom(req: FastifyRequest): string | undefined {
  const header = req.headers['x-auth'];
  const fromHeader = Array.isArray(header) ? header[0] : header;
  if (looksLikeJwt(fromHeader) || looksLikeAppPassword(fromHeader)) return fromHeader;
  const authorization = req.headers.authorization;
  if (authorization?.startsWith('Bearer ')) {
    const bearer = authorization.slice(7).trim();
    if (looksLikeAppPassword(bearer)) return bearer;
  }
  if (req.method === 'GET' || req.method === 'HEAD') {
    const cookie = readCookie(req.headers.cookie, 'auth');
    if (looksLikeJwt(cookie)) return cookie;
  }
  return undefined;
}

/**
 * The preHandler that every authenticated route uses: token → live session → user re-read from the
 * DB, with the global rules of the settings read in the same query (`req.globalRules`).
 */
export function createAuthenticate(
  deps: {
    tokens: TokenService;
    settings: Pick<SettingsRepository, 'rulesOf'>;
    appPasswords: Pick<AppPasswordService, 'verify'>;
    secondFactor: Pick<SecondFactorService, 'enabled'>;
    config: { baseURL: string; requireSecondFactor: string };
  },
  limiter?: RateLimiter,
) {
  /**
   * --require-second-factor (docs/api.md §2.12): a user who must have a second factor and has none
   * reaches only the enrolment (403 with `X-Second-Factor: enrol` elsewhere); app passwords, which
   * cannot enrol, not at all.
   */
  function checkEnrolment(req: FastifyRequest, user: UserRecord, hasSecondFactor: boolean, viaAppPassword: boolean): void {
    if (hasSecondFactor || !secondFactorRequired(deps.config.requireSecondFactor, user)) return;
    const route = `${req.method} ${(req.routeOptions.url ?? '').slice(deps.config.baseURL.length)}`;
    if (viaAppPassword || !ENROLMENT_ROUTES.has(route)) throw new HttpError(403, '', { headers: { 'X-Second-Factor': 'enrol' } });
  }

  return async function authenticate(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const token = tokenFrom(req);
    if (!token) throw new Unauthorized();
    if (looksLikeAppPassword(token)) {
      // docs/api.md §2.10: revoked or expired is 401 at once; read-only narrows the permissions.
      const match = await deps.appPasswords.verify(token, req.ip);
      if (!match) {
        await limiter?.anon(req.ip, req);
        throw new Unauthorized();
      }
      // Read-only is read-only on every route, whatever permission it would check (or forget to).
      if (match.session.appPassword?.readOnly && !READ_METHODS.has(req.method)) throw new Forbidden();
      if (secondFactorRequired(deps.config.requireSecondFactor, match.user)) {
        checkEnrolment(req, match.user, await deps.secondFactor.enabled(match.user.id), true);
      }
      await limiter?.user(match.user.id, req);
      req.user = match.user;
      req.session = match.session;
      req.globalRules = deps.settings.rulesOf(match.settingsText);
      return;
    }
    // One query: the live session and its user (S20–S22: a revoked session or deleted user fails at once).
    const found = await deps.tokens.verifyWithUser(token);
    if (!found) {
      await limiter?.anon(req.ip, req); // a bad token is no way around the per-address limit (S83)
      throw new Unauthorized();
    }
    const { session, user } = found;
    checkEnrolment(req, user, found.hasSecondFactor, false);
    await limiter?.user(user.id, req);
    req.user = user;
    req.session = session;
    req.globalRules = deps.settings.rulesOf(found.settingsText);
    await deps.tokens.touch(session);
    const now = deps.tokens.now();
    const renew = session.exp - now < RENEW_WITHIN_S || user.updatedAt > session.iat;
    if (renew) void reply.header('X-Renew-Token', 'true');
  };
}

/**
 * For requests that continue what a session started (tus HEAD, PATCH and DELETE, docs/api.md §13:
 * a long upload outlives its token): `authenticate`, or else the expired token of a session that
 * was never ended — its signature checks out and its session is still recorded (logout, a new
 * password and deleting the user remove it, S21, S22, S24). Such a request carries
 * `req.session.expired`; the route lets it touch only what its own session started.
 */
export function createAuthenticateResumable(
  authenticate: (req: FastifyRequest, reply: FastifyReply) => Promise<void>,
  deps: { tokens: TokenService; settings: Pick<SettingsRepository, 'rulesOf'> },
) {
  return async function authenticateResumable(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    try {
      await authenticate(req, reply);
      return;
    } catch (err) {
      if (!(err instanceof HttpError && err.status === 401)) throw err;
    }
    const token = tokenFrom(req);
    const found = token ? await deps.tokens.verifyWithUser(token, { allowExpired: true }) : null;
    // A token that has not expired was refused for another reason.
    if (!found || found.session.exp > deps.tokens.now()) throw new Unauthorized();
    req.user = found.user;
    req.session = { ...found.session, expired: true };
    req.globalRules = deps.settings.rulesOf(found.settingsText);
  };
}

export function requirePerm(...perms: (keyof Permissions)[]) {
  return async function permGuard(req: FastifyRequest): Promise<void> {
    for (const p of perms) if (!req.user.perm[p]) throw new Forbidden();
  };
}

/**
 * Routes that manage the account's sign-in (sessions, app passwords, renewal, logout, the own
 * password and second factors) need a signed-in session: an app password cannot mint more
 * credentials or lock its owner out (docs/api.md §2.10).
 */
export async function requireSignedIn(req: FastifyRequest): Promise<void> {
  if (req.session.appPassword) throw new Forbidden();
}

/**
 * Write routes that no permission guards (cancelling or forgetting a job): a read-only app password
 * gets 403 on every write route (docs/api.md §2.10).
 */
export async function requireWritable(req: FastifyRequest): Promise<void> {
  if (req.session.appPassword?.readOnly) throw new Forbidden();
}

export async function requireAdmin(req: FastifyRequest): Promise<void> {
  if (!req.user.perm.admin) throw new Forbidden();
}
