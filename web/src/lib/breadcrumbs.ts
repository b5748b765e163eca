/** Breadcrumbs of a virtual path (spec §2: at most the last 4 segments, "..." when cut). */

export const MAX_BREADCRUMBS = 4; // §2 breadcrumbs show at most the last 4 segments

export interface Crumb {
  /** The segment's name; "..." for the truncation marker. */
  name: string;
  /** The folder path the crumb opens (ends in `/`). */
  path: string;
  truncated: boolean;
}

/** The crumbs after the root, deepest last. A cut list starts with a "..." crumb to the folder above the shown ones. */
export function breadcrumbs(virtualPath: string): Crumb[] {
  const segments = virtualPath.split('/').filter(Boolean);
  const crumbs = segments.map((name, i) => ({
    name,
    path: `/${segments.slice(0, i + 1).join('/')}/`,
    truncated: false,
  }));
  if (crumbs.length <= MAX_BREADCRUMBS) return crumbs;
  const shown = crumbs.slice(-MAX_BREADCRUMBS + 1);
  const hidden = crumbs[crumbs.length - MAX_BREADCRUMBS];
  return [{ name: '...', path: hidden?.path ?? '/', truncated: true }, ...shown];
}
