import type { FastifyInstance, FastifyRequest } from 'fastify';
import { createMemoryThrottle } from '../auth/throttle.js';
import { sendPublicDownload, type DownloadQuery } from './download.js';
import { presentPublic } from './present.js';
import { createPublicService, type Credentials } from './service.js';
import { createSharePasswordThrottle, SHARE_ADDRESS_LIMIT, SHARE_HASH_LIMIT, SHARE_WINDOW_MS } from './throttle.js';

const DOWNLOAD_QUERY = {
  type: 'object',
  properties: { inline: { type: 'string' }, algo: { type: 'string' }, files: { type: 'string' }, token: { type: 'string' } },
} as const;

function one(v: unknown): string | undefined {
  const first = Array.isArray(v) ? (v as unknown[])[0] : v;
  return typeof first === 'string' ? first : undefined;
}

function credentials(req: FastifyRequest): Credentials {
  return {
    password: one(req.headers['x-share-password']),
    token: one((req.query as Record<string, unknown> | undefined)?.token),
    address: req.ip,
  };
}

function tail(req: FastifyRequest): string {
  return (req.params as { '*'?: string })['*'] ?? '';
}

/**
 * Public access (api.md §17, S43–S47): no token, no cookie; a token sent anyway changes nothing.
 * GET /api/public/share/{hash}{/subpath} answers the Resource JSON of the shared item,
 * GET /api/public/dl/{hash}{/subpath} its bytes (a file) or an archive (a folder).
 */
export async function publicRoutes(app: FastifyInstance): Promise<void> {
  const { deps } = app;
  const throttle = createSharePasswordThrottle(
    createMemoryThrottle({ windowMs: SHARE_WINDOW_MS, maxPerKey: Math.max(SHARE_ADDRESS_LIMIT, SHARE_HASH_LIMIT) + 10 }),
  );
  const service = createPublicService({
    shares: deps.shares,
    users: deps.users,
    files: deps.files,
    throttle,
    failureDelayMs: deps.options.failureDelayMs,
  });

  app.get('/api/public/share/*', async (req) => {
    const target = await service.open(tail(req), credentials(req));
    return presentPublic(target, { sniff: deps.files.typeDetectionByHeader });
  });

  app.get('/api/public/dl/*', { schema: { querystring: DOWNLOAD_QUERY } }, async (req, reply) => {
    const target = await service.open(tail(req), credentials(req));
    return sendPublicDownload(req, reply, target, req.query as DownloadQuery);
  });
}
