import { PublicResource, PublicUploadShare } from '@coffer/protocol';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import { DOCUMENTED_ONLY, downloadAnswers, errors, PUBLIC } from '../../http/schemas.js';
import { ArchiveQuery } from '../raw/routes.js';
import { sendPublicDownload } from './download.js';
import { presentPublic, presentUploadShare } from './present.js';
import type { Credentials } from './service.js';

const SharePassword = Type.Object({
  'x-share-password': Type.Optional(
    Type.String({
      description:
        'the link password, percent-encoded as encodeURIComponent does; empty when none (docs/api.md §15.3)',
    }),
  ),
});
const Token = {
  token: Type.Optional(
    Type.String({ description: 'a download token from the JSON of a protected share (docs/api.md §15.3)' }),
  ),
};
const ShareQuery = Type.Object(Token);
const DownloadQuery = Type.Object({ ...ArchiveQuery.properties, ...Token });

function credentials(req: {
  headers: Static<typeof SharePassword>;
  query: { token?: string };
  ip: string;
}): Credentials {
  return { password: req.headers['x-share-password'], token: req.query.token, address: req.ip };
}

const tags = ['public'];
const HashPath = Type.Object({
  '*': Type.Optional(
    Type.String({ description: '{hash}, then the path inside the shared item (docs/api.md §15.1)' }),
  ),
});

/**
 * Public access (docs/api.md §15, S43–S47): no token, no cookie; a token sent anyway changes nothing.
 * GET /api/public/share/{hash}{/subpath} answers the Resource JSON of the shared item,
 * GET /api/public/dl/{hash}{/subpath} its bytes (a file) or an archive (a folder).
 */
export async function publicRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { deps } = app;
  const service = deps.publicShares;

  app.get(
    '/api/public/share/*',
    {
      schema: {
        tags,
        summary: 'The shared item, relative to the share (docs/api.md §15.2)',
        security: PUBLIC,
        params: HashPath,
        headers: SharePassword,
        querystring: ShareQuery,
        response: { 200: PublicResource, ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (req) => {
      const target = await service.open(req.params['*'] ?? '', credentials(req));
      return presentPublic(target, { sniff: deps.files.typeDetectionByHeader });
    },
  );

  app.get(
    '/api/public/upload/:hash',
    {
      schema: {
        tags,
        summary: "An upload share's page: the owner's message and the limits, nothing of the folder (docs/api.md §23.2)",
        security: PUBLIC,
        params: Type.Object({ hash: Type.String({ description: 'the share hash' }) }),
        headers: SharePassword,
        querystring: ShareQuery,
        response: { 200: PublicUploadShare, ...errors(401, 404, 429) },
      },
    },
    async (req, reply) => {
      void reply.header('Cache-Control', 'no-store');
      const t = await service.openUpload(req.params.hash, credentials(req));
      return presentUploadShare(t.share.upload, t.token);
    },
  );

  app.get(
    '/api/public/dl/*',
    {
      ...DOCUMENTED_ONLY,
      schema: {
        tags,
        summary: "A shared file's bytes, or an archive of a shared folder (docs/api.md §15.4)",
        security: PUBLIC,
        params: HashPath,
        headers: SharePassword,
        querystring: DownloadQuery,
        response: {
          ...downloadAnswers('the file (as /api/raw sends it) or, for a folder, the archive'),
          ...errors(400, 401, 403, 404, 412, 416, 429),
        },
      },
    },
    async (req, reply) => {
      const target = await service.open(req.params['*'] ?? '', credentials(req));
      return sendPublicDownload(req, reply, target, req.query);
    },
  );
}
