import { Job } from '@coffer/protocol';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireWritable } from '../../auth/guard.js';
import { errors, noBody, SESSION, SESSION_OR_COOKIE } from '../../http/schemas.js';
import { presentJob } from './present.js';

const tags = ['jobs'];
const JobParams = Type.Object({ id: Type.String({ pattern: '^[0-9a-f]{32}$', description: 'the job id' }) });

/**
 * Jobs API (docs/api.md §18 E10): the caller's jobs (every user's for an admin with `all=true`),
 * one job, cancel, forget. Jobs are started by the features that do the work (extract, compress).
 */
export async function jobsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const jobs = app.deps.jobs;
  jobs.useLog(app.log.child({ feature: 'jobs' }));
  app.addHook('onClose', async () => {
    await jobs.close();
  });

  app.get(
    '/api/jobs',
    {
      onRequest: [app.authenticate],
      schema: {
        tags,
        summary: "The caller's jobs, newest first (every user's for an admin with all=true)",
        security: SESSION_OR_COOKIE,
        querystring: Type.Object({
          all: Type.Optional(Type.Boolean({ description: "admins: every user's jobs" })),
        }),
        response: { 200: Type.Array(Job), ...errors(400, 401, 403) },
      },
    },
    async (req) => (await jobs.list(req.user, req.query.all === true)).map(presentJob),
  );

  app.get(
    '/api/jobs/:id',
    {
      onRequest: [app.authenticate],
      schema: {
        tags,
        summary: 'One job',
        security: SESSION_OR_COOKIE,
        params: JobParams,
        response: { 200: Job, ...errors(400, 401, 404) },
      },
    },
    async (req) => presentJob(await jobs.get(req.user, req.params.id)),
  );

  app.post(
    '/api/jobs/:id/cancel',
    {
      onRequest: [app.authenticate, requireWritable],
      schema: {
        tags,
        summary: 'Cancel a queued or running job; what it began is removed',
        security: SESSION,
        params: JobParams,
        response: { 200: Job, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (req) => {
      const job = presentJob(await jobs.cancel(req.user, req.params.id));
      req.log.info({ userId: req.user.id, job: job.id }, 'job cancelled');
      return job;
    },
  );

  app.delete(
    '/api/jobs/:id',
    {
      onRequest: [app.authenticate, requireWritable],
      schema: {
        tags,
        summary: 'Forget an ended job',
        security: SESSION,
        params: JobParams,
        response: { 204: noBody('forgotten'), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (req, reply) => {
      await jobs.remove(req.user, req.params.id);
      return reply.code(204).send();
    },
  );
}
