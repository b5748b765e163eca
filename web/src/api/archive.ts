import type { ArchiveEntryLine } from '@coffer/protocol';
import { apiUrl } from '../config';
import { encodePath, request } from './client';
import { forEachJsonLine } from './lines';

export type { ArchiveEntryLine };

/**
 * GET /api/archive-entries{archive} (docs/api.md §18 E13): the archive's entries, streamed; each
 * line goes to `onLine` as it arrives (the last one may carry `error`).
 */
export async function listArchiveEntries(archive: string, onLine: (line: ArchiveEntryLine) => void, signal?: AbortSignal): Promise<void> {
  const res = await request(`/archive-entries${encodePath(archive)}`, { signal });
  await forEachJsonLine(res, onLine);
}

/** One entry of an archive, downloaded as an attachment (the auth cookie authenticates browser GETs). */
export function archiveEntryUrl(archive: string, name: string): string {
  return apiUrl(`/archive-entry${encodePath(archive)}?name=${encodeURIComponent(name)}`);
}
