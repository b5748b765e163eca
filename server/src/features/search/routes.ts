/**
 * GET /api/search/{path}?query=… (docs/api.md §12, S84): newline-delimited JSON streamed as found,
 * filtered by the rules and hideDotfiles, a keep-alive line every 5 s, and the walk stops when
 * the client goes away.
 */
import { SearchHit } from '@coffer/protocol';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { hitRel, hitVirtual, searchWalk } from '../../fs/search-walk.js';
import { isDenied } from '../../fs/rules.js';
import { extensionOf, mimeByExtension } from '../../fs/types.js';
import { DOCUMENTED_ONLY, errors, PathParams, SESSION_OR_COOKIE } from '../../http/schemas.js';
import { matcher, parseQuery } from './query.js';

const KEEPALIVE_MS = 5000;
/** Results leave at once unless more keep coming: at most this long in the buffer, or this many bytes. */
const FLUSH_MS = 10;
const FLUSH_BYTES = 32 * 1024;

/** Counters for tests: searches walking now. */
export const searchActivity = { active: 0 };

const mimeOf = (name: string) => mimeByExtension(extensionOf(name));

const SearchQuery = Type.Object({
  query: Type.Optional(
    Type.String({
      description: 'words, "quoted text", type:image|audio|video|<ext>, case:sensitive (docs/api.md §12)',
    }),
  ),
});

export async function searchRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { files } = app.deps;
  const schema = {
    tags: ['search'],
    summary: 'Names below a folder that match, streamed as found (docs/api.md §12)',
    security: SESSION_OR_COOKIE,
    params: PathParams,
    querystring: SearchQuery,
    response: {
      200: {
        description:
          'one JSON object per line, as found; an empty line every 5 s without a result (skip empty lines)',
        content: { 'text/plain': { schema: SearchHit } },
      },
      ...errors(400, 401, 403),
    },
  };
  const options = { ...DOCUMENTED_ONLY, preHandler: [app.authenticate], schema };
  for (const url of ['/api/search', '/api/search/*'])
    app.get(url, options, async (req, reply) => {
      const raw = req.params['*'] ?? '/';
      const query = req.query.query ?? '';
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
    });
}
