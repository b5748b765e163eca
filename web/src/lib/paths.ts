/** Virtual paths (what the user sees) and the client routes that show them. */

/** Encodes each segment, keeping the `/` separators (docs/api.md §1.4). */
export function encodePath(virtualPath: string): string {
  return virtualPath
    .split('/')
    .map((s) => encodeURIComponent(s))
    .join('/');
}

/** The client route of a virtual path: /files + the path with each segment encoded. */
export function filesRoute(virtualPath: string): string {
  const p = virtualPath.startsWith('/') ? virtualPath : `/${virtualPath}`;
  return `/files${encodePath(p)}`;
}

/** The virtual path of a /files route's splat (already decoded by the router). */
export function virtualPathOf(splat: string | undefined): string {
  return `/${splat ?? ''}`.replace(/\/{2,}/g, '/');
}

/** The folder to search or measure: the path itself for a folder (trailing /), else its parent. */
export function folderOf(virtualPath: string): string {
  if (virtualPath.endsWith('/')) return virtualPath;
  return virtualPath.slice(0, virtualPath.lastIndexOf('/') + 1) || '/';
}

/** The folder path with one trailing slash ("/" for the root). */
export function folderPath(virtualPath: string): string {
  const p = `/${virtualPath}`.replace(/\/{2,}/g, '/');
  return p.endsWith('/') ? p : `${p}/`;
}

/** The client route of a folder's disk-usage screen: /usage + the folder, each segment encoded. */
export function usageRoute(virtualPath: string): string {
  return `/usage${encodePath(folderPath(virtualPath))}`;
}
