import type { Rule } from '@coffer/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ResolveUser } from '../../fs/resolve.js';
import { contentDisposition } from '../../http/disposition.js';
import { FILE_CSP } from '../../http/send-file.js';
import { contentTypeOf, type ArchiveFormat } from './formats.js';
import { streamArchive, type ArchivePlan } from './service.js';
import { watchStall } from './slots.js';

/**
 * Answers a checked archive plan as a download (raw and public downloads). A download takes one
 * of the archive slots of `client` first (429 with Retry-After when none is free, slots.ts) and
 * gives it back when the stream ends, fails or the client goes away. Everything that can be
 * refused was refused before: from here on the answer is a stream (S57), and a failure cuts the
 * connection so that a truncated archive never looks complete.
 */
export async function sendArchive(
  req: FastifyRequest,
  reply: FastifyReply,
  job: { plan: ArchivePlan; format: ArchiveFormat; mtime: Date; user: ResolveUser; globalRules: readonly Rule[]; client: string },
): Promise<FastifyReply> {
  if (req.method === 'HEAD') {
    setArchiveHeaders(reply, job);
    return reply.code(200).send();
  }
  const release = req.server.deps.archiveSlots.take(job.client);
  try {
    setArchiveHeaders(reply, job);
    return await streamTo(req, reply, job, req.server.deps.archiveSlots.stallMs);
  } finally {
    release();
  }
}

function setArchiveHeaders(reply: FastifyReply, job: { plan: ArchivePlan; format: ArchiveFormat; mtime: Date }): void {
  void reply.header('Content-Type', contentTypeOf(job.format));
  void reply.header('Content-Disposition', contentDisposition('attachment', job.plan.name));
  void reply.header('X-Content-Type-Options', 'nosniff');
  void reply.header('Content-Security-Policy', FILE_CSP);
  void reply.header('Cache-Control', 'private');
  void reply.header('Last-Modified', job.mtime.toUTCString());
}

async function streamTo(
  req: FastifyRequest,
  reply: FastifyReply,
  job: { plan: ArchivePlan; format: ArchiveFormat; user: ResolveUser; globalRules: readonly Rule[] },
  stallMs: number,
): Promise<FastifyReply> {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, reply.getHeaders() as Record<string, string>);
  res.flushHeaders();
  const abort = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) abort.abort();
  };
  res.on('close', onClose);
  // A client that reads nothing would hold its slot for ever: cut it after stallMs without progress.
  const stopWatch = watchStall(res, stallMs);
  // pipeline() destroys the response with its error after it stopped listening; that error is
  // handled below, the event must not become an uncaught exception.
  res.on('error', () => undefined);
  try {
    await streamArchive(job.plan, job.format, res, { user: job.user, globalRules: job.globalRules, signal: abort.signal, log: req.log });
  } catch (err) {
    if (abort.signal.aborted) req.log.debug('archive download cancelled by the client');
    else req.log.error({ err }, 'archive failed after streaming started');
    res.destroy();
  } finally {
    stopWatch();
    res.off('close', onClose);
  }
  return reply;
}
