/**
 * Connects the hook runner to the file-event bus (server/src/events) when command execution is
 * enabled; otherwise hooks never run (docs/api.md §16.3, S70, S72). No routes of its own.
 */
import type { FastifyInstance } from 'fastify';
import type { FileEventListener } from '../../events/index.js';
import { createRunner, type Runner } from './service.js';

/** The bus listener: event context → the docs/api.md §16.6 values, `before_X` / `after_X` by phase. */
export function runnerListener(runner: Runner): FileEventListener {
  return (phase, event, ctx) =>
    runner.run(`${phase}_${event}`, {
      file: ctx.file.entry,
      scope: ctx.user.scope,
      username: ctx.user.username,
      destination: ctx.destination?.entry ?? ctx.scopeRoot,
      root: ctx.scopeRoot,
    });
}

export async function runnerHooks(app: FastifyInstance): Promise<void> {
  const { config, settings, events, confinement } = app.deps;
  if (config.disableExec || !confinement) return;
  const runner = createRunner({ config, settings, confinement, log: app.log.child({ feature: 'runner' }) });
  const off = events.on(runnerListener(runner));
  app.addHook('onClose', async () => {
    off();
    runner.stopAll();
  });
}
