import { Job, type Rule } from '@coffer/protocol';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requirePerm } from '../../auth/guard.js';
import { BadRequest, Forbidden } from '../../http/errors.js';
import { errors, PathParams, SESSION } from '../../http/schemas.js';
import { placeRules } from '../../fs/extract.js';
import { presentJob } from '../jobs/present.js';
import type { UserRecord } from '../users/repository.js';
import { READABLE_CODECS } from './decompress.js';
import { extractArchive, formatOfName } from './service.js';

const ExtractBody = Type.Object({
  destination: Type.String({ minLength: 1, maxLength: 4096, description: 'an existing folder in the scope (not percent-encoded)' }),
  conflict: Type.Optional(
    Type.Union([Type.Literal('skip'), Type.Literal('rename'), Type.Literal('overwrite')], {
      description: 'an entry whose name is taken: skip it (default), keep both (name(1).ext), or overwrite (needs modify)',
    }),
  ),
});

/**
 * POST /api/extract/{path} (docs/api.md §18 E11): extracts the archive at {path} into a folder, as
 * a job. Checks before the job starts: the permissions (create; modify to overwrite), the archive
 * (a file of a format that can be read) and the destination (an existing folder) — each through
 * `files.resolve`, so scope, rules and links hold.
 */
export async function extractRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { files, jobs, config, users, jobStagingLedger, quota } = app.deps;
  const limits = { maxSize: config.extractMaxSize, maxEntries: config.extractMaxEntries, maxRatio: config.extractMaxRatio };

  for (const url of ['/api/extract', '/api/extract/*']) {
    app.post(
      url,
      {
        onRequest: [app.authenticate],
        preHandler: [requirePerm('create')],
        schema: {
          tags: ['jobs'],
          summary: 'Extract an archive into a folder, as a job',
          security: SESSION,
          params: PathParams,
          body: ExtractBody,
          response: { 202: Job, ...errors(400, 401, 403, 404, 429) },
        },
      },
      async (req, reply) => {
        const conflict = req.body.conflict ?? 'skip';
        const { destination } = req.body;
        const archive = req.params['*'] ?? '';
        /**
         * The checks, for a user as they are now: at the request, and again when the job starts
         * (it may wait queued: the user may have lost a permission or gone, a path may have changed).
         */
        const checked = async (user: UserRecord, globalRules?: readonly Rule[]) => {
          if (!user.perm.create || (conflict === 'overwrite' && !user.perm.modify)) throw new Forbidden();
          const source = await files.resolve(user, archive, { mustExist: true, globalRules });
          if (!source.stat?.isFile()) throw new BadRequest('not a file');
          const format = formatOfName(source.virtual);
          if (!format) throw new BadRequest('not an archive that can be extracted');
          if (!READABLE_CODECS.includes(format.codec)) throw new BadRequest(`${format.suffix} archives cannot be extracted yet`);
          const dest = await files.resolve(user, destination, { mustExist: true, globalRules });
          if (!dest.stat?.isDirectory()) throw new BadRequest('the destination is not a folder');
          const destFolder = dest.virtual.endsWith('/') ? dest : { ...dest, virtual: `${dest.virtual}/` };
          return { source, format, dest: destFolder };
        };
        const { source, dest } = await checked(req.user, req.globalRules);
        const user = req.user;
        const job = await jobs.start(user, 'extract', { source: source.virtual, destination: dest.virtual, conflict }, async (ctx) => {
          const now = await users.byId(user.id);
          if (!now) throw new Forbidden('the user no longer exists');
          const at = await checked(now);
          const meter = await quota.meter(now);
          return extractArchive(
            {
              quota: meter,
              source: at.source,
              dest: at.dest,
              conflict,
              container: at.format.container,
              codec: at.format.codec,
              limits,
              // Rules are read again when the entries are placed: a rule added meanwhile still holds.
              rules: async () => placeRules(now, await files.globalRules()),
              ledger: jobStagingLedger,
            },
            ctx,
          ).finally(() => quota.changed(at.dest.real));
        });
        req.log.info({ userId: user.id, job: job.id }, 'extraction started');
        return reply.code(202).send(presentJob(job));
      },
    );
  }
}
