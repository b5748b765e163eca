/**
 * Entry of a Coffer server in its own process (loaded by tus-child.mjs): the upload tests kill
 * it with SIGKILL mid-upload and start it again on the same database, data dir and port.
 */
import { buildApp } from '../src/app.js';
import { defaults, resolveConfig } from '../src/config/load.js';
import type { ServerConfig } from '../src/config/schema.js';
import { createDeps } from '../src/services.js';

export async function main(over: Partial<ServerConfig>): Promise<void> {
  const config = resolveConfig({ ...defaults(), log: '', ...over }, {});
  const { deps } = await createDeps(config, { failureDelayMs: 0 });
  const app = await buildApp(deps, { logger: false });
  await app.listen({ host: '127.0.0.1', port: config.port });
  process.stdout.write('ready\n');
}
