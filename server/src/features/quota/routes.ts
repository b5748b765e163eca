import { QuotaUse } from '@coffer/protocol';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireAdmin } from '../../auth/guard.js';
import { errors, SESSION_OR_COOKIE } from '../../http/schemas.js';

/**
 * GET /api/quotas (docs/api.md §3.8): for the admin's users list, every user's quota and use.
 * Users sharing a scope are measured once (the size cache); a scope that cannot be measured (its
 * folder is gone) reads as 0 bytes rather than failing the whole list.
 */
export async function quotaRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { users, quota } = app.deps;
  app.get(
    '/api/quotas',
    {
      onRequest: [app.authenticate, requireAdmin],
      schema: {
        tags: ['users'],
        summary: "Every user's byte quota and the bytes counted against it (admins only)",
        security: SESSION_OR_COOKIE,
        response: { 200: Type.Array(QuotaUse), ...errors(401, 403) },
      },
    },
    async (req) => {
      const all = await users.list();
      return Promise.all(
        all.map(async (u) => {
          const used = await quota.usedBytes(u).catch((err: unknown) => {
            req.log.info({ err, userId: u.id }, 'scope not measured');
            return 0;
          });
          return { id: u.id, quota: u.quota, used };
        }),
      );
    },
  );
}
