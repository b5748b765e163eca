import type { Permissions } from '@coffer/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Forbidden, Unauthorized } from '../http/errors.js';
import type { RateLimiter } from '../http/rate-limit.js';
import type { SettingsRepository } from '../features/settings/repository.js';
import { looksLikeJwt, RENEW_WITHIN_S, type TokenService } from './tokens.js';

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
 * Where a request's token comes from (api.md §1, S25, S26): X-Auth always; the `auth` cookie
 * only for GET/HEAD (the WebSocket upgrade is a GET); never the query string.
 */
export function tokenFrom(req: FastifyRequest): string | undefined {
  const header = req.headers['x-auth'];
  const fromHeader = Array.isArray(header) ? header[0] : header;
  if (looksLikeJwt(fromHeader)) return fromHeader;
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
  deps: { tokens: TokenService; settings: Pick<SettingsRepository, 'rulesOf'> },
  limiter?: RateLimiter,
) {
  return async function authenticate(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const token = tokenFrom(req);
    if (!token) throw new Unauthorized();
    // One query: the live session and its user (S20–S22: a revoked session or deleted user fails at once).
    const found = await deps.tokens.verifyWithUser(token);
    if (!found) {
      limiter?.anon(req.ip); // a bad token is no way around the per-address limit (S83)
      throw new Unauthorized();
    }
    const { session, user } = found;
    limiter?.user(user.id);
    req.user = user;
    req.session = session;
    req.globalRules = deps.settings.rulesOf(found.settingsText);
    const now = deps.tokens.now();
    const renew = session.exp - now < RENEW_WITHIN_S || user.updatedAt > session.iat;
    if (renew) void reply.header('X-Renew-Token', 'true');
  };
}

export function requirePerm(...perms: (keyof Permissions)[]) {
  return async function permGuard(req: FastifyRequest): Promise<void> {
    for (const p of perms) if (!req.user.perm[p]) throw new Forbidden();
  };
}

export async function requireAdmin(req: FastifyRequest): Promise<void> {
  if (!req.user.perm.admin) throw new Forbidden();
}
