/**
 * tus 1.0.0 at /api/tus/{path} (api.md §14): creation, offset query, append, termination and
 * OPTIONS discovery. The upload URL is the target path itself, as in File Browser.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { jwtVerify } from 'jose';
import { requirePerm, tokenFrom } from '../../auth/guard.js';
import { canonicalPath } from '../../fs/canonical.js';
import { chooseDataDir, openStaging } from '../../fs/staging.js';
import { HttpError, Unauthorized, statusBody } from '../../http/errors.js';
import { createMemoryLocks } from './lock.js';
import {
  DISCARD_LIMIT,
  TUS_EXTENSIONS,
  TUS_VERSION,
  checkVersion,
  isPatchContentType,
  overrideFlag,
  parseTusInt,
  single,
} from './protocol.js';
import { createUploadRepository } from './repository.js';
import { createTusService, type UploadActor } from './service.js';

type PathRequest = FastifyRequest<{ Params: { '*': string } }>;

/** Requests authorised by an expired token bound to the upload (item: long uploads outlive their token). */
const expiredJtis = new WeakMap<FastifyRequest, string>();

function actorOf(req: FastifyRequest): UploadActor {
  return { user: req.user, expiredJti: expiredJtis.get(req) };
}

function clientGone(): Error {
  return Object.assign(new Error('client went away during a chunk'), { code: 'ECONNRESET' });
}

/** Reads and throws away what is left of a refused body, up to the limit; false if more remains. */
async function discard(it: AsyncIterator<Buffer>, limit: number): Promise<boolean> {
  let seen = 0;
  try {
    for (;;) {
      const next = await it.next();
      if (next.done) return true;
      seen += next.value.length;
      if (seen > limit) return false;
    }
  } catch {
    return false;
  }
}

/** `Location` for a created upload: the path as received when it is already canonical, else the canonical path re-encoded. */
function locationOf(req: FastifyRequest, base: string, virtual: string): string {
  const prefix = `${base}/api/tus/`;
  const rawPath = req.url.split('?')[0] ?? '';
  if (rawPath.startsWith(prefix)) {
    const tail = rawPath.slice(prefix.length);
    try {
      if ('/' + decodeURIComponent(tail) === virtual) return prefix + tail;
    } catch {
      // fall through to the canonical form
    }
  }
  return prefix + virtual.slice(1).split('/').map(encodeURIComponent).join('/');
}

export async function tusRoutes(app: FastifyInstance): Promise<void> {
  const { config, files, metrics, users, settings, db, events } = app.deps;
  const choice = await chooseDataDir(config);
  for (const w of choice.warnings) app.log.warn(w);
  const staging = await openStaging(choice.dir, config.root);
  if (!staging.sameDevice) {
    app.log.warn({ dataDir: choice.dir }, 'the data directory is on another filesystem than the root: finished uploads are copied into place');
  }
  const key = await settings.signingKey();
  const service = createTusService({
    repo: createUploadRepository(db),
    staging,
    locks: createMemoryLocks(),
    files,
    metrics,
    events,
    config,
    log: app.log.child({ feature: 'tus' }),
  });

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

  /**
   * HEAD/PATCH/DELETE: a live session as everywhere, or else the expired token of the session
   * that created the upload (checked against the upload in the service). Revoked sessions whose
   * token has not expired stay refused.
   */
  async function authenticateUpload(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    try {
      await app.authenticate(req, reply);
      return;
    } catch (err) {
      if (!(err instanceof HttpError && err.status === 401)) throw err;
    }
    const token = tokenFrom(req);
    if (!token || !key) throw new Unauthorized();
    let claims: { jti?: unknown; exp?: unknown; iat?: unknown; user?: { id?: unknown } };
    try {
      ({ payload: claims } = await jwtVerify(token, key, { algorithms: ['HS256'], requiredClaims: ['exp', 'jti'], currentDate: new Date(0) }));
    } catch {
      throw new Unauthorized();
    }
    const userId = claims.user?.id;
    if (typeof claims.jti !== 'string' || typeof claims.exp !== 'number' || typeof userId !== 'number') throw new Unauthorized();
    if (claims.exp * 1000 > Date.now()) throw new Unauthorized(); // not expired yet, yet refused: revoked
    const user = await users.byId(userId);
    if (!user) throw new Unauthorized();
    req.user = user;
    req.session = { jti: claims.jti, userId, iat: typeof claims.iat === 'number' ? claims.iat : 0, exp: claims.exp };
    expiredJtis.set(req, claims.jti);
  }

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
  app.options('/api/tus', discovery);
  app.options('/api/tus/*', discovery);

  app.post('/api/tus/*', { onRequest: [app.authenticate, requirePerm('create')], config: { streamBody: true } }, async (req, reply) => {
    const r = req as PathRequest;
    const virtual = await service.create(
      { user: req.user, jti: req.session.jti },
      r.params['*'],
      parseTusInt(single(req.headers, 'upload-length')),
      overrideFlag(req.query),
    );
    void reply.header('Location', locationOf(req, config.baseURL, virtual));
    return reply.code(201).type('text/plain; charset=utf-8').send(statusBody(201));
  });

  const noStore = async (_req: FastifyRequest, reply: FastifyReply) => {
    void reply.header('Cache-Control', 'no-store'); // S64, errors included
  };
  app.route({
    method: ['HEAD', 'GET'],
    url: '/api/tus/*',
    exposeHeadRoute: false,
    config: { streamBody: true },
    onRequest: [noStore, authenticateUpload, requirePerm('create')],
    handler: async (req, reply) => {
      const st = await service.status(actorOf(req), (req as PathRequest).params['*']);
      void reply.header('Upload-Offset', String(st.offset)).header('Upload-Length', String(st.length));
      return reply.code(200).send();
    },
  });

  app.patch('/api/tus/*', { onRequest: [authenticateUpload, requirePerm('create')], config: { streamBody: true } }, async (req, reply) => {
    if (!isPatchContentType(single(req.headers, 'content-type'))) throw new HttpError(415);
    const offset = parseTusInt(single(req.headers, 'upload-offset'));
    const cl = parseTusInt(single(req.headers, 'content-length'));
    const body = req.raw[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    try {
      const r = await service.append(actorOf(req), (req as PathRequest).params['*'], {
        offset,
        declaredLength: cl.ok ? cl.value : undefined,
        body,
        stop: () => req.raw.destroy(),
      });
      if (r.aborted) throw clientGone();
      void reply.header('Upload-Offset', String(r.offset));
      return reply.code(204).send();
    } catch (err) {
      // api.md §14: a refused body is read and discarded so the client sees the status.
      if (!req.raw.destroyed && !req.raw.complete && !(await discard(body, DISCARD_LIMIT))) void reply.header('Connection', 'close');
      throw err;
    }
  });

  app.delete('/api/tus/*', { onRequest: [authenticateUpload, requirePerm('delete')], config: { streamBody: true } }, async (req, reply) => {
    const raw = (req as PathRequest).params['*'];
    if (canonicalPath(raw).path === '/') throw new HttpError(403);
    await service.terminate(actorOf(req), raw);
    return reply.code(204).send();
  });

  await service.refreshGauge();
}
