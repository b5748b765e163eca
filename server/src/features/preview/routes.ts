/**
 * GET /api/preview/{thumb|big}/{path} (api.md §10, S10, S82): `perm.download`; non-images 501;
 * GIF, SVG and icons, and every image when thumbnails / preview resizing are disabled, are served
 * as the original file; the rest is resized by sharp (service.ts).
 */
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requirePerm } from '../../auth/guard.js';
import { createDiskCache } from '../../fs/cache.js';
import { readHead } from '../../fs/read.js';
import { detectType, HEADER_BYTES } from '../../fs/types.js';
import { BadRequest, HttpError } from '../../http/errors.js';
import { sendResolvedFile } from '../raw/routes.js';
import { bufferBody, etagFor, sendFileBody } from '../raw/send.js';
import { createPreviewService, type PreviewSize } from './service.js';

/** Served as they are: animations (api.md §10), vector images (never rasterised server-side), icons. */
const ORIGINAL = /\.(gif|svg|svgz|ico)$/i;

export async function previewRoutes(app: FastifyInstance): Promise<void> {
  const { files, config } = app.deps;
  const previews = createPreviewService({
    concurrency: Math.min(4, Math.max(1, config.imgProcessors)),
    cache: config.cacheDir ? createDiskCache(config.cacheDir) : undefined,
  });
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const params = req.params as { size: string; '*'?: string };
    const size = params.size;
    if (size !== 'thumb' && size !== 'big') throw new BadRequest('size must be thumb or big');
    const inline = (req.query as { inline?: string }).inline === 'true';
    const p = await files.resolve(req.user, params['*'] ?? '/', { mustExist: true, globalRules: req.globalRules });
    const st = p.stat!;
    const name = path.posix.basename(p.virtual);
    if (!st.isFile()) throw new HttpError(501);
    const head = await readHead(p, HEADER_BYTES);
    const type = detectType({
      name,
      size: st.size,
      special: false,
      head,
      sniff: files.typeDetectionByHeader,
      canModify: true,
    });
    if (type !== 'image') throw new HttpError(501);
    const original =
      (size === 'thumb' && config.disableThumbnails) ||
      (size === 'big' && config.disablePreviewResize) ||
      ORIGINAL.test(name);
    if (original) return sendResolvedFile(req, reply, p, inline);
    const out = await previews.preview(p, size as PreviewSize);
    void reply.header('X-Preview-Cache', out.cached ? 'hit' : 'miss');
    const etag = etagFor(st.size, st.mtimeMs).replace(/"$/, `-${size}"`);
    return sendFileBody(req, reply, bufferBody(out.data, st.mtimeMs, etag), {
      name,
      inline,
      contentType: out.contentType,
    });
  };
  app.get('/api/preview/:size/*', { preHandler: [app.authenticate, requirePerm('download')] }, handler);
}
