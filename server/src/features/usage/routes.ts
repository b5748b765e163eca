import type { FastifyInstance, FastifyRequest } from 'fastify';
import { diskUsage } from '../../fs/ops.js';

function tail(req: FastifyRequest): string {
  return (req.params as { '*'?: string })['*'] ?? '';
}

/** GET /api/usage/{path} (api.md §12): the filesystem's total/used bytes for a folder, zeros for a file. */
export async function usageRoutes(app: FastifyInstance): Promise<void> {
  const files = app.deps.files;
  for (const url of ['/api/usage', '/api/usage/*']) {
    app.get(url, { onRequest: [app.authenticate] }, async (req) => {
      const p = await files.resolve(req.user, tail(req), { mustExist: true, globalRules: req.globalRules });
      if (!p.stat?.isDirectory()) return { total: 0, used: 0 };
      return diskUsage(p);
    });
  }
}
