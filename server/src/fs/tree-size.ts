/**
 * The bytes a folder holds on disk, for quotas (features/quota): the sizes of the regular files
 * below it, every one, whatever rules hide from a user — a quota counts the disk, not a view —
 * except Coffer's staging files (`.coffer-tmp-*`, below).
 * Links are never followed (a link is counted as itself, 0 bytes: its target is counted where it
 * lies, or not at all when it leaves the folder), so the sum cannot leave the folder nor loop.
 * Folders are read one batch of entries at a time (`opendir`), at most `concurrency` at once.
 */
import { lstat, opendir } from 'node:fs/promises';
import path from 'node:path';
import { isTempName } from './names.js';

export interface TreeSizeOptions {
  /** Folders read at once (default 8). */
  concurrency?: number;
  signal?: AbortSignal;
}

export interface TreeSize {
  bytes: number;
  files: number;
  folders: number;
}

/** A file system that does not say an entry's type in the folder (DT_UNKNOWN): lstat tells. */
function unknownType(e: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean; isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean }): boolean {
  return !e.isFile() && !e.isDirectory() && !e.isSymbolicLink() && !e.isFIFO() && !e.isSocket() && !e.isCharacterDevice() && !e.isBlockDevice();
}

/** Entries whose size is asked at once inside one folder. */
const STAT_BATCH = 64;

/** The size of the regular file at `real` (links not followed); 0 for anything else or nothing. */
export async function fileSize(real: string): Promise<number> {
  const st = await lstat(real).catch(() => undefined);
  return st?.isFile() ? st.size : 0;
}

/**
 * The sum of the sizes of the regular files below `realDir` (itself included when it is a file).
 * A folder that cannot be read (gone meanwhile, no permission) counts as empty; a missing
 * `realDir` is 0 bytes.
 */
export async function treeSize(realDir: string, opts: TreeSizeOptions = {}): Promise<TreeSize> {
  const out: TreeSize = { bytes: 0, files: 0, folders: 0 };
  const top = await lstat(realDir).catch(() => undefined);
  if (!top) return out;
  if (top.isFile()) return { bytes: top.size, files: 1, folders: 0 };
  if (!top.isDirectory()) return out;
  const pending: string[] = [realDir];
  const concurrency = Math.max(1, opts.concurrency ?? 8);

  async function readOne(dir: string): Promise<void> {
    out.folders++;
    let handle;
    try {
      handle = await opendir(dir, { bufferSize: 256 });
    } catch {
      return;
    }
    let files: string[] = [];
    const flush = async () => {
      const stats = await Promise.all(files.map((f) => lstat(f).catch(() => undefined)));
      stats.forEach((st, i) => {
        if (st?.isFile()) {
          out.bytes += st.size;
          out.files++;
        } else if (st?.isDirectory()) pending.push(files[i]!);
      });
      files = [];
    };
    try {
      for await (const entry of handle) {
        opts.signal?.throwIfAborted();
        // Staging files of writes under way are not counted, as in the file index: a body being
        // streamed is held by the quota itself (features/quota), and counted twice otherwise.
        if (isTempName(entry.name)) continue;
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) pending.push(full);
        else if (entry.isFile() || unknownType(entry)) {
          files.push(full);
          if (files.length >= STAT_BATCH) await flush();
        }
      }
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      // A folder removed while it was read: what was seen counts.
    }
    await flush();
  }

  // A small pool: each worker takes the next folder until none is left and none is being read
  // (a folder being read may still add more).
  let active = 0;
  await new Promise<void>((resolve, reject) => {
    let failed = false;
    const next = (): void => {
      if (failed) return;
      while (active < concurrency && pending.length > 0) {
        const dir = pending.pop()!;
        active++;
        readOne(dir).then(
          () => {
            active--;
            next();
          },
          (err: unknown) => {
            failed = true;
            reject(err instanceof Error ? err : new Error(String(err)));
          },
        );
      }
      if (active === 0 && pending.length === 0) resolve();
    };
    next();
  });
  return out;
}
