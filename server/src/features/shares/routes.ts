import { Share, ShareCreateRequest } from '@coffer/protocol';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requirePerm } from '../../auth/guard.js';
import { errors, noBody, PathParams, SESSION, SESSION_OR_COOKIE } from '../../http/schemas.js';
import { presentShare } from './present.js';

/** S80: share bodies are JSON of at most 1 MiB. */
const SHARE_BODY_LIMIT = 1024 * 1024;
/** Expired links are also deleted when read; the sweep catches those nobody reads. */
const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

const tags = ['shares'];

/**
 * Shares API (docs/api.md §14, S40–S49). The share guard (token, then `share` and `download`) runs in
 * onRequest, before the body or the path is looked at.
 */
export async function sharesRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const shares = app.deps.shares;
  const guard = [app.authenticate, requirePerm('share', 'download')];
  const list = Type.Array(Share);

  // With --workers N one process sweeps for the box (AppOptions.duties).
  const sweep = app.deps.options.duties
    ? setInterval(() => {
        shares.sweep().catch((err: unknown) => app.log.warn({ err }, 'share sweep failed'));
      }, SWEEP_INTERVAL_MS).unref()
    : undefined;
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

  app.get(
    '/api/shares',
    {
      onRequest: guard,
      schema: {
        tags,
        summary: "The caller's share links (every user's for an admin)",
        security: SESSION_OR_COOKIE,
        response: { 200: list, ...errors(401, 403) },
      },
    },
    async (req) => (await shares.list(req.user)).map(presentShare),
  );

  // `/api/share` without a path is the scope root (no redirect for the shape of a path, S2).
  for (const url of ['/api/share', '/api/share/*']) {
    app.get(
      url,
      {
        onRequest: guard,
        schema: {
          tags,
          summary: 'The share links of one item',
          security: SESSION_OR_COOKIE,
          params: PathParams,
          response: { 200: list, ...errors(400, 401, 403, 404) },
        },
      },
      async (req) => (await shares.listForPath(req.user, req.params['*'] ?? '')).map(presentShare),
    );

    // The client appends ?expires=&unit= too; only the body counts (docs/api.md §14.4).
    app.post(
      url,
      {
        onRequest: guard,
        bodyLimit: SHARE_BODY_LIMIT,
        schema: {
          tags,
          summary: 'Share an item: a new link (docs/api.md §14.4)',
          security: SESSION,
          params: PathParams,
          body: Type.Union([ShareCreateRequest, Type.Null()]),
          response: { 200: Share, ...errors(400, 401, 403, 404, 413) },
        },
      },
      async (req) => {
        const share = await shares.create(req.user, req.params['*'] ?? '', req.body ?? undefined);
        req.log.info(
          { hash: share.hash.slice(0, 4), userId: share.userId, expire: share.expire },
          'share created',
        );
        return presentShare(share);
      },
    );

    // {path} is the link's hash here (docs/api.md §14.5).
    app.delete(
      url,
      {
        onRequest: guard,
        bodyLimit: SHARE_BODY_LIMIT,
        schema: {
          tags,
          summary: 'Delete a share link by its hash (docs/api.md §14.5)',
          security: SESSION,
          params: PathParams,
          response: { 200: noBody('deleted (an empty 200)'), ...errors(401, 403, 404, 413) },
        },
      },
      async (req, reply) => {
        await shares.remove(req.user, req.params['*'] ?? '');
        req.log.info({ userId: req.user.id }, 'share deleted');
        return reply.code(200).send();
      },
    );
  }
}
