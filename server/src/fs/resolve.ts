/**
 * The one path resolver (docs/api.md §6.2, §6.5, S1–S7; fs/README.md): request path → canonical
 * virtual path → rules/hidden check → real path inside the area, symlinks resolved component by
 * component and never followed out of it. Every feature touching user files goes through here and
 * works on the resulting ScopedPath, never on a string.
 */
import type { Stats } from 'node:fs';
import { lstat, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Rule } from '@coffer/protocol';
import { BadRequest, Forbidden, HttpError, NotFound } from '../http/errors.js';
import { canonicalPath, type CanonicalPath } from './canonical.js';
import { isTempName } from './names.js';
import { isReserved } from './reserved.js';
import { isDenied, type RuleSubject } from './rules.js';

/** Linux's own limit on links followed in one resolution (MAXSYMLINKS). */
const MAX_LINKS = 40;
/** Linux's PATH_MAX: bytes of a path, its terminating NUL included. */
const PATH_MAX = 4096;

/**
 * A path that went through the resolver. Only this module creates one (branded); every function
 * that touches user files takes a ScopedPath.
 */
export type ScopedPath = {
  /** Canonical virtual path inside the area: leading "/", no trailing "/", "/" for the area root. */
  readonly virtual: string;
  /** Absolute real path, every link resolved (for a missing path: real parent + remaining names). */
  readonly real: string;
  /** Absolute path of the directory entry itself: real parent + own name (differs from `real` for a link). Rename/delete act on it. */
  readonly entry: string;
  /** Real path of the area root (the user's scope root, or a shared folder). */
  readonly root: string;
  /** The request ended in "/" (folder for POST and listings); never used for rule matching. */
  readonly trailingSlash: boolean;
  readonly exists: boolean;
  /** The last component is itself a symbolic link (its target stays inside the area). */
  readonly isSymlink: boolean;
  /** stat of the target when it exists. */
  readonly stat?: Stats;
} & { readonly __brand: 'ScopedPath' };

/** The area a request is confined to. */
export interface Area {
  /** Real (symlink-resolved) absolute path of the area root. */
  readonly root: string;
}

export interface ResolveOptions {
  /** Percent-decode the raw text once first (URL tails). Ignored for a CanonicalPath. */
  decode?: boolean;
  /** Settings `rules` (apply to every user, admins too, before the user's rules). */
  globalRules: readonly Rule[];
  /** Apply the rules/hidden check (default true); hidden files count unless `hidden: false`. */
  rules?: boolean;
  hidden?: boolean;
  /** Missing → 404. */
  mustExist?: boolean;
  /**
   * The caller may create this path: a path reached through a link whose target does not exist
   * is refused (403) — nothing is ever created by writing through a link (S5).
   */
  forWrite?: boolean;
}

export interface ResolveUser extends RuleSubject {
  scope: string;
}

/** Is `p` the directory `dir` itself or below it (both absolute, normalised)? */
export function isInside(dir: string, p: string): boolean {
  if (p === dir) return true;
  const prefix = dir.endsWith(path.sep) ? dir : dir + path.sep;
  return p.startsWith(prefix);
}

function wrapFsError(err: unknown): never {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENAMETOOLONG') throw new BadRequest('name too long');
  if (code === 'ELOOP') throw new Forbidden('too many levels of symbolic links');
  if (code === 'EACCES' || code === 'EPERM') throw new Forbidden();
  throw err;
}

interface Walked {
  real: string;
  exists: boolean;
  /** A link was followed into a part that does not exist. */
  viaDanglingLink: boolean;
}

/**
 * POSIX resolution, done by hand so that a missing tail and dangling links are judged by where
 * they point (S5): each component is lstat-ed; links are expanded in place (`..` in a link target
 * applies to the link's real folder), at most MAX_LINKS of them (loops → 403).
 */
async function walkReal(start: string, names: string[]): Promise<Walked> {
  const queue = names.map((n) => ({ n, link: false }));
  let cur = start;
  let links = 0;
  while (queue.length > 0) {
    const { n, link } = queue.shift()!;
    if (n === '' || n === '.') continue;
    if (n === '..') {
      cur = path.dirname(cur);
      continue;
    }
    const cand = path.join(cur, n);
    let st: Stats;
    try {
      st = await lstat(cand);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') {
        const rest = queue.map((q) => q.n);
        return { real: path.resolve(cand, ...rest), exists: false, viaDanglingLink: link || queue.some((q) => q.link) };
      }
      wrapFsError(err);
    }
    if (st.isSymbolicLink()) {
      if (++links > MAX_LINKS) throw new Forbidden('too many levels of symbolic links');
      const target = await readlink(cand).catch(wrapFsError);
      if (path.isAbsolute(target)) cur = path.parse(target).root;
      queue.unshift(...target.split('/').map((t) => ({ n: t, link: true })));
      continue;
    }
    cur = cand;
  }
  return { real: cur, exists: true, viaDanglingLink: false };
}

/**
 * Resolves an absolute on-disk path (already inside `within` lexically) through links: the
 * fast path is one realpath(); a missing tail falls back to the component walk.
 */
async function resolveReal(within: string, names: string[]): Promise<Walked> {
  const joined = names.length ? path.join(within, ...names) : within;
  try {
    return { real: await realpath(joined), exists: true, viaDanglingLink: false };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') wrapFsError(err);
  }
  return walkReal(within, names);
}

const rootReal = new Map<string, string>();

/**
 * Real path of the server root (it must exist). Found once per root: the root is fixed for the
 * server's life (a failure is not remembered, so a root that appears later is found then).
 */
export async function serverRootReal(serverRoot: string): Promise<string> {
  const abs = path.resolve(serverRoot);
  const known = rootReal.get(abs);
  if (known !== undefined) return known;
  const real = await realpath(abs);
  if (rootReal.size > 100) rootReal.clear();
  rootReal.set(abs, real);
  return real;
}

/**
 * The real path of a user's scope root. `"."`, `""` and `/` mean the server root. A scope that
 * climbs above the server root or resolves (through links) outside it → 403 (S4, S9); a scope
 * folder that does not exist → 404.
 */
export async function scopeRoot(serverRoot: string, scope: string): Promise<Area> {
  const base = await serverRootReal(serverRoot);
  const canon = canonicalPath(scope);
  if (canon.path === '/') return { root: base };
  const w = await resolveReal(base, canon.path.slice(1).split('/'));
  if (!isInside(base, w.real)) throw new Forbidden('scope leaves the server root');
  if (!w.exists) throw new NotFound('scope folder missing');
  return { root: w.real };
}

/**
 * Resolves a canonical virtual path inside an area (a scope root or a shared folder) without any
 * rule check. Throws 403 when a link (existing or dangling) leads out of the area, 404 with
 * `mustExist` when nothing is there.
 */
export async function resolveInArea(
  area: Area,
  canon: CanonicalPath,
  opts: { mustExist?: boolean; forWrite?: boolean } = {},
): Promise<ScopedPath> {
  const virtual = canon.path;
  const names = virtual === '/' ? [] : virtual.slice(1).split('/');
  for (const n of names) {
    if (Buffer.byteLength(n) > 255) throw new BadRequest('name too long');
    if (isTempName(n)) throw new Forbidden('staging files are not addressable');
  }
  // The entry itself: its parent resolved, plus its own name (not followed).
  let entry = area.root;
  let isSymlink = false;
  let entryLstat: Stats | undefined;
  if (names.length > 0) {
    // The area root is already real: an entry right in it needs no realpath of its folder.
    const parent = names.length === 1 ? { real: area.root, exists: true, viaDanglingLink: false } : await resolveReal(area.root, names.slice(0, -1));
    if (!isInside(area.root, parent.real)) throw new Forbidden('symbolic link leaves the scope');
    entry = path.join(parent.real, names[names.length - 1]!);
    if (parent.exists) {
      try {
        entryLstat = await lstat(entry);
        isSymlink = entryLstat.isSymbolicLink();
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'ENOENT' && code !== 'ENOTDIR') wrapFsError(err);
      }
    } else if (opts.forWrite && parent.viaDanglingLink) {
      throw new Forbidden('will not create through a symbolic link');
    }
  }
  let real = entry;
  let exists = entryLstat !== undefined || names.length === 0;
  if (isSymlink) {
    const w = await walkReal(path.dirname(entry), [path.basename(entry)]);
    if (!isInside(area.root, w.real)) throw new Forbidden('symbolic link leaves the scope');
    real = w.real;
    exists = w.exists;
    if (!exists && opts.forWrite) throw new Forbidden('will not create through a symbolic link');
  }
  let st: Stats | undefined;
  if (exists) {
    try {
      st = isSymlink || !entryLstat ? await stat(real) : entryLstat;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') exists = false;
      else wrapFsError(err);
    }
  }
  if (isReserved(real) || isReserved(entry)) throw new Forbidden('reserved for the server');
  // A path the filesystem cannot take is refused before anything is created (a tus upload would
  // otherwise be accepted whole and fail at the end).
  if (opts.forWrite && Buffer.byteLength(real) >= PATH_MAX) throw new BadRequest('name too long');
  if (!exists && opts.mustExist) throw new NotFound();
  return { virtual, real, entry, root: area.root, trailingSlash: canon.trailingSlash, exists, isSymlink, stat: st } as ScopedPath;
}

function toCanonical(rawOrCanonical: string | CanonicalPath, decode?: boolean): CanonicalPath {
  return typeof rawOrCanonical === 'string' ? canonicalPath(rawOrCanonical, { decode }) : rawOrCanonical;
}

/**
 * The resolver every user-facing feature calls: canonicalise (S1), rules/hidden check (403, before
 * any disk access), then resolve inside the user's scope root (S4, S5).
 */
export async function resolvePath(
  user: ResolveUser,
  rawOrCanonical: string | CanonicalPath,
  opts: ResolveOptions & { serverRoot: string },
): Promise<ScopedPath> {
  const canon = toCanonical(rawOrCanonical, opts.decode);
  if ((opts.rules ?? true) && isDenied(user, canon.path, opts.globalRules, { hidden: opts.hidden ?? true })) {
    throw new Forbidden('path denied by a rule');
  }
  const area = await scopeRoot(opts.serverRoot, user.scope);
  return resolveInArea(area, canon, opts);
}

/** A child of a resolved folder, by name (used by listings and walks; `name` holds no "/"). */
export function childVirtual(parent: string, name: string): string {
  return parent === '/' ? `/${name}` : `${parent}/${name}`;
}

/** Re-resolves a ScopedPath's own virtual path (after a change on disk). */
export async function refresh(p: ScopedPath, opts: { mustExist?: boolean } = {}): Promise<ScopedPath> {
  return resolveInArea({ root: p.root }, { path: p.virtual, trailingSlash: p.trailingSlash }, opts);
}

/** True for errors the resolver throws on purpose (403/404/400), as opposed to I/O failures. */
export function isResolveRefusal(err: unknown): err is HttpError {
  return err instanceof HttpError && (err.status === 403 || err.status === 404 || err.status === 400);
}
