import type { User } from '@coffer/protocol';
import type { UserRecord } from './repository.js';

/**
 * The only place a UserRecord becomes API JSON (docs/api.md §3.1): `password` is always "" (never a
 * hash, S34); a non-admin reading itself gets `scope: ""` (S37). Field order as File Browser's.
 */
export function presentUser(u: UserRecord, viewer: { perm: { admin: boolean } }): User {
  return {
    id: u.id,
    username: u.username,
    password: '',
    scope: viewer.perm.admin ? u.scope : '',
    locale: u.locale,
    lockPassword: u.lockPassword,
    viewMode: u.viewMode,
    singleClick: u.singleClick,
    redirectAfterCopyMove: u.redirectAfterCopyMove,
    perm: {
      admin: u.perm.admin,
      execute: u.perm.execute,
      create: u.perm.create,
      rename: u.perm.rename,
      modify: u.perm.modify,
      delete: u.perm.delete,
      share: u.perm.share,
      download: u.perm.download,
    },
    commands: [...(u.commands ?? [])],
    sorting: { by: u.sorting.by, asc: u.sorting.asc },
    rules: (u.rules ?? []).map((r) => ({ regex: r.regex, allow: r.allow, path: r.path, regexp: r.regexp ? { raw: r.regexp.raw } : null })),
    hideDotfiles: u.hideDotfiles,
    dateFormat: u.dateFormat,
    aceEditorTheme: u.aceEditorTheme,
    quota: u.quota,
  };
}
