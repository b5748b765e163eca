import { Usage } from '@coffer/protocol';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { diskUsage } from '../../fs/ops.js';
import { errors, PathParams, SESSION_OR_COOKIE } from '../../http/schemas.js';

/** GET /api/usage/{path} (docs/api.md §11): the filesystem's total/used bytes for a folder (and the scope's trash, docs/api.md §22), zeros for a file. */
export async function usageRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { files, trash, quota } = app.deps;
  const schema = {
    tags: ['usage'],
    summary: 'Total and used bytes of the filesystem holding a folder; zeros for a file',
    security: SESSION_OR_COOKIE,
    params: PathParams,
    response: { 200: Usage, ...errors(400, 401, 403, 404) },
  };
  for (const url of ['/api/usage', '/api/usage/*']) {
    app.get(url, { onRequest: [app.authenticate], schema }, async (req) => {
      const p = await files.resolve(req.user, req.params['*'] ?? '', {
        mustExist: true,
        globalRules: req.globalRules,
      });
      if (!p.stat?.isDirectory()) return { total: 0, used: 0 };
      // The trash lies on the same disk, so `used` holds it already; `trash` says how much (docs/api.md §22).
      const answer = { ...(await diskUsage(p)), trash: await trash.bytes(req.user) };
      // Coffer: with a quota, what counts against it (the scope and its trash, features/quota).
      if (req.user.quota > 0) return { ...answer, quota: req.user.quota, quotaUsed: await quota.usedBytes(req.user) };
      return answer;
    });
  }
}
