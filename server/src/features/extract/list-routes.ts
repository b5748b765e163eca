import { ArchiveEntryLine, type Rule } from '@coffer/protocol';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requirePerm } from '../../auth/guard.js';
import type { UserRecord } from '../users/repository.js';
import { contentDisposition } from '../../http/disposition.js';
import { BadRequest } from '../../http/errors.js';
import { DOCUMENTED_ONLY, errors, PathParams, SESSION_OR_COOKIE } from '../../http/schemas.js';
import { FILE_CSP } from '../../http/send-file.js';
import { watchStall } from '../archive/slots.js';
import { READABLE_CODECS } from './decompress.js';
import { listArchive, openEntry, type ArchiveSource } from './list.js';
import { formatOfName } from './service.js';

/** Bytes of list lines gathered before a write. */
const FLUSH_BYTES = 16 * 1024;

/**
 * Looking inside an archive (docs/api.md §18 E13): GET /api/archive-entries/{path} streams its
 * entries as JSON lines; GET /api/archive-entry/{path}?name= downloads one entry. Both read the
 * archive's bytes: the download permission, the archive resolved through `files.resolve`. Each
 * holds a decompressor and reads as far as it must, so each takes one of the archive slots of the
 * user, like an archive download (features/archive/slots.ts: 429 past them, a client that reads
 * nothing is cut after the stall time).
 */
export async function archiveListRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { files, config, archiveSlots } = app.deps;
  const limits = { maxSize: config.extractMaxSize, maxEntries: config.extractMaxEntries, maxRatio: config.extractMaxRatio };

  const archiveOf = async (user: UserRecord, raw: string, globalRules: readonly Rule[] | undefined, signal: AbortSignal): Promise<ArchiveSource> => {
    const source = await files.resolve(user, raw, { mustExist: true, globalRules });
    if (!source.stat?.isFile()) throw new BadRequest('not a file');
    const format = formatOfName(source.virtual);
    if (!format || !READABLE_CODECS.includes(format.codec)) throw new BadRequest('not an archive that can be read');
    return { source, container: format.container, codec: format.codec, limits, signal };
  };

  /** Both routes read the archive's bytes: the download permission, cookie or token. */
  const common = { ...DOCUMENTED_ONLY, preHandler: [app.authenticate, requirePerm('download')] };
  const schemaBase = { tags: ['raw'], security: SESSION_OR_COOKIE, params: PathParams };

  for (const url of ['/api/archive-entries', '/api/archive-entries/*']) {
    app.get(
      url,
      {
        ...common,
        schema: {
          ...schemaBase,
          summary: 'The entries of an archive, streamed as JSON lines, without extracting it',
          response: {
            200: { description: 'one JSON object per line, in archive order; a last line with `error` when the rest could not be read', content: { 'text/plain': { schema: ArchiveEntryLine } } },
            ...errors(400, 401, 403, 404, 429),
          },
        },
      },
      async (req, reply) => {
        const abort = new AbortController();
        const src = await archiveOf(req.user, req.params['*'] ?? '', req.globalRules, abort.signal);
        const release = archiveSlots.take(`user:${req.user.id}`);
        reply.hijack();
        const res = reply.raw;
        res.writeHead(200, {
          ...(reply.getHeaders() as Record<string, string>),
          'Content-Type': 'text/plain; charset=utf-8',
          'Cache-Control': 'private, no-cache',
        });
        const onClose = () => abort.abort();
        res.on('close', onClose);
        res.on('error', () => undefined);
        const stopWatch = watchStall(res, archiveSlots.stallMs);
        let pending = '';
        const flush = async () => {
          if (!pending || res.destroyed) return;
          const ok = res.write(pending);
          pending = '';
          if (!ok) await new Promise<void>((r) => (res.once('drain', r), res.once('close', r)));
        };
        try {
          await listArchive(src, async (e) => {
            pending += `${JSON.stringify(e)}\n`;
            if (pending.length >= FLUSH_BYTES) await flush();
          });
        } catch (err) {
          if (!abort.signal.aborted) {
            const message = err instanceof BadRequest ? err.message : 'the archive could not be read';
            if (!(err instanceof BadRequest)) req.log.error({ err }, 'archive listing failed');
            pending += `${JSON.stringify({ error: message })}\n`;
          }
        } finally {
          await flush();
          stopWatch();
          res.off('close', onClose);
          res.end();
          release();
        }
      },
    );
  }

  for (const url of ['/api/archive-entry', '/api/archive-entry/*']) {
    app.get(
      url,
      {
        ...common,
        schema: {
          ...schemaBase,
          summary: 'One file of an archive, downloaded without extracting the archive',
          querystring: Type.Object({ name: Type.String({ minLength: 1, maxLength: 4096, description: 'the entry name exactly as the list gives it' }) }),
          response: {
            200: { description: "the entry's bytes, as an attachment", content: { 'application/octet-stream': { schema: Type.String({ format: 'binary' }) } } },
            ...errors(400, 401, 403, 404, 429),
          },
        },
      },
      async (req, reply) => {
        const abort = new AbortController();
        const src = await archiveOf(req.user, req.params['*'] ?? '', req.globalRules, abort.signal);
        // The slot is taken before the entry is looked for: finding it may read the whole archive.
        const release = archiveSlots.take(`user:${req.user.id}`);
        try {
          const entry = await openEntry(src, req.query.name);
          const base = req.query.name.split('/').filter(Boolean).at(-1) ?? 'entry';
          reply.hijack();
          const res = reply.raw;
          res.writeHead(200, {
            'Content-Type': 'application/octet-stream',
            'Content-Disposition': contentDisposition('attachment', base),
            'Content-Length': String(entry.size),
            'X-Content-Type-Options': 'nosniff',
            'Content-Security-Policy': FILE_CSP,
            'Cache-Control': 'private',
          });
          res.on('close', () => {
            if (!res.writableFinished) {
              abort.abort();
              entry.stream.destroy();
            }
          });
          res.on('error', () => undefined);
          entry.stream.on('error', () => res.destroy());
          const stopWatch = watchStall(res, archiveSlots.stallMs);
          entry.stream.pipe(res);
          await entry.done.finally(stopWatch);
        } finally {
          release();
        }
      },
    );
  }
}
