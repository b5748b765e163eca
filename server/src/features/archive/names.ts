/** Archive entry names (S55) and the archive's own name (docs/api.md §8.2). */

/**
 * One path segment as it may appear in an entry name: a backslash becomes `_` (never a
 * separator), and a segment that is then `.` or `..` becomes `_`.
 */
export function safeSegment(seg: string): string {
  const s = seg.replaceAll('\\', '_');
  return s === '.' || s === '..' || s === '' ? '_' : s;
}

/**
 * The entry name of `virtual` inside an archive based at `base` (both canonical virtual paths,
 * `virtual` at or below `base`): relative, `/`-separated, no leading `/`, no `.`/`..` segment
 * when split on `/` or `\`, no drive prefix. Returns '' for the base itself.
 */
export function entryName(base: string, virtual: string): string {
  const rel = base === '/' ? virtual.slice(1) : virtual.slice(base.length + 1);
  if (rel === '') return '';
  const segs = rel.split('/').map(safeSegment);
  // A first segment such as "C:" would read as a drive on Windows extractors.
  segs[0] = segs[0]!.replace(/^([A-Za-z]):/, '$1_');
  return segs.join('/');
}

/** Is `p` the path `dir` or below it (canonical virtual paths)? */
export function isWithin(dir: string, p: string): boolean {
  return dir === '/' || p === dir || p.startsWith(dir + '/');
}

/** The deepest common folder of the selected paths, by whole segments; one item → that item. */
export function commonBase(paths: readonly string[]): string {
  if (paths.length === 0) return '/';
  if (paths.length === 1) return paths[0]!;
  const split = paths.map((p) => (p === '/' ? [] : p.slice(1).split('/')));
  const first = split[0]!;
  let n = 0;
  while (n < first.length && split.every((s) => s.length > n && s[n] === first[n])) n++;
  // Only whole folders: with ["/a/b", "/a/b/c"] the base is "/a/b"'s parent when b itself is selected.
  if (split.some((s) => s.length === n)) n = Math.max(0, n - 1);
  return '/' + first.slice(0, n).join('/');
}

/** Drops items that are equal to or inside another selected item (they would appear twice). */
export function topLevelOnly(paths: readonly string[]): string[] {
  const sorted = [...new Set(paths)].sort((a, b) => a.length - b.length);
  const kept: string[] = [];
  for (const p of sorted) if (!kept.some((k) => isWithin(k, p))) kept.push(p);
  return paths.filter((p, i) => kept.includes(p) && paths.indexOf(p) === i);
}

/**
 * docs/api.md §8.2: last segment of the base; the requested folder's name when the base
 * is the scope root; the scope folder's own name when that is the root too; `_` prefix for
 * several items; then the extension.
 */
export function archiveName(opts: {
  base: string;
  requested: string;
  scopeName: string;
  items: number;
  extension: string;
}): string {
  const last = (p: string) => p.slice(p.lastIndexOf('/') + 1);
  let name =
    opts.base !== '/' ? last(opts.base) : opts.requested !== '/' ? last(opts.requested) : opts.scopeName;
  if (!name) name = 'archive';
  if (opts.items > 1) name = '_' + name;
  return name + opts.extension;
}
