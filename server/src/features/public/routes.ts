import type { FastifyInstance, FastifyRequest } from 'fastify';
import { createMemoryThrottle } from '../auth/throttle.js';
import { presentPublic } from './present.js';
import { createPublicService, type Credentials } from './service.js';
import { createSharePasswordThrottle, SHARE_ADDRESS_LIMIT, SHARE_HASH_LIMIT, SHARE_WINDOW_MS } from './throttle.js';

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
 * GET /api/public/share/{hash}{/subpath} answers the Resource JSON of the shared item.
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
}
