import { encodePath, requestJson } from './client';

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
}

/** GET /api/resources{path}; a folder path ends in `/`. */
export function getResource(virtualPath: string, signal?: AbortSignal): Promise<Resource> {
  return requestJson<Resource>(`/resources${encodePath(virtualPath)}`, { signal });
}
