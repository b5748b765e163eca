/**
 * GET /api/search/{path}?query=… (api.md §13, S84): newline-delimited JSON streamed as found,
 * filtered by the rules and hideDotfiles, a keep-alive line every 5 s, and the walk stops when
 * the client goes away.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hitRel, hitVirtual, searchWalk } from '../../fs/search-walk.js';
import { isDenied } from '../../fs/rules.js';
import { extensionOf, mimeByExtension } from '../../fs/types.js';
import { matcher, parseQuery } from './query.js';

const KEEPALIVE_MS = 5000;
/** Results leave at once unless more keep coming: at most this long in the buffer, or this many bytes. */
const FLUSH_MS = 10;
const FLUSH_BYTES = 32 * 1024;

/** Counters for tests: searches walking now. */
export const searchActivity = { active: 0 };

const mimeOf = (name: string) => mimeByExtension(extensionOf(name));

export async function searchRoutes(app: FastifyInstance): Promise<void> {
  const { files } = app.deps;
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const raw = (req.params as { '*'?: string })['*'] ?? '/';
    const query = (req.query as { query?: string }).query ?? '';
    const { globalRules } = req;
    const dir = await files.resolve(req.user, raw, { globalRules });
    const match = matcher(parseQuery(query), mimeOf);

    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      'Content-Type': 'text/plain; charset=utf-8',
    });
    if (!dir.exists || !dir.stat?.isDirectory()) {
      res.end();
      return;
    }
    const abort = new AbortController();
    const onClose = () => abort.abort();
    res.on('close', onClose);
    res.on('error', () => undefined);
    let pending = '';
    let flushTimer: NodeJS.Timeout | undefined;
    let lastWrite = Date.now();
    const flush = () => {
      clearTimeout(flushTimer);
      flushTimer = undefined;
      if (!pending || res.destroyed) return true;
      const ok = res.write(pending);
      pending = '';
      lastWrite = Date.now();
      return ok;
    };
    const keepalive = setInterval(() => {
      if (Date.now() - lastWrite >= KEEPALIVE_MS && !pending) {
        res.write('\n');
        lastWrite = Date.now();
      }
    }, 1000);
    searchActivity.active++;
    try {
      for await (const batch of searchWalk(dir, { signal: abort.signal })) {
        for (const hit of batch) {
          if (!match(hit.name)) continue;
          if (isDenied(req.user, hitVirtual(hit), globalRules)) continue;
          pending += JSON.stringify({ dir: hit.isDir, path: hitRel(hit) }) + '\n';
        }
        if (pending.length >= FLUSH_BYTES) {
          if (!flush()) await new Promise<void>((r) => (res.once('drain', r), res.once('close', r)));
        } else if (pending) flushTimer ??= setTimeout(flush, FLUSH_MS);
      }
      flush();
      res.end();
    } catch (err) {
      req.log.error({ err }, 'search failed after streaming started');
      res.destroy();
    } finally {
      clearTimeout(flushTimer);
      clearInterval(keepalive);
      res.off('close', onClose);
      searchActivity.active--;
    }
  };
  for (const url of ['/api/search', '/api/search/*']) {
    app.get(url, { preHandler: [app.authenticate] }, handler);
  }
}
