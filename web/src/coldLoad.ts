/**
 * Imported first by main.tsx, so that it runs before the rest of the first bundle is evaluated
 * (React, the router, the language): a /files link opened with a session to restore starts its
 * listing (features/files/prefetch.ts) and the route's code right away, while the session is
 * renewed and the language loads.
 */
import { prefetchBeforeSession } from './features/files/prefetch';

/** The /files path this page opened on when a signed-in listing is expected, else null. */
export const coldFilesPath = prefetchBeforeSession();

if (coldFilesPath !== null) {
  // The router imports them again and gets the same modules; a failure shows there.
  import('./app/Layout').catch(() => undefined);
  import('./pages/FilesPage').catch(() => undefined);
}
