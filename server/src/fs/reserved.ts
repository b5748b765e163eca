/**
 * Coffer's own files (the SQLite database and its journals, the upload data directory, the preview
 * cache) may sit inside the served root — `coffer` started in the folder it serves does exactly
 * that. They are never addressable and never listed, for any user: the database holds the token
 * signing key and every password hash. Checked on real (link-resolved) paths, so no link or
 * scope reaches them either.
 */
import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';

const reserved = new Set<string>();

/** Registers an absolute path (file or folder; it may not exist yet) as Coffer's own. */
export async function reservePath(p: string): Promise<void> {
  const abs = path.resolve(p);
  reserved.add(abs);
  // Also under its real name, when a parent folder is reached through a link.
  const dir = await realpath(path.dirname(abs)).catch(() => undefined);
  if (dir) reserved.add(path.join(dir, path.basename(abs)));
}

/** True when `real` is a reserved path or lies inside a reserved folder. */
export function isReserved(real: string): boolean {
  if (reserved.size === 0) return false;
  for (const r of reserved) if (real === r || real.startsWith(r + path.sep)) return true;
  return false;
}

/** True when a reserved path lies strictly below the folder `real` (a tree moved there whole would hold it). */
export function hasReservedBelow(real: string): boolean {
  for (const r of reserved) if (r.startsWith(real + path.sep)) return true;
  return false;
}

/**
 * The reserved entries directly in the folder `dirReal`, by name (empty when none), asked once
 * per folder by listings, walks and search instead of once per entry.
 */
export function reservedNamesIn(dirReal: string): ReadonlySet<string> {
  const names = new Set<string>();
  if (reserved.size === 0) return names;
  const dir = path.resolve(dirReal);
  for (const r of reserved) if (path.dirname(r) === dir) names.add(path.basename(r));
  return names;
}

/** A reserved path at or below a folder, as the command sandbox covers it. */
export interface ReservedWithin {
  path: string;
  /** `missing` also for a link: a mount on it would follow the link (its target, when inside, is listed itself). */
  kind: 'file' | 'dir' | 'missing';
}

/**
 * Coffer's own files at or below the real folder `dir` (a scope root), under every name they have
 * (as configured and link-resolved), for the command sandbox to cover. A `dir` that itself lies
 * inside a reserved folder is reported as one reserved folder, `dir` itself.
 */
export async function reservedWithin(dir: string): Promise<ReservedWithin[]> {
  const inside = (parent: string, p: string) => p === parent || p.startsWith(parent === path.sep ? parent : parent + path.sep);
  const names = new Set<string>();
  for (const r of reserved) {
    names.add(r);
    const real = await realpath(r).catch(() => undefined);
    if (real) names.add(real);
  }
  const out = new Map<string, ReservedWithin>();
  for (const p of names) {
    if (inside(p, dir)) out.set(dir, { path: dir, kind: 'dir' });
    else if (inside(dir, p) && !out.has(p)) {
      const st = await lstat(p).catch(() => undefined);
      out.set(p, { path: p, kind: st?.isDirectory() ? 'dir' : st && !st.isSymbolicLink() ? 'file' : 'missing' });
    }
  }
  return [...out.values()].sort((a, b) => a.path.localeCompare(b.path));
}
