/**
 * Coffer's own files (the SQLite database and its journals, the upload data directory, the preview
 * cache) may sit inside the served root — `coffer` started in the folder it serves does exactly
 * that. They are never addressable and never listed, for any user: the database holds the token
 * signing key and every password hash. Checked on real (link-resolved) paths, so no link or
 * scope reaches them either.
 */
import { realpath } from 'node:fs/promises';
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
