import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions, type RouteOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Rule } from '@coffer/protocol';
import type { ServerConfig } from './config/schema.js';
import type { Deps } from './services.js';
import type { Session } from './auth/tokens.js';
import type { UserRecord } from './features/users/repository.js';
import { createAuthenticate, tokenFrom } from './auth/guard.js';
import { createRateLimiter, parseRateLimits, registerAnonRateLimit } from './http/rate-limit.js';
import { registerErrorHandler } from './http/error-handler.js';
import { statusBody } from './http/errors.js';
import { registerBodyParser } from './http/body.js';
import { applySecurityHeaders, registerSecurityHeaders } from './http/headers.js';
import { registerGracefulClose } from './http/graceful-close.js';
import { registerOriginCheck } from './http/origin.js';
import { validatorCompiler } from './http/validation.js';
import { registerOpenApi } from './http/openapi.js';
import { errors, noBody, PUBLIC } from './http/schemas.js';
import { Type } from 'typebox';
import { healthRoutes } from './features/health/routes.js';
import { metricsRoutes, registerRequestMetrics } from './features/metrics/routes.js';
import { FEATURES } from './features/index.js';

declare module 'fastify' {
  interface FastifyRequest {
    user: UserRecord;
    session: Session;
    /** Settings `rules`, read with the session by `authenticate` (pass to `files.resolve`). */
    globalRules: readonly Rule[];
  }
  interface FastifyInstance {
    authenticate: (req: FastifyRequest, reply: FastifyReply) => Promise<void>;
    deps: Deps;
  }
}

export type App = FastifyInstance;

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;
const SECRET_QUERY = /([?&](?:auth|token|password|code)=)[^&]*/gi;

export function loggerOptions(config: Pick<ServerConfig, 'log'>, level = 'info'): FastifyServerOptions['logger'] {
  if (config.log === '') return false;
  const destination = config.log === 'stdout' ? 1 : config.log === 'stderr' ? 2 : config.log;
  return {
    level,
    file: typeof destination === 'string' ? destination : undefined,
    stream: undefined,
    redact: {
      paths: ['req.headers["x-auth"]', 'req.headers.cookie', 'req.headers["x-share-password"]', 'password', 'token', '*.password'],
      censor: '[redacted]',
    },
    serializers: {
      // S25: method, path without secret query values, remote address; never headers.
      req: (req: { method: string; url: string; ip?: string; socket?: { remoteAddress?: string } }) => ({
        method: req.method,
        url: req.url.replace(SECRET_QUERY, '$1[redacted]'),
        remoteAddress: req.ip ?? req.socket?.remoteAddress,
      }),
    },
    ...(typeof destination === 'number' && destination === 2 ? { stream: process.stderr } : {}),
  } as FastifyServerOptions['logger'];
}

/**
 * S25/E4: ONE access line per request, when it has been answered: method, path (secret query
 * values redacted by the `req` serializer), status, duration, user id when known; the request id
 * comes with the request's logger. Fastify's "incoming request" line is not written (it doubled the
 * logging cost of small requests). /health, /ready, /metrics and /static log at `warn` (their
 * route logLevel), so they stay out of the access log.
 */
class AccessLog extends LogController {
  override incomingRequest(): void {}
  override requestCompleted(error: Error | null | undefined, req: FastifyRequest, reply: FastifyReply): void {
    const line = { req, res: reply, responseTime: reply.elapsedTime, userId: req.user?.id };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}

/** The ONE factory of the HTTP app, used by main and by every test. */
export async function buildApp(
  deps: Deps,
  opts: {
    logger?: FastifyServerOptions['logger'];
    https?: { cert: Buffer; key: Buffer };
    /** Sees every route as it is registered (the OpenAPI test checks each one is documented). */
    onRoute?: (route: RouteOptions) => void;
  } = {},
): Promise<App> {
  const { config } = deps;
  const logger = opts.logger ?? loggerOptions(config);
  const app = Fastify({
    // docs/configuration.md (--cert, --key): TLS when --cert and --key are set, TLS 1.2 at least.
    ...(opts.https ? { https: { ...opts.https, minVersion: 'TLSv1.2' } } : {}),
    logger,
    logController: new AccessLog(),
    trustProxy: config.trustedProxies.length ? config.trustedProxies : false,
    bodyLimit: 1024 * 1024, // S80
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    // Router-level failures (a bad percent escape in the path, S2) get the same plain 400 as every
    // other refusal, never a JSON body echoing the URL.
    frameworkErrors: (err: Error, req: FastifyRequest, reply: FastifyReply) => {
      req.log.info({ reason: err.message }, 'request rejected');
      applySecurityHeaders(req, reply);
      void reply.code(400).type('text/plain; charset=utf-8').send(statusBody(400));
    },
    routerOptions: { ignoreDuplicateSlashes: false, ignoreTrailingSlash: false, maxParamLength: 64 * 1024 },
  } as FastifyServerOptions).withTypeProvider<TypeBoxTypeProvider>();

  if (opts.onRoute) app.addHook('onRoute', opts.onRoute);
  app.setValidatorCompiler(validatorCompiler);
  app.decorate('deps', deps);
  const limiter = config.rateLimit ? createRateLimiter(parseRateLimits(config.rateLimit), (name, windowMs) => deps.shared.windowCounter(name, windowMs)) : undefined;
  app.decorate('authenticate', createAuthenticate(deps, limiter));
  app.decorateRequest('user', null as unknown as UserRecord);
  app.decorateRequest('session', null as unknown as Session);
  app.decorateRequest('globalRules', null as unknown as readonly Rule[]);
  registerErrorHandler(app);
  registerBodyParser(app);
  registerSecurityHeaders(app);
  // An upgrade request answered over plain HTTP (refused before its WebSocket, or a route without
  // one) holds a connection that no parser or idle timer will ever close: close it once answered.
  app.addHook('onResponse', async (req) => {
    if ((req.raw as { upgrade?: boolean }).upgrade) req.raw.socket.destroy(); // set by Node for 'upgrade' requests
  });
  // A write through a process that does not maintain the file index is in the database's change
  // queue before its answer leaves: the client's next request finds it on any process.
  app.addHook('onSend', async (_req, _reply, payload) => {
    await deps.index.writesQueued();
    return payload;
  });
  registerGracefulClose(app);
  registerOriginCheck(app);
  if (limiter) registerAnonRateLimit(app, limiter, config.baseURL, (req) => tokenFrom(req) !== undefined);
  registerRequestMetrics(app);
  const base = config.baseURL;
  // Before any route: the document is built from the routes registered after it.
  if (!config.disableApiDocs) await registerOpenApi(app, { base, version: deps.options.version });

  // E1/E2: health and readiness at the root and under the base URL.
  await app.register(healthRoutes);
  await app.register(metricsRoutes);
  if (base) {
    await app.register(healthRoutes, { prefix: base });
    await app.register(metricsRoutes, { prefix: base });
    const redirect = {
      tags: ['page'],
      summary: 'The bare base URL: a redirect to it with a trailing slash (docs/api.md §1.1)',
      security: PUBLIC,
      response: { 301: noBody('to the base URL with "/"', { Location: Type.String() }), ...errors() },
    };
    app.get(base, { schema: redirect }, async (_req, reply) => reply.code(301).header('Location', `${base}/`).send());
  }
  for (const feature of FEATURES) await app.register(feature, { prefix: base });
  return app;
}
