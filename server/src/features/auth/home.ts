/**
 * User names and home folders for users the server creates itself (signup, proxy, hook — S33,
 * S73); the users API reuses `validateUsername`, `cleanUsername` and `homeScope`.
 */
// eslint-disable-next-line no-restricted-imports -- home folders only: an admin setting plus a cleaned name, re-checked under the root below
import { mkdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { canonicalPath } from '../../fs/canonical.js';
import { BadRequest } from '../../http/errors.js';

export const MAX_USERNAME_LENGTH = 255;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Refuses names no one can type or that break listings and logs (400). */
export function validateUsername(username: string): void {
  if (username.trim() === '') throw new BadRequest('username is empty');
  if ([...username].length > MAX_USERNAME_LENGTH) throw new BadRequest(`username is too long, maximum length is ${MAX_USERNAME_LENGTH}`);
  if (CONTROL.test(username)) throw new BadRequest('username contains control characters');
}

/**
 * api.md §2 signup step 4: trimmed, ".." removed, every character outside [0-9A-Za-z@_.-]
 * replaced by "-", runs of "-" collapsed. Returns "" when nothing usable is left ("", "-", ".").
 */
export function cleanUsername(username: string): string {
  const cleaned = username
    .trim()
    .replaceAll('..', '')
    .replace(/[^0-9A-Za-z@_.-]/g, '-')
    .replace(/-{2,}/g, '-');
  return cleaned === '-' || cleaned === '.' ? '' : cleaned;
}

/** The virtual scope of a user's own home: `<userHomeBasePath>/<cleaned name>` (never "/"). */
export function homeScope(userHomeBasePath: string, username: string): string {
  const name = cleanUsername(username);
  if (!name) throw new BadRequest('username has no characters usable as a folder name');
  const base = canonicalPath(userHomeBasePath || '/').path;
  return base === '/' ? `/${name}` : `${base}/${name}`;
}

/** Creates the folder of a virtual scope under the server root (mkdir -p, mode 0750). */
export async function createHomeFolder(root: string, scope: string): Promise<void> {
  const rootReal = await realpath(path.resolve(root));
  const virtual = canonicalPath(scope).path;
  const target = path.join(rootReal, virtual);
  await mkdir(target, { recursive: true, mode: 0o750 });
  // A symlinked parent must not carry the home outside the root.
  const real = await realpath(target);
  if (real !== rootReal && !real.startsWith(rootReal + path.sep)) throw new Error(`home folder ${scope} resolves outside the root`);
}
