/**
 * GET /api/preview/{thumb|big}/{path} (docs/api.md §9, S10, S82): `perm.download`; non-images 501;
 * GIF, SVG and icons, and every image when thumbnails / preview resizing are disabled, are served
 * as the original file; the rest is resized by sharp (service.ts). Videos, when ffmpeg was found
 * at start: a frame as the same thumb and big (video.ts); without ffmpeg they are 501.
 */
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requirePerm } from '../../auth/guard.js';
import { createDiskCache } from '../../fs/cache.js';
import { readHead } from '../../fs/read.js';
import { detectType, HEADER_BYTES } from '../../fs/types.js';
import { BadRequest, HttpError } from '../../http/errors.js';
import { DOCUMENTED_ONLY, errors, fileAnswers, SESSION_OR_COOKIE } from '../../http/schemas.js';
import { bufferBody, etagFor, sendFileBody, sendResolvedFile } from '../../http/send-file.js';
import { createPreviewService } from './service.js';
import { shareOf } from '../../cluster/budget.js';

/** Served as they are: animations (docs/api.md §9), vector images (never rasterised server-side), icons. */
const ORIGINAL = /\.(gif|svg|svgz|ico)$/i;

/** `{size}` stays a free string: anything but thumb or big is File Browser's 400 with its own text. */
const PreviewParams = Type.Object({
  size: Type.String({ description: 'thumb (256×256 crop) or big (fits 1080×1080)' }),
  '*': Type.Optional(Type.String({ description: 'path inside the scope, each segment percent-encoded' })),
});
const PreviewQuery = Type.Object({
  inline: Type.Optional(Type.String({ description: '"true" for an inline disposition' })),
  key: Type.Optional(Type.String({ description: 'changes with the file so that caches refresh; ignored' })),
});

export async function previewRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { files, config, ffmpeg } = app.deps;
  const previews = createPreviewService({
    // --img-processors is for the box: with --workers N each process resizes its part (cluster/budget.ts).
    concurrency: shareOf(Math.min(4, Math.max(1, config.imgProcessors))),
    cache: config.cacheDir ? createDiskCache(config.cacheDir) : undefined,
    ffmpeg,
    // One ffmpeg decodes with every core it finds: two at once keep the rest of the server going.
    videoConcurrency: shareOf(Math.min(2, Math.max(1, config.imgProcessors))),
  });
  const schema = {
    tags: ['preview'],
    summary: 'An image preview (resized, or the original file) or a video frame (docs/api.md §9)',
    security: SESSION_OR_COOKIE,
    params: PreviewParams,
    querystring: PreviewQuery,
    response: {
      ...fileAnswers('the image (X-Preview-Cache: hit or miss when resized or taken from a video)', [
        'image/jpeg',
        'image/png',
        'image/webp',
        'image/avif',
        '*/*',
      ]),
      ...errors(400, 401, 403, 404, 412, 413, 415, 416, 501, 503),
    },
  };
  app.get(
    '/api/preview/:size/*',
    { ...DOCUMENTED_ONLY, preHandler: [app.authenticate, requirePerm('download')], schema },
    async (req, reply) => {
      const { size } = req.params;
      if (size !== 'thumb' && size !== 'big') throw new BadRequest('size must be thumb or big');
      const inline = req.query.inline === 'true';
      const p = await files.resolve(req.user, req.params['*'] ?? '/', {
        mustExist: true,
        globalRules: req.globalRules,
      });
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
      const video = type === 'video' && previews.videos && !(size === 'thumb' && config.disableThumbnails);
      if (type !== 'image' && !video) throw new HttpError(501);
      const original =
        !video &&
        (
        (size === 'thumb' && config.disableThumbnails) ||
        (size === 'big' && config.disablePreviewResize) ||
        ORIGINAL.test(name));
      if (original) return sendResolvedFile(req, reply, p, inline);
      // A request still waiting for its turn when its client goes away leaves the queue.
      const gone = new AbortController();
      const onClose = () => {
        if (!reply.raw.writableFinished) gone.abort(new Error('the client went away'));
      };
      reply.raw.once('close', onClose);
      const out = await (video ? previews.videoPreview(p, size, gone.signal) : previews.preview(p, size, gone.signal)).finally(() => reply.raw.off('close', onClose));
      void reply.header('X-Preview-Cache', out.cached ? 'hit' : 'miss');
      const etag = etagFor(st.size, st.mtimeMs).replace(/"$/, `-${size}"`);
      return sendFileBody(req, reply, bufferBody(out.data, st.mtimeMs, etag), {
        name,
        inline,
        contentType: out.contentType,
      });
    },
  );
}
