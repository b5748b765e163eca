import type { FastifyPluginAsync } from 'fastify';
import { authRoutes } from './auth/routes.js';
import { staticRoutes } from '../http/static.js';
import { usersRoutes } from './users/routes.js';
import { settingsRoutes } from './settings/routes.js';
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

/**
 * Every API area, registered under the base URL by app.ts. One line per feature; each feature
 * folder owns its routes.
 */
export const FEATURES: FastifyPluginAsync[] = [
  authRoutes,
  staticRoutes,
  usersRoutes,
  settingsRoutes,
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
];
