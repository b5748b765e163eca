/** The trash (docs/api.md §22): list, restore, delete for good, empty. */
import type { TrashItem, TrashList } from '@coffer/protocol';
import { request, requestJson } from './client';

export type { TrashItem, TrashList };

/** What a taken name does on restore: `rename` keeps both (name(1).ext), `fail` answers 409. */
export type RestoreConflict = 'rename' | 'fail';

/** GET /api/trash: the caller's scope, or every scope's (`all`, admins only). Newest first. */
export function listTrash(all: boolean, signal?: AbortSignal): Promise<TrashList> {
  return requestJson<TrashList>(all ? '/trash?all=true' : '/trash', { signal });
}

/** POST /api/trash/{id}/restore: where the item is now. */
export async function restoreTrash(id: string, conflict: RestoreConflict): Promise<string> {
  const res = await requestJson<{ path: string }>(`/trash/${encodeURIComponent(id)}/restore?conflict=${conflict}`, {
    method: 'POST',
  });
  return res.path;
}

/** DELETE /api/trash/{id}: gone for good. */
export async function purgeTrash(id: string): Promise<void> {
  await request(`/trash/${encodeURIComponent(id)}`, { method: 'DELETE' });
}

/** DELETE /api/trash: every item the caller sees (`all`: every scope's); how many went. */
export async function emptyTrash(all: boolean): Promise<number> {
  const res = await requestJson<{ removed: number }>(all ? '/trash?all=true' : '/trash', { method: 'DELETE' });
  return res.removed;
}
