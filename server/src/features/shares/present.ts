import type { Share } from '@coffer/protocol';
import type { ShareRecord } from './repository.js';

/**
 * The only place a ShareRecord becomes API JSON (docs/api.md §14.1): no password, password hash or
 * token ever (S43); `hasPassword` says whether one is set.
 */
export function presentShare(s: ShareRecord): Share {
  const out: Share = { hash: s.hash, path: s.path, userID: s.userId, expire: s.expire, hasPassword: s.passwordHash !== '' };
  // A normal share keeps File Browser's exact shape; only an upload share says more (docs/api.md §23.1).
  if (s.kind === 'upload' && s.upload) {
    const u = s.upload;
    out.kind = 'upload';
    out.upload = { message: u.message, maxFileSize: u.maxFileSize, maxFiles: u.maxFiles, maxBytes: u.maxBytes, files: u.files, bytes: u.bytes };
  }
  return out;
}
