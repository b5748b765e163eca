import type { FolderUsage, FolderUsageItem } from '@coffer/protocol';
import { encodePath, requestJson } from './client';

export type { FolderUsage, FolderUsageItem };

/** GET /api/sizes{folder} (docs/api.md §24.2): the folder's children with sizes from the file index. */
export function getFolderUsage(virtualPath: string, signal?: AbortSignal): Promise<FolderUsage> {
  return requestJson<FolderUsage>(`/sizes${encodePath(virtualPath)}`, { signal });
}
