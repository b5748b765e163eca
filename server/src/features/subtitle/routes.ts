/**
 * GET /api/subtitle/{path} (docs/api.md §10): subtitles as WebVTT for the video player. SRT and
 * ASS/SSA are converted (at most 10 MiB read, S82); other accepted names are served unchanged.
 * Needs `perm.download` (S10); S60/S61/S64 headers as for raw files.
 */
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requirePerm } from '../../auth/guard.js';
import { readWhole } from '../../fs/read.js';
import { BadRequest, PayloadTooLarge } from '../../http/errors.js';
import { DOCUMENTED_ONLY, errors, fileAnswers, PathParams, SESSION_OR_COOKIE } from '../../http/schemas.js';
import { bufferBody, etagFor, fileBodyOf, sendFileBody } from '../../http/send-file.js';
import { assToVtt, srtToVtt, subtitleKind } from './convert.js';

/** S82: subtitle conversion reads at most 10 MiB. */
export const MAX_SUBTITLE_BYTES = 10 * 1024 * 1024;

const SubtitleQuery = Type.Object({
  inline: Type.Optional(Type.String({ description: '"true" for an inline disposition' })),
});

export async function subtitleRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { files } = app.deps;
  const schema = {
    tags: ['preview'],
    summary: 'A subtitle file as WebVTT (docs/api.md §10)',
    security: SESSION_OR_COOKIE,
    params: PathParams,
    querystring: SubtitleQuery,
    response: { ...fileAnswers('WebVTT', ['text/vtt']), ...errors(400, 401, 403, 404, 412, 413, 416) },
  };
  const options = { ...DOCUMENTED_ONLY, preHandler: [app.authenticate, requirePerm('download')], schema };
  for (const url of ['/api/subtitle', '/api/subtitle/*'])
    app.get(url, options, async (req, reply) => {
      const inline = req.query.inline === 'true';
      const p = await files.resolve(req.user, req.params['*'] ?? '/', {
        mustExist: true,
        globalRules: req.globalRules,
      });
      const st = p.stat!;
      if (st.isDirectory()) throw new BadRequest('not a subtitle file');
      const name = path.posix.basename(p.virtual);
      const kind = subtitleKind(name);
      if (!kind || !st.isFile()) throw new BadRequest('not a subtitle file');
      const opts = { name, inline, contentType: 'text/vtt' };
      if (kind === 'vtt' || kind === 'passthrough') {
        return sendFileBody(req, reply, fileBodyOf(p), opts);
      }
      if (st.size > MAX_SUBTITLE_BYTES) throw new PayloadTooLarge('subtitle file too large to convert');
      const text = (await readWhole(p, st.size)).toString('utf8');
      const vtt = Buffer.from(kind === 'srt' ? srtToVtt(text) : assToVtt(text), 'utf8');
      const etag = etagFor(st.size, st.mtimeMs).replace(/"$/, '-vtt"');
      return sendFileBody(req, reply, bufferBody(vtt, st.mtimeMs, etag), opts);
    });
}
