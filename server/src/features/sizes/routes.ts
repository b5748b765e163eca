/** GET /api/sizes/{folder} (docs/api.md §24.2): the data of the client's disk-usage picture. */
import { FolderUsage } from '@coffer/protocol';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errors, PathParams, SESSION_OR_COOKIE } from '../../http/schemas.js';
import { createFolderUsageService } from './service.js';

export async function sizesRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const service = createFolderUsageService({ files: app.deps.files, index: app.deps.index });
  const schema = {
    tags: ['index'],
    summary: "A folder's children with their sizes from the file index, biggest first (the disk-usage picture)",
    security: SESSION_OR_COOKIE,
    params: PathParams,
    response: { 200: FolderUsage, ...errors(400, 401, 403, 404) },
  };
  // Same guard as a listing: a session is enough; scope and rules are the resolver's.
  for (const url of ['/api/sizes', '/api/sizes/*']) {
    app.get(url, { onRequest: [app.authenticate], schema }, async (req) =>
      service.of(req.user, req.params['*'] ?? '', req.globalRules),
    );
  }
}
