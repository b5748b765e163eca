import { Share, ShareCreateRequest } from '@coffer/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { requirePerm } from '../../auth/guard.js';
import { presentShare } from './present.js';

/** S80: share bodies are JSON of at most 1 MiB. */
const SHARE_BODY_LIMIT = 1024 * 1024;
/** Expired links are also deleted when read; the sweep catches those nobody reads. */
const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

function tail(req: FastifyRequest): string {
  return (req.params as { '*'?: string })['*'] ?? '';
}

/**
 * Shares API (api.md §16, S40–S49). The share guard (token, then `share` and `download`) runs in
 * onRequest, before the body or the path is looked at.
 */
export async function sharesRoutes(app: FastifyInstance): Promise<void> {
  const shares = app.deps.shares;
  const guard = [app.authenticate, requirePerm('share', 'download')];
  const list = { 200: Type.Array(Share) };

  const sweep = setInterval(() => {
    shares.sweep().catch((err: unknown) => app.log.warn({ err }, 'share sweep failed'));
  }, SWEEP_INTERVAL_MS).unref();
  // A save or an upload over a shared file writes a new file in its place: the shares follow it.
  const off = app.deps.events.on(async (phase, event, ctx) => {
    if (phase !== 'after' || (event !== 'save' && event !== 'upload')) return;
    try {
      await shares.retarget(ctx.file);
    } catch (err) {
      app.log.warn({ err }, 'shares could not follow a replaced file');
    }
  });
  app.addHook('onClose', async () => {
    clearInterval(sweep);
    off();
  });

  app.get('/api/shares', { onRequest: guard, schema: { response: list } }, async (req) => {
    return (await shares.list(req.user)).map(presentShare);
  });

  // `/api/share` without a path is the scope root (no redirect for the shape of a path, S2).
  for (const url of ['/api/share', '/api/share/*']) {
    app.get(url, { onRequest: guard, schema: { response: list } }, async (req) => {
      return (await shares.listForPath(req.user, tail(req))).map(presentShare);
    });

    // The client appends ?expires=&unit= too; only the body counts (api.md §16).
    app.post(
      url,
      { onRequest: guard, bodyLimit: SHARE_BODY_LIMIT, schema: { body: Type.Union([ShareCreateRequest, Type.Null()]), response: { 200: Share } } },
      async (req) => {
        const share = await shares.create(req.user, tail(req), (req.body as ShareCreateRequest | null | undefined) ?? undefined);
        req.log.info({ hash: share.hash.slice(0, 4), userId: share.userId, expire: share.expire }, 'share created');
        return presentShare(share);
      },
    );

    app.delete(url, { onRequest: guard, bodyLimit: SHARE_BODY_LIMIT }, async (req, reply) => {
      await shares.remove(req.user, tail(req));
      req.log.info({ userId: req.user.id }, 'share deleted');
      return reply.code(200).send();
    });
  }
}
