/**
 * User names and home scopes for users the server creates itself (signup, proxy, hook — S33,
 * S73); the users API reuses `validateUsername`, `cleanUsername` and `homeScope`.
 */
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
 * docs/api.md §2.8 signup step 4: trimmed, ".." removed, every character outside [0-9A-Za-z@_.-]
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

