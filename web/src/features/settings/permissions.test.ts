import { describe, expect, it } from 'vitest';
import { isPermissionLocked, NO_PERMISSIONS, setPermission, visiblePermissions } from './permissions';

describe('permission checkboxes', () => {
  it('turning admin on grants every permission and locks the other boxes', () => {
    const perm = setPermission({ ...NO_PERMISSIONS, create: true }, 'admin', true);
    expect(Object.values(perm).every(Boolean)).toBe(true);
    expect(isPermissionLocked(perm, 'delete')).toBe(true);
    expect(isPermissionLocked(perm, 'admin')).toBe(false);
  });

  it('turning admin off keeps the other permissions and unlocks them', () => {
    const perm = setPermission(setPermission(NO_PERMISSIONS, 'admin', true), 'admin', false);
    expect(perm.admin).toBe(false);
    expect(perm.create).toBe(true);
    expect(isPermissionLocked(perm, 'create')).toBe(false);
  });

  it('sharing turns downloading on, and no downloading turns sharing off', () => {
    const sharing = setPermission(NO_PERMISSIONS, 'share', true);
    expect(sharing).toMatchObject({ share: true, download: true });
    expect(setPermission(sharing, 'download', false)).toMatchObject({ share: false, download: false });
    expect(setPermission(sharing, 'share', false)).toMatchObject({ share: false, download: true });
  });

  it('changes one permission without touching the input', () => {
    const before = { ...NO_PERMISSIONS };
    expect(setPermission(before, 'rename', true)).toEqual({ ...NO_PERMISSIONS, rename: true });
    expect(before).toEqual(NO_PERMISSIONS);
  });

  it('shows execute only when the server runs commands', () => {
    expect(visiblePermissions(true)).toContain('execute');
    expect(visiblePermissions(false)).not.toContain('execute');
    expect(visiblePermissions(false)).toHaveLength(7);
  });
});
