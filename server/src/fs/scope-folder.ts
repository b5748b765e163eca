/**
 * Creates the folder a user's scope designates (docs/api.md §3.4 POST: "the folder is created on disk",
 * S54 mode 0750). The path is resolved by fs/resolve first, so nothing is ever created through a
 * symbolic link or outside the server root (S4, S5); only the missing tail is made here.
 */
import { keepDirs } from './atomic.js';
import { canonicalPath } from './canonical.js';
import { resolveInArea, serverRootReal } from './resolve.js';
import { BadRequest, Conflict } from '../http/errors.js';

/** mkdir -p of a canonical virtual scope under the server root; 400 when a file is in the way. */
export async function ensureScopeFolder(serverRoot: string, scope: string): Promise<void> {
  const root = await serverRootReal(serverRoot);
  const target = await resolveInArea({ root }, canonicalPath(scope), { forWrite: true });
  if (target.exists) {
    if (!target.stat?.isDirectory()) throw new BadRequest('the scope exists and is not a folder');
    return;
  }
  try {
    await keepDirs(target.real); // 0750 (S54); a failure part way removes what it made
  } catch (err) {
    if (err instanceof Conflict) throw new BadRequest('a file is in the way of the scope folder', { cause: err });
    throw err;
  }
}
