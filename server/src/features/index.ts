import type { FastifyPluginAsync } from 'fastify';
import { signinRoutes } from './signin/routes.js';
import { oidcRoutes } from './signin/oidc-routes.js';
import { staticRoutes } from '../http/static.js';
import { usersRoutes } from './users/routes.js';
import { settingsRoutes } from './settings/routes.js';
import { oidcSettingsRoutes } from './oidc-settings/routes.js';
import { commandRoutes } from './command/routes.js';
import { runnerHooks } from './runner/plugin.js';
import { sharesRoutes } from './shares/routes.js';
import { publicRoutes } from './public/routes.js';
import { tusRoutes } from './tus/routes.js';
import { resourcesRoutes } from './resources/routes.js';
import { usageRoutes } from './usage/routes.js';
import { rawRoutes } from './raw/routes.js';
import { searchRoutes } from './search/routes.js';
import { subtitleRoutes } from './subtitle/routes.js';
import { previewRoutes } from './preview/routes.js';
import { sessionsRoutes } from './sessions/routes.js';
import { jobsRoutes } from './jobs/routes.js';
import { webdavRoutes } from './webdav/routes.js';
import { secondFactorRoutes } from './sessions/second-factor-routes.js';
import { extractRoutes } from './extract/routes.js';
import { compressRoutes } from './compress/routes.js';
import { archiveListRoutes } from './extract/list-routes.js';
import { trashRoutes } from './trash/routes.js';
import { passkeyRoutes } from './passkeys/routes.js';
import { indexRoutes } from './index/routes.js';
import { quotaRoutes } from './quota/routes.js';
import { sizesRoutes } from './sizes/routes.js';

/**
 * Every API area, registered under the base URL by app.ts. One line per feature; each feature
 * folder owns its routes.
 */
export const FEATURES: FastifyPluginAsync[] = [
  signinRoutes,
  oidcRoutes,
  sessionsRoutes,
  secondFactorRoutes,
  passkeyRoutes,
  staticRoutes,
  usersRoutes,
  settingsRoutes,
  oidcSettingsRoutes,
  commandRoutes,
  runnerHooks,
  sharesRoutes,
  publicRoutes,
  tusRoutes,
  resourcesRoutes,
  usageRoutes,
  rawRoutes,
  searchRoutes,
  subtitleRoutes,
  previewRoutes,
  jobsRoutes,
  webdavRoutes,
  extractRoutes,
  compressRoutes,
  archiveListRoutes,
  trashRoutes,
  indexRoutes,
  quotaRoutes,
  sizesRoutes,
];
