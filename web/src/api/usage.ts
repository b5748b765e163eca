import { encodePath, requestJson } from './client';

export interface Usage {
  used: number;
  total: number;
}

/** GET /api/usage{path} (api.md §12): the filesystem holding the folder. */
export function getUsage(virtualPath: string, signal?: AbortSignal): Promise<Usage> {
  return requestJson<Usage>(`/usage${encodePath(virtualPath)}`, { signal });
}
