import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Forbidden, Unauthorized } from '../../http/errors.js';
import { errors, textBody, type Security } from '../../http/schemas.js';

export function isLoopback(ip: string): boolean {
  return /^127\./.test(ip) || ip === '::1' || /^::ffff:127\./i.test(ip);
}

function bearerMatches(req: FastifyRequest, token: string): boolean {
  const header = req.headers.authorization ?? '';
  const m = /^Bearer (.+)$/.exec(header);
  if (!m) return false;
  const a = Buffer.from(m[1]!);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The bearer token, or nothing (loopback callers when no token is configured). */
const METRICS_AUTH: Security = [{ MetricsBearer: [] }, {}];

/** E3: GET /metrics — loopback without a token only when no metrics token is configured. */
export async function metricsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const schema = {
    tags: ['operations'],
    summary: 'Prometheus metrics (E3): the bearer token when one is configured, else loopback callers only',
    security: METRICS_AUTH,
    response: { 200: textBody('the Prometheus text format, version 0.0.4'), ...errors(401, 403) },
  };
  app.get('/metrics', { logLevel: 'warn', schema }, async (req, reply) => {
    const { config, metrics } = app.deps;
    if (config.metricsToken) {
      if (!bearerMatches(req, config.metricsToken)) throw new Unauthorized();
    } else if (!isLoopback(req.ip)) {
      throw new Forbidden();
    }
    return reply
      .header('Cache-Control', 'no-store')
      .type('text/plain; version=0.0.4; charset=utf-8')
      .send(await metrics.text());
  });
}

/** Counts every answer by route template (never the raw path, so file names do not leak). */
export function registerRequestMetrics(app: FastifyInstance): void {
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    const labels = { method: req.method, route };
    app.deps.metrics.requests.inc({ ...labels, status: String(reply.statusCode) });
    app.deps.metrics.duration.observe(labels, reply.elapsedTime / 1000);
  });
}
