/** Test files written straight into the worker's server root (the server sees them at once). */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** A file's contents, or a size: that many bytes of "x". */
export type SeedFile = string | Buffer | number;

/**
 * A folder under `root` with the given files (name → contents; a name may go through subfolders,
 * `sub/a.txt`) and empty folders; returns its path on disk.
 */
export function seed(
  root: string,
  folder: string,
  files: Record<string, SeedFile>,
  dirs: string[] = [],
): string {
  const base = path.join(root, folder);
  mkdirSync(base, { recursive: true });
  for (const d of dirs) mkdirSync(path.join(base, d), { recursive: true });
  for (const [name, body] of Object.entries(files)) {
    const file = path.join(base, name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, typeof body === 'number' ? 'x'.repeat(body) : body);
  }
  return base;
}
