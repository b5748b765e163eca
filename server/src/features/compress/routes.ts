import { CompressBody, Job, type Rule } from '@coffer/protocol';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requirePerm } from '../../auth/guard.js';
import { isTempName } from '../../fs/names.js';
import { BadRequest, Conflict, Forbidden } from '../../http/errors.js';
import { errors, PathParams, SESSION } from '../../http/schemas.js';
import { formatFor } from '../archive/formats.js';
import { planArchive } from '../archive/service.js';
import { presentJob } from '../jobs/present.js';
import type { UserRecord } from '../users/repository.js';
import { compressSelection } from './service.js';

/** One file name: no separator, no control character, not `.`/`..`, not one Coffer reserves. */
function checkName(name: string): void {
  // eslint-disable-next-line no-control-regex
  if (name.includes('/') || name === '.' || name === '..' || /[\u0000-\u001f\u007f]/.test(name) || isTempName(name) || Buffer.byteLength(name) > 255) {
    throw new BadRequest('invalid archive name');
  }
}

/**
 * POST /api/compress/{folder} (docs/api.md §18 E12): puts a selection of {folder} (or the folder
 * itself) into a new archive file in a destination folder, as a job. Checks before the job
 * starts, and again when it starts (it may wait queued): download (the sources are read) and
 * create (the archive is made), each item and the destination through `files.resolve` (scope,
 * rules, links), and a free name (409).
 */
export async function compressRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { files, jobs, users, jobStagingLedger, quota } = app.deps;

  for (const url of ['/api/compress', '/api/compress/*']) {
    app.post(
      url,
      {
        onRequest: [app.authenticate],
        preHandler: [requirePerm('create')],
        schema: {
          tags: ['jobs'],
          summary: 'Compress a selection into an archive file in a folder, as a job',
          security: SESSION,
          params: PathParams,
          body: CompressBody,
          response: { 202: Job, ...errors(400, 401, 403, 404, 409, 429) },
        },
      },
      async (req, reply) => {
        const { destination, name } = req.body;
        const selection = req.body.files ?? [];
        const folderPath = req.params['*'] ?? '';
        const format = formatFor(req.body.algo ?? 'zip');
        if (!format) throw new BadRequest('unsupported archive format');
        checkName(name);
        const checked = async (user: UserRecord, globalRules: readonly Rule[]) => {
          if (!user.perm.create || !user.perm.download) throw new Forbidden();
          const folder = await files.resolve(user, folderPath, { mustExist: true, globalRules });
          if (!folder.stat?.isDirectory()) throw new BadRequest('not a folder');
          const plan = await planArchive(files, user, folder, selection.map(encodeURIComponent).join(','), format);
          const dest = await files.resolve(user, destination, { mustExist: true, globalRules });
          if (!dest.stat?.isDirectory()) throw new BadRequest('the destination is not a folder');
          const destFolder = dest.virtual.endsWith('/') ? dest : { ...dest, virtual: `${dest.virtual}/` };
          const target = await files.resolve(user, `${destFolder.virtual}${name}`, { forWrite: true, globalRules });
          if (target.exists) throw new Conflict(`${name} exists already`);
          return { plan, dest: destFolder };
        };
        const { plan, dest } = await checked(req.user, req.globalRules);
        const user = req.user;
        const inputs = { source: plan.base, files: selection, destination: `${dest.virtual}${name}`, algo: req.body.algo ?? 'zip' };
        const job = await jobs.start(user, 'compress', inputs, async (ctx) => {
          const now = await users.byId(user.id);
          if (!now) throw new Forbidden('the user no longer exists');
          const globalRules = await files.globalRules();
          const at = await checked(now, globalRules);
          const meter = await quota.meter(now);
          return compressSelection(
            {
              quota: meter,
              plan: at.plan,
              format,
              dest: at.dest,
              name,
              user: now,
              globalRules,
              ledger: jobStagingLedger,
              log: ctx.log,
            },
            ctx,
          ).finally(() => quota.changed(at.dest.real));
        });
        req.log.info({ userId: user.id, job: job.id }, 'compression started');
        return reply.code(202).send(presentJob(job));
      },
    );
  }
}
