/**
 * tus through an upload share (docs/api.md §23.3): anyone with the link (and its password) may
 * create uploads in the shared folder and continue, query or cancel their own by the id in the
 * upload URL. Same protocol, same staging and the same service as the signed-in /api/tus; only
 * who is asking and where the file lands differ. Every request opens the share again, so a share
 * that was deleted, expired, lost its folder or its owner's `create` answers 404 at once.
 */
import { UploadState } from '@coffer/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createPublicUploadThrottle, PUBLIC_UPLOAD_WINDOW_MS } from '../../auth/throttle.js';
import { HttpError, statusBody } from '../../http/errors.js';
import { bytesRequest, errors, noBody, PUBLIC, statusLine } from '../../http/schemas.js';
import type { Credentials } from '../public/service.js';
import { DISCARD_LIMIT, TUS_VERSION, discard, isPatchContentType, parseTusInt, parseUploadMetadata, single } from './protocol.js';
import type { ShareVisitor, TusService } from './service.js';

const tags = ['public'];
const TusResumable = { 'Tus-Resumable': Type.Literal(TUS_VERSION) };
const FileName = { 'Coffer-File-Name': Type.String({ description: 'percent-encoded: on the last PATCH (or the POST of an empty file) the name the file got; on other POSTs the cleaned name wished for' }) };
const ShareHeaders = {
  'tus-resumable': Type.Optional(Type.String({ description: 'only 1.0.0 (else 412); may be left out' })),
  'x-share-password': Type.Optional(Type.String({ description: 'the link password, percent-encoded (docs/api.md §15.3)' })),
  'x-share-token': Type.Optional(Type.String({ description: 'a share token from GET /api/public/upload/{hash} (docs/api.md §23.2)' })),
};
const HashOnly = Type.Object({ hash: Type.String({ description: 'the share hash' }) });
const HashAndId = Type.Object({
  hash: Type.String({ description: 'the share hash' }),
  id: Type.String({ description: 'the upload id from Location' }),
});

function credentials(req: FastifyRequest): Credentials {
  return { password: single(req.headers, 'x-share-password'), token: single(req.headers, 'x-share-token'), address: req.ip };
}

export async function publicTusRoutes(app: FastifyInstance, service: TusService): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { deps } = app;
  const base = deps.config.baseURL;
  const throttle = createPublicUploadThrottle(
    deps.options.publicUploadsPerAddress,
    deps.shared.throttleStore('public-upload', PUBLIC_UPLOAD_WINDOW_MS, deps.options.publicUploadsPerAddress),
  );

  /** The share as it is now, for this request (404/401/429 as GET /api/public/share). */
  async function visitor(req: FastifyRequest, hash: string): Promise<ShareVisitor> {
    const t = await deps.publicShares.openUpload(hash, credentials(req));
    return { hash: t.share.hash, owner: t.owner, folder: t.folder, terms: t.share.upload, globalRules: t.globalRules };
  }

  const noStore = async (_req: FastifyRequest, reply: FastifyReply) => {
    void reply.header('Cache-Control', 'no-store');
  };

  r.post(
    '/api/public/tus/:hash',
    {
      config: { streamBody: true },
      onRequest: noStore,
      schema: {
        tags,
        summary: 'Start an upload through an upload share (docs/api.md §23.3)',
        security: PUBLIC,
        params: HashOnly,
        headers: Type.Object({
          ...ShareHeaders,
          'upload-length': Type.Optional(Type.String({ description: 'the file size: decimal digits only (S50)' })),
          'upload-metadata': Type.Optional(Type.String({ description: 'tus metadata; `filename` is the name wished for (cleaned, never a path)' })),
        }),
        response: {
          201: statusLine(201, 'created', { ...TusResumable, ...FileName, Location: Type.String({ description: '<baseurl>/api/public/tus/<hash>/<upload id>' }) }),
          ...errors(400, 401, 403, 404, 409, 412, 413, 429, 507),
        },
      },
    },
    async (req, reply) => {
      await throttle.admit(req.ip);
      const v = await visitor(req, req.params.hash);
      const meta = parseUploadMetadata(single(req.headers, 'upload-metadata'));
      const { id, name } = await service.createForShare(v, meta.get('filename') ?? '', parseTusInt(single(req.headers, 'upload-length')));
      void reply.header('Location', `${base}/api/public/tus/${encodeURIComponent(v.hash)}/${id}`).header('Coffer-File-Name', encodeURIComponent(name));
      return reply.code(201).type('text/plain; charset=utf-8').send(statusBody(201));
    },
  );

  r.route({
    method: ['HEAD', 'GET'],
    url: '/api/public/tus/:hash/:id',
    exposeHeadRoute: false,
    config: { streamBody: true },
    onRequest: noStore,
    schema: {
      tags,
      summary: "A visitor's upload: its offset; GET answers the same (docs/api.md §23.3)",
      security: PUBLIC,
      params: HashAndId,
      headers: Type.Object(ShareHeaders),
      response: {
        200: noBody('the upload state, in headers', { ...TusResumable, ...UploadState.properties, 'Cache-Control': Type.Literal('no-store') }),
        ...errors(401, 404, 412, 429),
      },
    },
    handler: async (req, reply) => {
      const v = await visitor(req, req.params.hash);
      const st = await service.statusForShare(v, req.params.id);
      void reply.header('Upload-Offset', String(st.offset)).header('Upload-Length', String(st.length));
      return reply.code(200).send();
    },
  });

  const chunk = bytesRequest('the next bytes of the file', 'application/offset+octet-stream');
  r.patch(
    '/api/public/tus/:hash/:id',
    {
      config: { streamBody: true, documentedBody: chunk },
      schema: {
        tags,
        summary: "Append a chunk to a visitor's upload (docs/api.md §23.3)",
        security: PUBLIC,
        params: HashAndId,
        headers: Type.Object({ ...ShareHeaders, 'upload-offset': Type.Optional(Type.String({ description: 'where this chunk starts (S50)' })) }),
        response: {
          204: noBody('appended; the last chunk also says where the file landed', {
            ...TusResumable,
            'Upload-Offset': UploadState.properties['Upload-Offset'],
            ...FileName,
          }),
          ...errors(400, 401, 403, 404, 409, 412, 413, 415, 423, 429, 507),
        },
      },
    },
    async (req, reply) => {
      const body: AsyncIterator<Buffer> = req.raw[Symbol.asyncIterator]();
      try {
        if (!isPatchContentType(single(req.headers, 'content-type'))) throw new HttpError(415);
        const v = await visitor(req, req.params.hash);
        const cl = parseTusInt(single(req.headers, 'content-length'));
        const out = await service.appendForShare(v, req.params.id, {
          offset: parseTusInt(single(req.headers, 'upload-offset')),
          declaredLength: cl.ok ? cl.value : undefined,
          body,
          stop: () => req.raw.destroy(),
        });
        if (out.aborted) throw Object.assign(new Error('client went away during a chunk'), { code: 'ECONNRESET' });
        void reply.header('Upload-Offset', String(out.offset));
        if (out.name !== undefined) void reply.header('Coffer-File-Name', encodeURIComponent(out.name));
        return reply.code(204).send();
      } catch (err) {
        // docs/api.md §13.4: a refused body is read and discarded so the client sees the status.
        if (!req.raw.destroyed && !req.raw.complete && !(await discard(body, DISCARD_LIMIT))) void reply.header('Connection', 'close');
        throw err;
      }
    },
  );

  r.delete(
    '/api/public/tus/:hash/:id',
    {
      config: { streamBody: true },
      schema: {
        tags,
        summary: "Cancel a visitor's unfinished upload (docs/api.md §23.3)",
        security: PUBLIC,
        params: HashAndId,
        headers: Type.Object(ShareHeaders),
        response: { 204: noBody('cancelled', TusResumable), ...errors(401, 404, 412, 429) },
      },
    },
    async (req, reply) => {
      const v = await visitor(req, req.params.hash);
      await service.terminateForShare(v, req.params.id);
      return reply.code(204).send();
    },
  );

}
