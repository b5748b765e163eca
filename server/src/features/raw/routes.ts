/**
 * GET /api/raw/{path} (api.md §9): a file's bytes, or an archive of a folder or a `files=`
 * selection. Needs `perm.download` (S10); every path goes through the resolver (S1, S4, S12).
 */
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requirePerm } from '../../auth/guard.js';
import { openFileStream, readRange } from '../../fs/read.js';
import type { ScopedPath } from '../../fs/resolve.js';
import { BadRequest } from '../../http/errors.js';
import { formatFor } from '../archive/formats.js';
import { planArchive } from '../archive/service.js';
import { sendArchive } from '../archive/send.js';
import { contentDisposition } from './disposition.js';
import { inlineContentType } from './content-type.js';
import { etagFor, FILE_CSP, sendFileBody } from './send.js';

interface RawQuery {
  files?: string;
  algo?: string;
  inline?: string;
}

const QUERY = {
  type: 'object',
  properties: { files: { type: 'string' }, algo: { type: 'string' }, inline: { type: 'string' } },
} as const;

/** Serves one resolved regular file with ranges and validators; shared with previews and public downloads. */
export async function sendResolvedFile(
  req: FastifyRequest,
  reply: FastifyReply,
  p: ScopedPath,
  inline: boolean,
): Promise<FastifyReply> {
  const st = p.stat!;
  const name = path.posix.basename(p.virtual);
  if (!st.isFile()) {
    // api.md §9: a named pipe (or any special file) is never opened: only the disposition.
    void reply.header('Content-Disposition', contentDisposition(inline ? 'inline' : 'attachment', name));
    void reply.header('Content-Security-Policy', FILE_CSP);
    void reply.header('Cache-Control', 'private');
    return reply.code(200).type('application/octet-stream').send('');
  }
  const contentType = inline ? await inlineContentType(p, name) : 'application/octet-stream';
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
    { name, inline, contentType },
  );
}

export async function rawRoutes(app: FastifyInstance): Promise<void> {
  const { files } = app.deps;
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const q = req.query as RawQuery;
    const { globalRules } = req;
    const p = await files.resolve(req.user, (req.params as { '*'?: string })['*'] ?? '/', {
      mustExist: true,
      globalRules,
    });
    const st = p.stat!;
    if (!st.isDirectory()) return sendResolvedFile(req, reply, p, q.inline === 'true');

    const format = formatFor(q.algo);
    if (!format) throw new BadRequest('unsupported archive format'); // S57
    const plan = await planArchive(files, req.user, p, q.files, format);

    return sendArchive(req, reply, { plan, format, mtime: st.mtime, user: req.user, globalRules });
  };
  for (const url of ['/api/raw', '/api/raw/*']) {
    app.get(
      url,
      { schema: { querystring: QUERY }, preHandler: [app.authenticate, requirePerm('download')] },
      handler,
    );
  }
}
