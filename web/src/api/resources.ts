import { encodePath, request, requestJson } from './client';
import { readResource, type ItemsListener } from './listingStream';

/** The fields of a resource the client reads (api.md §8). */
export interface ResourceItem {
  path: string;
  name: string;
  size: number;
  modified: string;
  isDir: boolean;
  type: string;
  /** Images, when the server measured them (File Browser 2.x never sends it on listings). */
  resolution?: { width: number; height: number };
}

export interface Resource extends ResourceItem {
  items?: ResourceItem[];
  numDirs?: number;
  numFiles?: number;
  /** Folders: the user's saved listing order. */
  sorting?: { by?: unknown; asc?: unknown };
  /** Text files of at most 10 MiB, with the download permission; omitted when empty (api.md §8, S81). */
  content?: string;
  /** Videos: virtual paths of the subtitle files found beside them (for /api/subtitle). */
  subtitles?: string[];
}

/**
 * GET /api/resources{path}; a folder path ends in `/`. With `token` (a stored one, before the
 * session is restored) instead of the session's, a 401 does not end the session.
 */
export function getResource(virtualPath: string, signal?: AbortSignal, token?: string): Promise<Resource> {
  return requestJson<Resource>(`/resources${encodePath(virtualPath)}`, { signal, token });
}

/**
 * `getResource`, read as it arrives: `onItems` sees a folder's items while the rest of a big
 * listing is still on its way (listingStream.ts).
 */
export async function streamResource(
  virtualPath: string,
  onItems: ItemsListener,
  signal?: AbortSignal,
  token?: string,
): Promise<Resource> {
  const res = await request(`/resources${encodePath(virtualPath)}`, { signal, token });
  return readResource(res, onItems);
}

/** PUT /api/resources{path}: the complete new content of an existing file (editor save). */
export async function saveResource(virtualPath: string, text: string): Promise<void> {
  await request(`/resources${encodePath(virtualPath)}`, {
    method: 'PUT',
    body: text,
    headers: { 'Content-Type': 'text/plain; charset=utf-8' },
  });
}
