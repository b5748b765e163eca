/**
 * The permission checkboxes' rules (docs/client.md §4 "Admin checkbox", §6): turning admin on grants every
 * permission and locks the other boxes; sharing needs downloading (the server refuses a user with
 * `share` but not `download`, docs/api.md §3.4), so the two boxes follow each other.
 */
import type { Permissions } from '@coffer/protocol';

export type PermissionName = keyof Permissions;

/** The order the boxes are shown in: admin first, then what a user does most. */
export const PERMISSION_ORDER: readonly PermissionName[] = [
  'admin',
  'create',
  'rename',
  'modify',
  'delete',
  'download',
  'share',
  'execute',
];

export const NO_PERMISSIONS: Permissions = {
  admin: false,
  execute: false,
  create: false,
  rename: false,
  modify: false,
  delete: false,
  share: false,
  download: false,
};

/** What an admin has: every permission. */
export const ALL_PERMISSIONS: Permissions = {
  admin: true,
  execute: true,
  create: true,
  rename: true,
  modify: true,
  delete: true,
  share: true,
  download: true,
};

/** `perm` with `name` set to `on`, and what that implies for the others. */
export function setPermission(perm: Permissions, name: PermissionName, on: boolean): Permissions {
  if (name === 'admin') {
    return on ? { ...ALL_PERMISSIONS } : { ...perm, admin: false };
  }
  const next = { ...perm, [name]: on };
  if (name === 'share' && on) next.download = true;
  if (name === 'download' && !on) next.share = false;
  return next;
}

/** Whether the box of `name` can be changed: an admin's other boxes are locked on. */
export function isPermissionLocked(perm: Permissions, name: PermissionName): boolean {
  return perm.admin && name !== 'admin';
}

/**
 * `execute` is only meaningful when the server runs commands (EnableExec): without it the box is
 * left out of the form, and the value kept as it was.
 */
export function visiblePermissions(execEnabled: boolean): readonly PermissionName[] {
  return execEnabled ? PERMISSION_ORDER : PERMISSION_ORDER.filter((n) => n !== 'execute');
}
