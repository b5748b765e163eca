/**
 * GET /api/subtitle/{path} (api.md §11): subtitles as WebVTT for the video player. SRT and
 * ASS/SSA are converted (at most 10 MiB read, S82); other accepted names are served unchanged.
 * Needs `perm.download` (S10); S60/S61/S64 headers as for raw files.
 */
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requirePerm } from '../../auth/guard.js';
import { openFileStream, readRange, readWhole } from '../../fs/read.js';
import { BadRequest, PayloadTooLarge } from '../../http/errors.js';
import { bufferBody, etagFor, sendFileBody } from '../raw/send.js';
import { assToVtt, srtToVtt, subtitleKind } from './convert.js';

/** S82: subtitle conversion reads at most 10 MiB. */
export const MAX_SUBTITLE_BYTES = 10 * 1024 * 1024;

export async function subtitleRoutes(app: FastifyInstance): Promise<void> {
  const { files } = app.deps;
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const inline = (req.query as { inline?: string }).inline === 'true';
    const p = await files.resolve(req.user, (req.params as { '*'?: string })['*'] ?? '/', {
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
      return sendFileBody(
        req,
        reply,
        {
          size: st.size,
          mtimeMs: st.mtimeMs,
          etag: etagFor(st.size, st.mtimeMs),
          open: (r) => openFileStream(p, r),
          read: (r) => readRange(p, r),
        },
        opts,
      );
    }
    if (st.size > MAX_SUBTITLE_BYTES) throw new PayloadTooLarge('subtitle file too large to convert');
    const text = (await readWhole(p, st.size)).toString('utf8');
    const vtt = Buffer.from(kind === 'srt' ? srtToVtt(text) : assToVtt(text), 'utf8');
    const etag = etagFor(st.size, st.mtimeMs).replace(/"$/, '-vtt"');
    return sendFileBody(req, reply, bufferBody(vtt, st.mtimeMs, etag), opts);
  };
  for (const url of ['/api/subtitle', '/api/subtitle/*']) {
    app.get(url, { preHandler: [app.authenticate, requirePerm('download')] }, handler);
  }
}
