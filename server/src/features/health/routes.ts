import { access, constants } from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';

export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get('/health', { logLevel: 'warn' }, async (_req, reply) => {
    return reply.header('Cache-Control', 'no-store').type('application/json').send('{"status":"OK"}');
  });

  app.get('/ready', { logLevel: 'warn' }, async (_req, reply) => {
    void reply.header('Cache-Control', 'no-store').type('application/json');
    const unavailable = (reason: string) => reply.code(503).header('Retry-After', '5').send({ status: 'unavailable', reason });
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
    return reply.send({ status: 'ready' });
  });
}
