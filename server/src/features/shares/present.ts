import type { Share } from '@coffer/protocol';
import type { ShareRecord } from './repository.js';

/**
 * The only place a ShareRecord becomes API JSON (api.md §16.0): no password, password hash or
 * token ever (S43); `hasPassword` says whether one is set.
 */
export function presentShare(s: ShareRecord): Share {
  return { hash: s.hash, path: s.path, userID: s.userId, expire: s.expire, hasPassword: s.passwordHash !== '' };
}
