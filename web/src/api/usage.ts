import type { Usage } from '@coffer/protocol';
import { encodePath, requestJson } from './client';

export type { Usage };

/** GET /api/usage{path} (docs/api.md §11): the filesystem holding the folder. */
export function getUsage(virtualPath: string, signal?: AbortSignal): Promise<Usage> {
  return requestJson<Usage>(`/usage${encodePath(virtualPath)}`, { signal });
}
