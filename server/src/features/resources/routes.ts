import { Readable } from 'node:stream';
import { FileInfo, FolderListing, RecursiveEntry } from '@coffer/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requirePerm } from '../../auth/guard.js';
import { sendJsonPieces } from '../../http/compress.js';
import { PayloadTooLarge, statusBody } from '../../http/errors.js';
import {
  bytesRequest,
  documented,
  DOCUMENTED_ONLY,
  errors,
  jsonText,
  noBody,
  PathParams,
  SESSION,
  SESSION_OR_COOKIE,
  statusLine,
} from '../../http/schemas.js';
import { overrideFlag } from '../../http/query.js';
import { openRead } from '../../fs/ops.js';
import { rfc3339Nano } from '../../fs/format.js';
import { copyMoveInput, createResourceService } from './service.js';

const GetQuery = Type.Object({
  checksum: Type.Optional(Type.String({ description: 'md5, sha1, sha256 or sha512: files answer `checksums` (needs download)' })),
});
const GetHeaders = Type.Object({
  'x-encoding': Type.Optional(Type.String({ description: '"true": a text file answers its raw bytes (needs download)' })),
});
const Override = Type.Optional(Type.String({ description: '"true" replaces an existing file; anything else means false' }));
const WriteQuery = Type.Object({ override: Override });
const PatchQuery = Type.Object({
  action: Type.Optional(Type.String({ description: 'copy or rename (a rename may move); anything else is 400' })),
  destination: Type.Optional(Type.String({ description: 'the target path, each segment encoded, then the whole value again (docs/api.md §7.9)' })),
  override: Override,
  rename: Type.Optional(Type.String({ description: '"true": a taken destination becomes the first free name(N).ext' })),
});

const OK = statusBody(200);
const tags = ['resources'];
const ETag = { ETag: Type.String({ description: '"<hex mtime ns><hex size>"' }) };

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
      const body: AsyncIterable<Buffer> = req.raw;
      for await (const chunk of body) {
        seen += chunk.length;
        if (max > 0 && seen > max) throw new PayloadTooLarge('upload too large');
        yield chunk;
      }
    })();
}

/** The body's Content-Length when one is declared (a quota judges it before the first byte). */
export function declaredLength(req: FastifyRequest): number | undefined {
  const raw = req.headers['content-length'];
  return raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : undefined;
}

/** Resources API (docs/api.md §7). Permission guards run in onRequest, before a body is read (S11). */
export async function resourcesRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = app.deps;
  deps.events.useLogger(app.log);
  const resources = createResourceService({
    files: deps.files,
    events: deps.events,
    removeShares: (user, target) => deps.shares.removeUnder(user.id, target),
    trash: (user, target, globalRules) => deps.trash.trash(user, target, globalRules),
    io: () => deps.files.io,
    folderSizes: (real) => deps.index.folderSizes(real),
    quota: deps.quota,
  });
  const auth = [app.authenticate];

  // The bare prefix redirects to the scope root (docs/api.md §7).
  const redirect = {
    tags,
    summary: 'Redirects to the scope root, /api/resources/',
    security: SESSION_OR_COOKIE,
    response: { 301: noBody('to /api/resources/', { Location: Type.String() }), ...errors(401) },
  };
  app.get('/api/resources', { onRequest: auth, schema: redirect }, async (_req, reply) => {
    return reply.code(301).header('Location', `${deps.config.baseURL}/api/resources/`).send();
  });

  // Written as text: a folder's listing is streamed in the order FolderListing documents.
  const get = {
    tags,
    summary: "A folder's listing, or a file's description (docs/api.md §7.2, §7.3)",
    security: SESSION_OR_COOKIE,
    params: PathParams,
    querystring: GetQuery,
    headers: GetHeaders,
    response: {
      200: {
        description: 'a folder: its listing, streamed and compressed when big; a file: its description; with X-Encoding: true a text file: its bytes',
        content: {
          'application/json': { schema: documented(Type.Union([FolderListing, FileInfo])) },
          'application/octet-stream': { schema: documented(Type.String({ format: 'binary' })) },
        },
      },
      ...errors(400, 401, 403, 404),
    },
  };
  app.get('/api/resources/*', { ...DOCUMENTED_ONLY, onRequest: auth, schema: get }, async (req, reply) => {
    const rawText = req.headers['x-encoding'] === 'true';
    const out = await resources.get(req.user, req.params['*'] ?? '', { checksum: req.query.checksum, rawText });
    if ('listing' in out) return sendJsonPieces(req, reply, out.listing);
    if ('info' in out) return reply.type('application/json; charset=utf-8').send(JSON.stringify(out.info));
    return reply.type('application/octet-stream').header('Content-Length', String(out.size)).send(openRead(out.stream));
  });

  const recursive = {
    tags,
    summary: 'Every entry below a folder, depth first (docs/api.md §7.6)',
    security: SESSION_OR_COOKIE,
    params: PathParams,
    response: { 200: jsonText('a JSON array, streamed', Type.Array(RecursiveEntry)), ...errors(400, 401, 403, 404) },
  };
  app.get('/api/resources/recursive/*', { ...DOCUMENTED_ONLY, onRequest: auth, schema: recursive }, async (req, reply) => {
    const abort = new AbortController();
    req.raw.once('close', () => abort.abort());
    const entries = await resources.recursive(req.user, req.params['*'] ?? '', abort.signal);
    async function* json() {
      yield '[';
      let first = true;
      for await (const e of entries) {
        const modified = rfc3339Nano(Math.floor(e.stat.mtimeMs / 1000), Math.round((e.stat.mtimeMs % 1000) * 1e6));
        const row: RecursiveEntry = { path: e.virtual, name: e.name, size: e.stat.size, modified, isDir: e.isDir };
        yield (first ? '' : ',') + JSON.stringify(row);
        first = false;
      }
      yield ']';
    }
    return reply.type('application/json; charset=utf-8').send(Readable.from(json()));
  });

  // The body is the file's bytes, streamed to disk: documented, never parsed.
  const writeOptions = (perm: 'create' | 'modify', summary: string, body: string, response: Record<string, unknown>) => ({
    onRequest: [app.authenticate, requirePerm(perm)],
    config: { streamBody: true, documentedBody: bytesRequest(body, '*/*') },
    schema: { tags, summary, security: SESSION, params: PathParams, querystring: WriteQuery, response },
  });

  const create = writeOptions(
    'create',
    'Create a folder (path ends in /) or a file from the body (docs/api.md §7.7)',
    "a file's exact bytes (any Content-Type); nothing for a folder",
    { 200: statusLine(200, 'created; a file also gets its ETag', ETag), ...errors(400, 401, 403, 404, 409, 413, 507) },
  );
  app.post('/api/resources/*', create, async (req, reply) => {
    const out = await resources.create(req.user, req.params['*'] ?? '', bodyOf(req, deps.config.maxUploadSize), overrideFlag(req.query), declaredLength(req));
    if (out) void reply.header('ETag', out.etag);
    return reply.code(200).type('text/plain; charset=utf-8').send(OK);
  });

  const save = writeOptions(
    'modify',
    'Replace the content of an existing file (docs/api.md §7.8)',
    'the complete new content (any Content-Type; empty empties the file)',
    { 200: statusLine(200, 'saved', ETag), ...errors(400, 401, 403, 404, 405, 413, 507) },
  );
  app.put('/api/resources/*', save, async (req, reply) => {
    const out = await resources.save(req.user, req.params['*'] ?? '', bodyOf(req, deps.config.maxUploadSize), declaredLength(req));
    return reply.code(200).header('ETag', out.etag).type('text/plain; charset=utf-8').send(OK);
  });

  const patch = {
    tags,
    summary: 'Copy or move (docs/api.md §7.9)',
    security: SESSION,
    params: PathParams,
    querystring: PatchQuery,
    response: { 200: statusLine(200, 'copied or moved'), ...errors(400, 401, 403, 404, 409, 507) },
  };
  app.patch('/api/resources/*', { onRequest: auth, schema: patch }, async (req, reply) => {
    await resources.patch(req.user, req.params['*'] ?? '', copyMoveInput(req.query));
    return reply.code(200).type('text/plain; charset=utf-8').send(OK);
  });

  const remove = {
    tags,
    summary: 'Delete a file, a link or a folder with what the caller may see in it (docs/api.md §7.10)',
    security: SESSION,
    params: PathParams,
    response: { 204: noBody('deleted'), ...errors(401, 403, 404, 409) },
  };
  app.delete('/api/resources/*', { onRequest: [app.authenticate, requirePerm('delete')], schema: remove }, async (req, reply) => {
    await resources.remove(req.user, req.params['*'] ?? '');
    return reply.code(204).send();
  });
}
