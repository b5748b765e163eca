import type { FileInfo, FolderListing, ListingItem as ItemJson } from '@coffer/protocol';
import { encodePath, request, requestJson } from './client';
import { readResource, type ItemsListener as ListingListener } from './listingStream';

/**
 * The fields of a resource the client reads (docs/api.md §7.1; the full shape is packages/protocol's
 * ResourceItem). `resolution` only from servers that measure images: File Browser 2.x never sends
 * it on listings, Coffer never does.
 */
export type ResourceItem = Pick<ItemJson, 'path' | 'name' | 'size' | 'modified' | 'isDir' | 'type' | 'folderSize'> & {
  resolution?: { width: number; height: number };
};

/**
 * A folder (FolderListing) or a file (FileInfo) as GET /api/resources answers it, with the fields
 * the client reads. `sorting` is read defensively: another server may send anything there.
 */
export interface Resource extends ResourceItem, Partial<Pick<FolderListing, 'numDirs' | 'numFiles'>>, Pick<FileInfo, 'content' | 'subtitles'> {
  items?: ResourceItem[];
  /** Folders: the user's saved listing order. */
  sorting?: { by?: unknown; asc?: unknown };
}

/** Called while a folder's items arrive: the folder's own fields, and every item so far. */
export type ItemsListener = ListingListener<Resource>;

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
