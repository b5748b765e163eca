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
import { linkTarget } from '../../fs/walk.js';
import type { ScopedPath } from '../../fs/resolve.js';
import type { IndexService } from '../index/service.js';
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

/** One candidate, from the walk or from the index. */
interface Found {
  name: string;
  isDir: boolean;
  /** Relative to the searched folder. */
  rel: string;
  virtual: string;
}

const BATCH = 512;

/** Resolves when `res` can take more or is closed; both listeners go again (a long answer waits many times). */
function drained(res: NodeJS.WritableStream): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}

/** The walk's hits (docs/api.md §12: today's search, and the answer while the index builds). */
async function* fromWalk(dir: ScopedPath, signal: AbortSignal): AsyncGenerator<Found[]> {
  for await (const batch of searchWalk(dir, { signal })) yield batch.map((h) => ({ name: h.name, isDir: h.isDir, rel: hitRel(h), virtual: hitVirtual(h) }));
}

/**
 * The index's candidates in the walk's order, with the walk's treatment of links: reported only
 * when their target stays inside the area, as a folder when it is one. Null when the index
 * cannot answer (disabled, building, or a folder outside the indexed root).
 */
async function fromIndex(index: IndexService, dir: ScopedPath, terms: string[] | null, signal: AbortSignal): Promise<AsyncGenerator<Found[]> | null> {
  const hits = await index.search(dir.real, terms);
  if (!hits) return null;
  const base = dir.virtual === '/' ? '' : dir.virtual;
  return (async function* () {
    for (let i = 0; i < hits.length && !signal.aborted; i += BATCH) {
      const out: Found[] = [];
      for (const h of hits.slice(i, i + BATCH)) {
        let isDir = h.isDir;
        if (h.isLink) {
          const link = await linkTarget(`${dir.real}/${h.rel}`, dir.root);
          if (link.escaping) continue;
          isDir = link.stat?.isDirectory() ?? false;
        }
        out.push({ name: h.name, isDir, rel: h.rel, virtual: `${base}/${h.rel}` });
      }
      yield out;
    }
  })();
}

const SearchQuery = Type.Object({
  query: Type.Optional(
    Type.String({
      description: 'words, "quoted text", type:image|audio|video|<ext>, case:sensitive (docs/api.md §12)',
    }),
  ),
});

export async function searchRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { files, index } = app.deps;
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
      const parsed = parseQuery(query);
      const match = matcher(parsed, mimeOf);

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
        // The index's candidates may contain a term (lower-cased); the exact rule is `match`.
        const terms = parsed.terms.length > 0 ? parsed.terms.map((t) => t.toLowerCase()) : null;
        const source = (await fromIndex(index, dir, terms, abort.signal)) ?? fromWalk(dir, abort.signal);
        for await (const batch of source) {
          for (const hit of batch) {
            if (!match(hit.name)) continue;
            if (isDenied(req.user, hit.virtual, globalRules)) continue;
            pending += JSON.stringify({ dir: hit.isDir, path: hit.rel }) + '\n';
          }
          if (pending.length >= FLUSH_BYTES) {
            if (!flush()) await drained(res);
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
