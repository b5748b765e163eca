/**
 * GET /api/oidc/login, GET /api/oidc/callback, POST /api/oidc/session (docs/api.md §2.13): the
 * oidc auth method's browser flow. Every refusal of the callback sends the browser back to the
 * login page with `oidc_error` (`refused` or `failed`); the reason is logged, never shown.
 * Throttled (429): login and callback requests per address (OIDC_REQUESTS_PER_ADDRESS), and the
 * callback also by the login throttle (S30), in which each refused callback counts as a failure.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { readCookie } from '../../auth/guard.js';
import { createOidcThrottle, LOGIN_WINDOW_MS, OIDC_REQUESTS_PER_ADDRESS } from '../../auth/throttle.js';
import { looksLikeJwt } from '../../auth/tokens.js';
import { NotFound, Unauthorized } from '../../http/errors.js';
import { errors, noBody, PUBLIC, textBody } from '../../http/schemas.js';
import type { AutherConfig, OidcConfig } from '../settings/repository.js';
import { createOidcClient, localPath, OidcRefused } from './methods/oidc.js';
import {
  OIDC_SESSION_COOKIE,
  OIDC_SESSION_SECONDS,
  OIDC_STATE_COOKIE,
  OIDC_STATE_SECONDS,
  openState,
  sealState,
  stateKey,
} from './methods/oidc-state.js';

const tags = ['auth'];
const redirect = (description: string) =>
  noBody(description, { Location: Type.String(), 'Set-Cookie': Type.Optional(Type.String()) });

/** The provider in use, or 404 while the auth method is not oidc (or it is not configured). */
function activeOidc(auther: AutherConfig): OidcConfig {
  if (auther.method !== 'oidc' || !auther.oidc?.issuer) throw new NotFound();
  return auther.oidc;
}

export async function oidcRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { settings, users, config, tokens, loginThrottle } = app.deps;
  // The instance's shared store (every worker, or Redis, counts the same requests).
  const requests = createOidcThrottle(app.deps.shared.throttleStore('oidc', LOGIN_WINDOW_MS, OIDC_REQUESTS_PER_ADDRESS));
  /** The login throttle's target for callbacks: failures count per address (S30), not per user. */
  const CALLBACK_TARGET = 'oidc callback';
  const oidc = createOidcClient({ users, settings, config, db: app.deps.db });
  const base = config.baseURL;
  const cookiePath = `${base}/api/oidc/`;
  let key: Promise<Uint8Array> | null = null;
  const sealKey = () =>
    (key ??= settings.signingKey().then((k) => {
      if (!k) throw new Error('no signing key');
      return stateKey(k);
    }));

  /** HttpOnly cookies on /api/oidc/ only; Secure when the callback is https. */
  function cookie(o: OidcConfig, name: string, value: string, maxAge: number, sameSite: 'Lax' | 'Strict'): string {
    const secure = o.redirectUrl.startsWith('https:') ? '; Secure' : '';
    return `${name}=${value}; Path=${cookiePath}; Max-Age=${maxAge}; HttpOnly; SameSite=${sameSite}${secure}`;
  }
  const purpose = (o: OidcConfig) => `${o.issuer} ${o.clientId}`;
  const toLogin = (reply: FastifyReply, query: string, cookies: string[]) =>
    reply.code(302).header('Set-Cookie', cookies).header('Location', `${base}/login?${query}`).send();

  app.get(
    '/api/oidc/login',
    {
      schema: {
        tags,
        summary: 'Start OIDC sign-in: to the provider (docs/api.md §2.13)',
        security: PUBLIC,
        querystring: Type.Object({
          redirect: Type.Optional(Type.String({ maxLength: 2048, description: 'a path of this app to open afterwards' })),
        }),
        response: { 302: redirect('to the provider, with the flow in an encrypted cookie'), ...errors(400, 404, 429) },
      },
    },
    async (req, reply) => {
      const o = activeOidc(await settings.auther());
      await requests.admit(req.ip);
      let started: Awaited<ReturnType<typeof oidc.begin>>;
      try {
        started = await oidc.begin(o, req.query.redirect ?? '/');
      } catch (err) {
        req.log.error({ err, event: 'oidc_failed' }, 'OIDC provider discovery failed');
        return toLogin(reply, 'oidc_error=failed', []);
      }
      const sealed = await sealState(await sealKey(), started.pending, purpose(o));
      // Lax: the provider sends the browser back with a top-level GET from its own site.
      return reply
        .code(302)
        .header('Set-Cookie', cookie(o, OIDC_STATE_COOKIE, sealed, OIDC_STATE_SECONDS, 'Lax'))
        .header('Location', started.url)
        .send();
    },
  );

  app.get(
    '/api/oidc/callback',
    {
      schema: {
        tags,
        summary: "The provider's redirect back: signs in and goes to the login page (docs/api.md §2.13)",
        security: PUBLIC,
        querystring: Type.Object(
          {
            code: Type.Optional(Type.String({ maxLength: 4096 })),
            state: Type.Optional(Type.String({ maxLength: 1024 })),
            error: Type.Optional(Type.String({ maxLength: 256 })),
          },
          { additionalProperties: true },
        ),
        response: { 302: redirect('to the login page: signed in, or oidc_error'), ...errors(400, 404, 429) },
      },
    },
    async (req: FastifyRequest, reply) => {
      const o = activeOidc(await settings.auther());
      await requests.admit(req.ip);
      const release = await loginThrottle.begin(req.ip, CALLBACK_TARGET);
      const clear = cookie(o, OIDC_STATE_COOKIE, '', 0, 'Lax');
      try {
        const pending = await openState(await sealKey(), readCookie(req.headers.cookie, OIDC_STATE_COOKIE), purpose(o));
        const query = req.url.includes('?') ? req.url.slice(req.url.indexOf('?')) : '';
        if (!pending) throw new OidcRefused('failed', 'no valid flow cookie (expired, or another browser)');
        const user = await oidc.finish(o, pending, query, req.log);
        const jwt = await tokens.issue(user, { userAgent: req.headers['user-agent'] ?? '', address: req.ip, signedInWith: 'oidc' });
        req.log.info({ event: 'login', how: 'oidc', userId: user.id, address: req.ip }, 'login succeeded');
        const back = encodeURIComponent(localPath(pending.back));
        return toLogin(reply, `oidc=done&redirect=${back}`, [clear, cookie(o, OIDC_SESSION_COOKIE, jwt, OIDC_SESSION_SECONDS, 'Strict')]);
      } catch (err) {
        if (!(err instanceof OidcRefused)) throw err;
        await loginThrottle.failed(req.ip, CALLBACK_TARGET);
        app.deps.metrics.loginFailures.inc();
        req.log.warn({ event: 'login_failed', how: 'oidc', reason: err.reason, address: req.ip }, 'OIDC sign-in refused');
        return toLogin(reply, `oidc_error=${err.kind}`, [clear]);
      } finally {
        release();
      }
    },
  );

  app.post(
    '/api/oidc/session',
    {
      schema: {
        tags,
        summary: 'The session token the OIDC callback left for this browser, once (docs/api.md §2.13)',
        security: PUBLIC,
        response: {
          200: textBody('signed in: the bare JWT', { 'Set-Cookie': Type.String() }),
          ...errors(401, 403, 404),
        },
      },
    },
    async (req, reply) => {
      const o = activeOidc(await settings.auther());
      const jwt = readCookie(req.headers.cookie, OIDC_SESSION_COOKIE);
      if (!looksLikeJwt(jwt)) throw new Unauthorized();
      return reply
        .header('Set-Cookie', cookie(o, OIDC_SESSION_COOKIE, '', 0, 'Strict'))
        .type('text/plain')
        .send(jwt);
    },
  );
}
