/**
 * tus 1.0.0 at /api/tus/{path} (docs/api.md §13): creation, offset query, append, termination and
 * OPTIONS discovery. The upload URL is the target path itself, as in File Browser.
 */
import { UploadState } from '@coffer/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createAuthenticateResumable, requirePerm } from '../../auth/guard.js';
import { canonicalPath } from '../../fs/canonical.js';
import { chooseDataDir, openStaging } from '../../fs/staging.js';
import { HttpError, statusBody } from '../../http/errors.js';
import { overrideFlag } from '../../http/query.js';
import { bytesRequest, errors, noBody, PathParams, PUBLIC, SESSION, SESSION_OR_COOKIE, statusLine } from '../../http/schemas.js';
import {
  DISCARD_LIMIT,
  discard,
  TUS_EXTENSIONS,
  TUS_VERSION,
  checkVersion,
  isPatchContentType,
  parseTusInt,
  single,
} from './protocol.js';
import { createUploadRepository } from './repository.js';
import { publicTusRoutes } from './public-routes.js';
import { createTusService, type UploadActor } from './service.js';

const tags = ['tus'];
const TusResumable = { 'Tus-Resumable': Type.Literal(TUS_VERSION) };
/** Read strictly by protocol.ts (S50): documented here as text, so that its own 400s stay. */
const TusHeaders = Type.Object({
  'tus-resumable': Type.Optional(Type.String({ description: 'only 1.0.0 (else 412); may be left out' })),
});
const CreateHeaders = Type.Object({
  ...TusHeaders.properties,
  'upload-length': Type.Optional(Type.String({ description: 'the total size: decimal digits only (S50)' })),
});
const PatchHeaders = Type.Object({
  ...TusHeaders.properties,
  'upload-offset': Type.Optional(Type.String({ description: 'where this chunk starts: decimal digits only (S50)' })),
});
const CreateQuery = Type.Object({
  override: Type.Optional(Type.String({ description: '"true" replaces an existing file; anything else means false' })),
});

/** An expired token (authenticateResumable) may only touch the upload its session created. */
function actorOf(req: FastifyRequest): UploadActor {
  return { user: req.user, expiredJti: req.session.expired ? req.session.jti : undefined };
}

function clientGone(): Error {
  return Object.assign(new Error('client went away during a chunk'), { code: 'ECONNRESET' });
}

/**
 * `Location` for a created upload: always the canonical path, each segment percent-encoded. The
 * path as received may hold characters URL parsers rewrite (a raw `\` becomes `/`), so it is
 * never echoed.
 */
function locationOf(base: string, virtual: string): string {
  return `${base}/api/tus/` + virtual.slice(1).split('/').map(encodeURIComponent).join('/');
}

export async function tusRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { config, files, db, events } = app.deps;
  const choice = await chooseDataDir(config);
  for (const w of choice.warnings) app.log.warn(w);
  const staging = await openStaging(choice.dir, config.root);
  if (!staging.sameDevice) {
    app.log.warn({ dataDir: choice.dir }, 'the data directory is on another filesystem than the root: finished uploads are copied into place');
  }
  const service = createTusService({
    quota: app.deps.quota,
    repo: createUploadRepository(db),
    staging,
    locks: app.deps.shared.uploadLocks,
    files,
    events,
    config,
    shareQuota: app.deps.shares,
    log: app.log.child({ feature: 'tus' }),
  });
  // Bodies, copies and jobs count the unfinished uploads' promises too (features/quota).
  app.deps.quota.countPromises((root) => service.promisedIn(root));

  // Sweep expired uploads at start and then regularly (S52).
  const every = Math.min(10 * 60_000, Math.max(250, (config.uploadExpiry * 1000) / 4));
  let timer: NodeJS.Timeout | undefined;
  let sweeping: Promise<unknown> | undefined;
  const sweep = () => {
    sweeping ??= service
      .sweep()
      .catch((err: unknown) => app.log.error({ err }, 'upload sweep failed'))
      .finally(() => (sweeping = undefined));
  };
  app.addHook('onReady', async () => {
    // With --workers N one process sweeps for the box (AppOptions.duties).
    if (!app.deps.options.duties) return;
    sweep();
    timer = setInterval(sweep, every);
    timer.unref();
  });
  // No query may run once the app is closed (the database closes next).
  app.addHook('onClose', async () => {
    clearInterval(timer);
    await sweeping;
    await service.drain();
  });

  /** HEAD/PATCH/DELETE: a live session, or the expired token of the session that created the upload. */
  const authenticateUpload = createAuthenticateResumable(app.authenticate, app.deps);

  // Every tus answer says Tus-Resumable; a request for another protocol version → 412.
  app.addHook('onRequest', async (req, reply) => {
    void reply.header('Tus-Resumable', TUS_VERSION);
    if (req.method !== 'OPTIONS') checkVersion(req.headers);
  });

  const discovery = async (_req: FastifyRequest, reply: FastifyReply) => {
    void reply.header('Tus-Version', TUS_VERSION).header('Tus-Extension', TUS_EXTENSIONS);
    if (config.maxUploadSize > 0) void reply.header('Tus-Max-Size', String(config.maxUploadSize));
    return reply.code(204).send();
  };
  const options = {
    tags,
    summary: 'tus discovery (docs/api.md §13.1)',
    security: PUBLIC,
    params: PathParams,
    response: {
      204: noBody('what this server speaks', {
        ...TusResumable,
        'Tus-Version': Type.Literal(TUS_VERSION),
        'Tus-Extension': Type.Literal(TUS_EXTENSIONS),
        'Tus-Max-Size': Type.String({ description: 'only with --max-upload-size' }),
      }),
      ...errors(),
    },
  };
  app.options('/api/tus', { schema: options }, discovery);
  app.options('/api/tus/*', { schema: options }, discovery);

  const create = {
    tags,
    summary: 'Create an upload: the upload URL is the target path (docs/api.md §13.2)',
    security: SESSION,
    params: PathParams,
    headers: CreateHeaders,
    querystring: CreateQuery,
    response: {
      201: statusLine(201, 'created', { ...TusResumable, Location: Type.String({ description: '<baseurl>/api/tus/<canonical path, each segment percent-encoded>' }) }),
      ...errors(400, 401, 403, 409, 412, 413, 507),
    },
  };
  app.post(
    '/api/tus/*',
    { onRequest: [app.authenticate, requirePerm('create')], config: { streamBody: true }, schema: create },
    async (req, reply) => {
      const virtual = await service.create(
        { user: req.user, jti: req.session.jti },
        req.params['*'] ?? '',
        parseTusInt(single(req.headers, 'upload-length')),
        overrideFlag(req.query),
      );
      void reply.header('Location', locationOf(config.baseURL, virtual));
      return reply.code(201).type('text/plain; charset=utf-8').send(statusBody(201));
    },
  );

  const noStore = async (_req: FastifyRequest, reply: FastifyReply) => {
    void reply.header('Cache-Control', 'no-store'); // S64, errors included
  };
  app.route({
    method: ['HEAD', 'GET'],
    url: '/api/tus/*',
    exposeHeadRoute: false,
    config: { streamBody: true },
    onRequest: [noStore, authenticateUpload, requirePerm('create')],
    schema: {
      tags,
      summary: "The upload's offset; GET answers the same (docs/api.md §13.3)",
      security: SESSION_OR_COOKIE,
      params: PathParams,
      headers: TusHeaders,
      response: {
        200: noBody('the upload state, in headers', { ...TusResumable, ...UploadState.properties, 'Cache-Control': Type.Literal('no-store') }),
        ...errors(401, 403, 404, 412),
      },
    },
    handler: async (req, reply) => {
      const st = await service.status(actorOf(req), req.params['*'] ?? '');
      void reply.header('Upload-Offset', String(st.offset)).header('Upload-Length', String(st.length));
      return reply.code(200).send();
    },
  });

  const append = {
    tags,
    summary: 'Append a chunk at Upload-Offset (docs/api.md §13.4)',
    security: SESSION,
    params: PathParams,
    headers: PatchHeaders,
    response: {
      204: noBody('appended', { ...TusResumable, 'Upload-Offset': UploadState.properties['Upload-Offset'] }),
      ...errors(400, 401, 403, 404, 409, 412, 413, 415, 423, 507),
    },
  };
  // Content-Type exactly application/offset+octet-stream, else 415 (the request body's media type says it).
  const chunk = bytesRequest('the next bytes of the file', 'application/offset+octet-stream');
  const appendOptions = { onRequest: [authenticateUpload, requirePerm('create')], config: { streamBody: true, documentedBody: chunk }, schema: append };
  app.patch('/api/tus/*', appendOptions, async (req, reply) => {
    if (!isPatchContentType(single(req.headers, 'content-type'))) throw new HttpError(415);
    const offset = parseTusInt(single(req.headers, 'upload-offset'));
    const cl = parseTusInt(single(req.headers, 'content-length'));
    const body: AsyncIterator<Buffer> = req.raw[Symbol.asyncIterator]();
    try {
      const r = await service.append(actorOf(req), req.params['*'] ?? '', {
        offset,
        declaredLength: cl.ok ? cl.value : undefined,
        body,
        stop: () => req.raw.destroy(),
      });
      if (r.aborted) throw clientGone();
      void reply.header('Upload-Offset', String(r.offset));
      return reply.code(204).send();
    } catch (err) {
      // docs/api.md §13.4: a refused body is read and discarded so the client sees the status.
      if (!req.raw.destroyed && !req.raw.complete && !(await discard(body, DISCARD_LIMIT))) void reply.header('Connection', 'close');
      throw err;
    }
  });

  const cancel = {
    tags,
    summary: 'Cancel an upload: its bytes and record go (docs/api.md §13.5)',
    security: SESSION,
    params: PathParams,
    headers: TusHeaders,
    response: { 204: noBody('cancelled', TusResumable), ...errors(401, 403, 404, 412) },
  };
  const cancelOptions = { onRequest: [authenticateUpload, requirePerm('delete')], config: { streamBody: true }, schema: cancel };
  app.delete('/api/tus/*', cancelOptions, async (req, reply) => {
    const raw = req.params['*'] ?? '';
    if (canonicalPath(raw).path === '/') throw new HttpError(403);
    await service.terminate(actorOf(req), raw);
    return reply.code(204).send();
  });

  // Visitors of upload shares: the same service, staging and locks (docs/api.md §23.3).
  await publicTusRoutes(app, service);

}
