/** Breadcrumbs of a virtual path (docs/client.md §2: at most the last 4 segments, "..." when cut). */

export const MAX_BREADCRUMBS = 4; // docs/client.md §2 breadcrumbs show at most the last 4 segments

export interface Crumb {
  /** The segment's name; "..." for the truncation marker. */
  name: string;
  /** The path the crumb opens: a folder (ends in `/`), or the open file itself for the last crumb of a file path. */
  path: string;
  truncated: boolean;
}

/**
 * The crumbs after the root, deepest last. A cut list starts with a "..." crumb to the folder
 * above the shown ones. A path without a trailing `/` is a file: its last crumb is the file.
 */
export function breadcrumbs(virtualPath: string): Crumb[] {
  const segments = virtualPath.split('/').filter(Boolean);
  const file = !virtualPath.endsWith('/');
  const crumbs = segments.map((name, i) => ({
    name,
    path: `/${segments.slice(0, i + 1).join('/')}${file && i === segments.length - 1 ? '' : '/'}`,
    truncated: false,
  }));
  if (crumbs.length <= MAX_BREADCRUMBS) return crumbs;
  const shown = crumbs.slice(-MAX_BREADCRUMBS + 1);
  const hidden = crumbs[crumbs.length - MAX_BREADCRUMBS];
  return [{ name: '...', path: hidden?.path ?? '/', truncated: true }, ...shown];
}
