import { Settings, SettingsInput } from '@coffer/protocol';
import type { FastifyInstance } from 'fastify';
import { requireAdmin } from '../../auth/guard.js';
import { statusBody } from '../../http/errors.js';
import { createSettingsService } from './service.js';

/**
 * Settings API (api.md §4): admin only (S14). Authentication and the admin check run in
 * onRequest, so 401/403 come before any body error.
 */
export async function settingsRoutes(app: FastifyInstance): Promise<void> {
  const service = createSettingsService({ settings: app.deps.settings });
  const adminOnly = [app.authenticate, requireAdmin];

  app.get('/api/settings', { onRequest: adminOnly, schema: { response: { 200: Settings } } }, async () => service.get());

  app.put('/api/settings', { onRequest: adminOnly, schema: { body: SettingsInput } }, async (req, reply) => {
    await service.replace({ id: req.user.id, log: req.log }, req.body as SettingsInput | undefined);
    return reply.code(200).type('text/plain; charset=utf-8').send(statusBody(200));
  });
}
