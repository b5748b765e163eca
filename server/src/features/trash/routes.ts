import { TrashEmptied, TrashList, TrashRestored } from '@coffer/protocol';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requirePerm } from '../../auth/guard.js';
import { errors, noBody, SESSION } from '../../http/schemas.js';
import { queryFlag } from '../../http/query.js';

const tags = ['trash'];
/** The sweep of expired items and the reconciliation run at start and then hourly (docs/api.md §22). */
const SWEEP_INTERVAL_MS = 60 * 60 * 1000;

const IdParams = Type.Object({ id: Type.String({ pattern: '^[0-9a-f]{32}$', description: "the item's id" }) });
const AllQuery = Type.Object({
  all: Type.Optional(Type.String({ description: '"true": every scope\'s trash (admins only, else 403)' })),
});
const RestoreQuery = Type.Object({
  conflict: Type.Optional(
    Type.Union([Type.Literal('rename'), Type.Literal('fail')], {
      description: 'what a taken name does: "rename" (default) restores as name(1).ext, "fail" answers 409 so the client can ask',
    }),
  ),
});

/** Trash API (docs/api.md §22). Permissions: listing any signed-in user, restore `create`, removal `delete`. */
export async function trashRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { trash, files, config, quota } = app.deps;
  const log = app.log.child({ feature: 'trash' });

  let timer: NodeJS.Timeout | undefined;
  let sweeping: Promise<unknown> | undefined;
  const sweep = () => {
    sweeping ??= trash
      .reconcile()
      .then((r) => {
        if (r.settled || r.dropped || r.adopted) log.info(r, 'trash reconciled');
        return trash.sweep();
      })
      .catch((err: unknown) => log.error({ err }, 'trash sweep failed'))
      .finally(() => (sweeping = undefined));
    return sweeping;
  };
  app.addHook('onReady', async () => {
    // The start waits for the repair, so no request sees a half-finished step.
    await sweep();
    // With --workers N every process repairs at its start (as separate instances do), one sweeps
    // on (AppOptions.duties).
    if (!app.deps.options.duties) return;
    timer = setInterval(() => void sweep(), SWEEP_INTERVAL_MS);
    timer.unref();
  });
  app.addHook('onClose', async () => {
    clearInterval(timer);
    await sweeping;
    await trash.settle();
  });
  if (trash.enabled) {
    const root = await files.resolve({ scope: '/', rules: [], hideDotfiles: false }, '/', { globalRules: [], rules: false });
    if (!(await trash.sameDevice(root))) {
      log.warn({ retentionDays: config.trashDays }, 'the data directory is on another filesystem than the root: deleted items are copied into the trash, not renamed (docs/configuration.md "Trash")');
    }
  }

  app.get(
    '/api/trash',
    {
      onRequest: [app.authenticate],
      schema: {
        tags,
        summary: "The trash of the caller's scope, newest first (docs/api.md §22.1)",
        security: SESSION,
        querystring: AllQuery,
        response: { 200: TrashList, ...errors(401, 403) },
      },
    },
    async (req) => ({
      retentionDays: trash.retentionDays,
      items: await trash.list(req.user, { all: queryFlag(req.query.all), globalRules: req.globalRules }),
    }),
  );

  app.post(
    '/api/trash/:id/restore',
    {
      onRequest: [app.authenticate, requirePerm('create')],
      schema: {
        tags,
        summary: 'Puts an item back where it was (docs/api.md §22.2)',
        security: SESSION,
        params: IdParams,
        querystring: RestoreQuery,
        response: { 200: TrashRestored, ...errors(400, 401, 403, 404, 409, 423, 507) },
      },
    },
    async (req) => {
      // The trash counts against the quota already, so a restore adds nothing: it is refused only
      // while the scope is over its quota (lowered meanwhile), as it would make room never.
      await quota.admit(req.user, 0);
      const restored = await trash.restore(req.user, req.params.id, { conflict: req.query.conflict ?? 'rename', globalRules: req.globalRules });
      quota.changed((await files.scopeRoot(req.user)).root);
      return { path: restored };
    },
  );

  app.delete(
    '/api/trash/:id',
    {
      onRequest: [app.authenticate, requirePerm('delete')],
      schema: {
        tags,
        summary: 'Deletes an item for good (docs/api.md §22.3)',
        security: SESSION,
        params: IdParams,
        response: { 204: noBody('deleted'), ...errors(400, 401, 403, 404) },
      },
    },
    async (req, reply) => {
      await trash.purge(req.user, req.params.id, req.globalRules);
      return reply.code(204).send();
    },
  );

  app.delete(
    '/api/trash',
    {
      onRequest: [app.authenticate, requirePerm('delete')],
      schema: {
        tags,
        summary: "Empties the caller's trash (docs/api.md §22.3)",
        security: SESSION,
        querystring: AllQuery,
        response: { 200: TrashEmptied, ...errors(401, 403) },
      },
    },
    async (req) => ({ removed: await trash.empty(req.user, { all: queryFlag(req.query.all), globalRules: req.globalRules }) }),
  );
}
