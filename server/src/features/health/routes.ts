import { access, constants } from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors, jsonText, PUBLIC } from '../../http/schemas.js';

const tags = ['operations'];
const Ready = Type.Object(
  {
    status: Type.Literal('ready'),
    detail: Type.Optional(
      Type.Object({
        shared: Type.Literal('degraded', { description: 'the configured Redis is unreachable: limits and upload locks count per instance' }),
        reason: Type.String(),
      }),
    ),
  },
  { description: 'able to serve; `detail` when serving degraded' },
);
const Unavailable = Type.Object(
  {
    status: Type.Literal('unavailable'),
    reason: Type.Union([Type.Literal('closing'), Type.Literal('database'), Type.Literal('root')]),
  },
  { description: 'not able to serve; Retry-After: 5' },
);

/** E1, E2: liveness and readiness for load balancers and orchestrators. */
export async function healthRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const health = {
    tags,
    summary: 'Alive (E1)',
    security: PUBLIC,
    response: { 200: jsonText('alive', Type.Object({ status: Type.Literal('OK') })), ...errors() },
  };
  app.get('/health', { logLevel: 'warn', schema: health }, async (_req, reply) => {
    return reply.header('Cache-Control', 'no-store').type('application/json').send('{"status":"OK"}');
  });

  const ready = {
    tags,
    summary: 'Able to serve: database and root reachable, not closing (E2)',
    security: PUBLIC,
    response: { 200: Ready, 503: Unavailable, ...errors() },
  };
  app.get('/ready', { logLevel: 'warn', schema: ready }, async (_req, reply) => {
    void reply.header('Cache-Control', 'no-store').type('application/json');
    const unavailable = (reason: 'closing' | 'database' | 'root') =>
      reply.code(503).header('Retry-After', '5').send({ status: 'unavailable', reason });
    if (app.deps.lifecycle.closing) return unavailable('closing');
    try {
      await sql`select 1`.execute(app.deps.db.kysely);
    } catch {
      return unavailable('database');
    }
    try {
      await access(path.resolve(app.deps.config.root), constants.R_OK);
    } catch {
      return unavailable('root');
    }
    // Redis down is no reason to take the instance out of the pool (docs/deployment.md): it serves
    // with per-instance limits, and says so.
    const shared = app.deps.shared.health();
    if (shared.degraded) return reply.send({ status: 'ready', detail: { shared: 'degraded', reason: shared.degraded } });
    return reply.send({ status: 'ready' });
  });
}
