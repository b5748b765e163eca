/**
 * GET /api/raw/{path} (docs/api.md §8): a file's bytes, or an archive of a folder or a `files=`
 * selection. Needs `perm.download` (S10); every path goes through the resolver (S1, S4, S12).
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requirePerm } from '../../auth/guard.js';
import { BadRequest } from '../../http/errors.js';
import {
  DOCUMENTED_ONLY,
  downloadAnswers,
  errors,
  PathParams,
  SESSION_OR_COOKIE,
} from '../../http/schemas.js';
import { sendResolvedFile } from '../../http/send-file.js';
import { formatFor } from '../archive/formats.js';
import { planArchive } from '../archive/service.js';
import { sendArchive } from '../archive/send.js';

/** The query of file and archive downloads (docs/api.md §8), shared with public downloads (§15.4). */
export const ArchiveQuery = Type.Object({
  files: Type.Optional(
    Type.String({
      description: 'folders: a comma-separated selection, each item percent-encoded (docs/api.md §8.2)',
    }),
  ),
  algo: Type.Optional(
    Type.String({
      description: 'folders: zip (default), tar, targz, tarbz2, tarxz, tarlz4, tarsz, tarbr, tarzst',
    }),
  ),
  inline: Type.Optional(
    Type.String({ description: 'files: "true" for an inline disposition and the file\'s own type' }),
  ),
});

export async function rawRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { files } = app.deps;
  for (const url of ['/api/raw', '/api/raw/*']) {
    app.get(
      url,
      {
        ...DOCUMENTED_ONLY,
        preHandler: [app.authenticate, requirePerm('download')],
        schema: {
          tags: ['raw'],
          summary: "A file's bytes, or an archive of a folder or a selection (docs/api.md §8)",
          security: SESSION_OR_COOKIE,
          params: PathParams,
          querystring: ArchiveQuery,
          response: {
            ...downloadAnswers('the file, or an archive of the folder'),
            ...errors(400, 401, 403, 404, 412, 416, 429),
          },
        },
      },
      async (req, reply) => {
        const q = req.query;
        const { globalRules } = req;
        const p = await files.resolve(req.user, req.params['*'] ?? '/', { mustExist: true, globalRules });
        const st = p.stat!;
        if (!st.isDirectory()) return sendResolvedFile(req, reply, p, q.inline === 'true');

        const format = formatFor(q.algo);
        if (!format) throw new BadRequest('unsupported archive format'); // S57
        const plan = await planArchive(files, req.user, p, q.files, format);

        return sendArchive(req, reply, {
          plan,
          format,
          mtime: st.mtime,
          user: req.user,
          globalRules,
          client: `user:${req.user.id}`,
        });
      },
    );
  }
}
