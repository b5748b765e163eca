/**
 * The file index's lifecycle and its progress endpoint (docs/api.md §24): the build or the
 * reconciliation starts once the app is ready (it serves meanwhile); GET /api/index tells admins
 * how far it is (the global settings page shows it).
 */
import { IndexProgress } from '@coffer/protocol';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireAdmin } from '../../auth/guard.js';
import { errors, SESSION_OR_COOKIE } from '../../http/schemas.js';

export async function indexRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { index } = app.deps;
  app.addHook('onReady', async () => {
    index.useLogger(app.log.child({ feature: 'index' }));
    await index.start();
  });
  app.addHook('onClose', async () => {
    await index.stop();
  });
  app.get(
    '/api/index',
    {
      onRequest: [app.authenticate, requireAdmin],
      schema: {
        tags: ['index'],
        summary: 'Progress of the file index (admins only)',
        security: SESSION_OR_COOKIE,
        response: { 200: IndexProgress, ...errors(401, 403) },
      },
    },
    async () => {
      const p = await index.progressNow();
      return {
        status: p.status,
        entries: p.entries,
        percent: p.percent,
        updatedAt: p.updatedAt ? new Date(p.updatedAt).toISOString() : '',
        ...(p.status === 'disabled' ? {} : { role: index.role }),
      };
    },
  );
}
