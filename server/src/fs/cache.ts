/**
 * A small content cache on disk (previews, docs/api.md §9): `<dir>/<h[0]>/<h[1:3]>/<h>` for a hex key
 * `h`. Entries are written to a temporary name and renamed into place, so a reader never sees half
 * a file; a failed write only loses the cache entry. Not user data: the folder is the operator's
 * `--cache-dir`.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface DiskCache {
  get(hexKey: string): Promise<Buffer | undefined>;
  put(hexKey: string, data: Buffer): Promise<void>;
}

export function createDiskCache(dir: string): DiskCache {
  const root = path.resolve(dir);
  const fileOf = (h: string) => {
    if (!/^[0-9a-f]{8,}$/.test(h)) throw new Error('cache keys are hex digests');
    return path.join(root, h[0]!, h.slice(1, 3), h);
  };
  return {
    async get(h) {
      try {
        return await readFile(fileOf(h));
      } catch {
        return undefined;
      }
    },
    async put(h, data) {
      const file = fileOf(h);
      const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
      try {
        await mkdir(path.dirname(file), { recursive: true, mode: 0o750 });
        await writeFile(tmp, data, { mode: 0o640 });
        await rename(tmp, file);
      } catch {
        await rm(tmp, { force: true }).catch(() => undefined);
      }
    },
  };
}
