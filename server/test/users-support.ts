/** Helpers shared by the users API integration tests. */
import type { User } from '@coffer/protocol';

export const PERM_ALL = { admin: false, execute: true, create: true, rename: true, modify: true, delete: true, share: true, download: true };

/** The `data` of a POST /api/users: a complete user, with `over` on top. */
export function newUserData(over: Partial<User> & Record<string, unknown> = {}) {
  return {
    username: `u-${Math.random().toString(36).slice(2, 10)}`,
    password: 'a-long-enough-password',
    scope: '/',
    locale: 'en',
    lockPassword: false,
    viewMode: 'list',
    singleClick: false,
    redirectAfterCopyMove: true,
    perm: { ...PERM_ALL },
    commands: [],
    sorting: { by: 'name', asc: false },
    rules: [],
    hideDotfiles: false,
    dateFormat: false,
    aceEditorTheme: '',
    ...over,
  };
}
