import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { requirePerm } from '../../auth/guard.js';
import { sendJsonPieces } from '../../http/compress.js';
import { PayloadTooLarge, statusBody } from '../../http/errors.js';
import { openRead } from '../../fs/ops.js';
import { rfc3339Nano } from '../../fs/format.js';
import { createResourceService } from './service.js';

function tail(req: FastifyRequest): string {
  return (req.params as { '*'?: string })['*'] ?? '';
}

const GetQuery = Type.Object({ checksum: Type.Optional(Type.String()) });
const WriteQuery = Type.Object({ override: Type.Optional(Type.String()) });
const PatchQuery = Type.Object({
  action: Type.Optional(Type.String()),
  destination: Type.Optional(Type.String()),
  override: Type.Optional(Type.String()),
  rename: Type.Optional(Type.String()),
});

const OK = statusBody(200);

/**
 * The request body as a byte source, bounded by --max-upload-size (0 = unlimited): a larger
 * declared length is refused before anything is written, a longer stream aborts the write (413;
 * the staging file is removed, an old file stays).
 */
function bodyOf(req: FastifyRequest, max: number): () => AsyncIterable<Uint8Array> {
  if (max > 0 && Number(req.headers['content-length']) > max) throw new PayloadTooLarge('upload too large');
  return () =>
    (async function* () {
      let seen = 0;
      for await (const chunk of req.raw as AsyncIterable<Buffer>) {
        seen += chunk.length;
        if (max > 0 && seen > max) throw new PayloadTooLarge('upload too large');
        yield chunk;
      }
    })();
}

/** Resources API (api.md §8). Permission guards run in onRequest, before a body is read (S11). */
export async function resourcesRoutes(app: FastifyInstance): Promise<void> {
  const deps = app.deps;
  deps.events.useLogger(app.log);
  const resources = createResourceService({
    files: deps.files,
    events: deps.events,
    removeShares: (user, target) => deps.shares.removeUnder(user.id, target),
    io: () => deps.files.io,
  });
  const auth = [app.authenticate];

  // The bare prefix redirects to the scope root (api.md §8).
  app.get('/api/resources', { onRequest: auth }, async (_req, reply) => {
    return reply.code(301).header('Location', `${deps.config.baseURL}/api/resources/`).send();
  });

  app.get('/api/resources/*', { onRequest: auth, schema: { querystring: GetQuery } }, async (req, reply) => {
    const q = req.query as { checksum?: string };
    const out = await resources.get(req.user, tail(req), { checksum: q.checksum, rawText: req.headers['x-encoding'] === 'true' });
    if ('listing' in out) return sendJsonPieces(req, reply, out.listing);
    if ('info' in out) return reply.type('application/json; charset=utf-8').send(JSON.stringify(out.info));
    return reply.type('application/octet-stream').header('Content-Length', String(out.size)).send(openRead(out.stream));
  });

  app.get('/api/resources/recursive/*', { onRequest: auth }, async (req, reply) => {
    const abort = new AbortController();
    req.raw.once('close', () => abort.abort());
    const entries = await resources.recursive(req.user, tail(req), abort.signal);
    async function* json() {
      yield '[';
      let first = true;
      for await (const e of entries) {
        const modified = rfc3339Nano(Math.floor(e.stat.mtimeMs / 1000), Math.round((e.stat.mtimeMs % 1000) * 1e6));
        const row = { path: e.virtual, name: e.name, size: e.stat.size, modified, isDir: e.isDir };
        yield (first ? '' : ',') + JSON.stringify(row);
        first = false;
      }
      yield ']';
    }
    return reply.type('application/json; charset=utf-8').send(Readable.from(json()));
  });

  const writeOpts = (perm: 'create' | 'modify') => ({
    onRequest: [app.authenticate, requirePerm(perm)],
    config: { streamBody: true },
    schema: { querystring: WriteQuery },
  });

  app.post('/api/resources/*', writeOpts('create'), async (req, reply) => {
    const override = (req.query as { override?: string }).override === 'true';
    const out = await resources.create(req.user, tail(req), bodyOf(req, deps.config.maxUploadSize), override);
    if (out) void reply.header('ETag', out.etag);
    return reply.code(200).type('text/plain; charset=utf-8').send(OK);
  });

  app.put('/api/resources/*', writeOpts('modify'), async (req, reply) => {
    const out = await resources.save(req.user, tail(req), bodyOf(req, deps.config.maxUploadSize));
    return reply.code(200).header('ETag', out.etag).type('text/plain; charset=utf-8').send(OK);
  });

  app.patch('/api/resources/*', { onRequest: auth, schema: { querystring: PatchQuery } }, async (req, reply) => {
    await resources.patch(req.user, tail(req), req.query as Record<string, string | undefined>);
    return reply.code(200).type('text/plain; charset=utf-8').send(OK);
  });

  app.delete('/api/resources/*', { onRequest: [app.authenticate, requirePerm('delete')] }, async (req, reply) => {
    await resources.remove(req.user, tail(req));
    return reply.code(204).send();
  });
}
