/** Shapes the client's unit tests start from, so each test names only what it is about. */
import type { Permissions, UserDefaults } from '@coffer/protocol';
import { ALL_PERMISSIONS } from '../features/settings/permissions';

/** Every permission but admin. */
export const ALL_BUT_ADMIN: Permissions = { ...ALL_PERMISSIONS, admin: false };

/** The new-user defaults of the global settings, as the server might send them. */
export function userDefaults(over: Partial<UserDefaults> = {}): UserDefaults {
  return {
    scope: '.',
    locale: 'en',
    viewMode: 'mosaic',
    singleClick: false,
    redirectAfterCopyMove: true,
    sorting: { by: 'name', asc: false },
    perm: ALL_BUT_ADMIN,
    commands: [],
    hideDotfiles: false,
    dateFormat: false,
    quota: 0,
    aceEditorTheme: '',
    ...over,
  };
}
