import { Settings, SettingsInput } from '@coffer/protocol';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireAdmin } from '../../auth/guard.js';
import { statusBody } from '../../http/errors.js';
import { errors, SESSION, SESSION_OR_COOKIE, statusLine } from '../../http/schemas.js';
import { createSettingsService } from './service.js';

const tags = ['settings'];

/**
 * Settings API (docs/api.md §4): admin only (S14). Authentication and the admin check run in
 * onRequest, so 401/403 come before any body error.
 */
export async function settingsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const service = createSettingsService({ settings: app.deps.settings });
  const adminOnly = [app.authenticate, requireAdmin];

  app.get(
    '/api/settings',
    {
      onRequest: adminOnly,
      schema: {
        tags,
        summary: 'The global settings (admins only)',
        security: SESSION_OR_COOKIE,
        response: { 200: Settings, ...errors(401, 403) },
      },
    },
    async () => service.get(),
  );

  app.put(
    '/api/settings',
    {
      onRequest: adminOnly,
      schema: {
        tags,
        summary: 'Replace every editable setting (docs/api.md §4.2)',
        security: SESSION,
        body: SettingsInput,
        response: { 200: statusLine(200, 'stored'), ...errors(400, 401, 403, 413) },
      },
    },
    async (req, reply) => {
      await service.replace({ id: req.user.id, log: req.log }, req.body);
      // Every instance drops what it derived from the settings and their rules (features/cluster).
      app.deps.shared.invalidation.publish('settings');
      app.deps.shared.invalidation.publish('rules');
      return reply.code(200).type('text/plain; charset=utf-8').send(statusBody(200));
    },
  );
}
