/**
 * The trash area on disk (docs/api.md §22): a trashed item lives at `<data dir>/trash/<id>`, moved
 * there by ONE rename of its directory entry, so a folder of any size goes to the trash and comes
 * back in O(1). Only this module touches the trash folder; features/trash/ keeps the records.
 *
 * Another filesystem: when the data dir is not on the item's filesystem (EXDEV), the item is
 * copied (links as links) into `<id>.part`, which is renamed to `<id>` once whole, and then what was
 * copied is removed from the original, each entry only unchanged (fs/ops.ts removeCopied)
 * — O(size), and a crash between the last two steps leaves the item in both places (start-up
 * warns; docs/configuration.md "Trash").
 *
 * What the caller may not delete stays (S7, like a plain delete): a folder holding rule-denied
 * entries or Coffer's own files is moved piece by piece around them.
 */
import type { Dirent } from 'node:fs';
import { cp, link, lstat, mkdir, readdir, rename, rm, stat, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { noteWritten } from './changes.js';
import { Conflict } from '../http/errors.js';
import { DIR_MODE, makeDirs, release, takeBack } from './atomic.js';
import { copiedOf, removeCopied, type Copied, type TreeOptions } from './ops.js';
import { reservedWithin } from './reserved.js';
import { hasRules } from './rules.js';
import { childVirtual, type ScopedPath } from './resolve.js';
import { walk } from './walk.js';
import { openDirExactly, viaFd } from './dirfd.js';

const ID = /^[0-9a-f]{32}$/;
const PART = '.part';

export interface TrashArea {
  /** `<data dir>/trash`. */
  readonly dir: string;
  /** The item lies on the trash folder's filesystem: trashing it is one rename. */
  sameDevice(p: ScopedPath): Promise<boolean>;
  /**
   * Moves `source` (the entry itself: a link moves as a link) to the trash as `id`. Entries the
   * caller may not delete stay with the folders leading to them (`kept` > 0).
   */
  moveIn(id: string, source: ScopedPath, opts: TreeOptions): Promise<{ kept: number }>;
  /** Moves the item `id` back to `target` (missing parents made); never replaces anything (409). */
  moveOut(id: string, target: ScopedPath): Promise<void>;
  /** The item `id` is in the trash (whole: a `.part` copy does not count). */
  exists(id: string): Promise<boolean>;
  /** Deletes the item `id` (and a half-made copy of it); links are removed, never followed. */
  remove(id: string): Promise<void>;
  /** Bytes of the item: file sizes summed over the tree, links not followed. */
  size(id: string): Promise<number>;
  /** Ids of the items on disk. */
  list(): Promise<string[]>;
  /** Whether some entry below the item (links not followed), by its "/"-joined path relative to it, passes `test`. */
  some(id: string, test: (rel: string) => boolean): Promise<boolean>;
}

/** Node's cp refuses FIFOs, sockets and devices: a copy cannot carry them to another filesystem. */
const UNCOPYABLE = new Set(['ERR_FS_CP_FIFO_PIPE', 'ERR_FS_CP_SOCKET', 'ERR_FS_CP_UNKNOWN']);

/** A copy across filesystems, links as links; a special file in it is 409 (docs/api.md §22), not 500. */
async function copyItem(from: string, to: string, filter?: (p: string) => Promise<boolean>): Promise<void> {
  try {
    await cp(from, to, { recursive: true, verbatimSymlinks: true, errorOnExist: true, force: false, filter });
  } catch (err) {
    if (UNCOPYABLE.has((err as NodeJS.ErrnoException).code ?? '')) {
      throw new Conflict('a FIFO, socket or device cannot be copied to another filesystem', { cause: err });
    }
    throw err;
  }
}

function itemPath(dir: string, id: string, suffix = ''): string {
  if (!ID.test(id)) throw new Error('bad trash id');
  return path.join(dir, id + suffix);
}

async function present(p: string): Promise<boolean> {
  return lstat(p).then(
    () => true,
    (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return false;
      throw err;
    },
  );
}

/**
 * Virtual paths below `source` that must stay where they are (denied by a rule, hidden from the
 * caller, or Coffer's own files), and the folders leading to them, as a plain delete keeps them (S7).
 * A link leading out moves along as a link (never followed). Without rules and reserved files below it nothing is
 * walked, so trashing a large folder stays one rename.
 */
async function mustStay(source: ScopedPath, opts: TreeOptions): Promise<{ keep: Set<string>; through: Set<string> }> {
  const keep = new Set<string>();
  const through = new Set<string>();
  if (source.isSymlink || !source.stat?.isDirectory()) return { keep, through };
  const reserved = await reservedWithin(source.real);
  if (!hasRules(opts.user, opts.globalRules) && !opts.user.hideDotfiles && reserved.length === 0) return { keep, through };
  let failure: unknown;
  const onSkip = (s: { virtual: string; reason: string; error?: unknown }) => {
    if (s.reason === 'error') failure ??= s.error;
    else if (s.reason === 'denied' || s.reason === 'reserved') keep.add(s.virtual);
  };
  for await (const e of walk(source, { user: opts.user, globalRules: opts.globalRules, onSkip })) void e;
  if (failure) throw failure;
  for (const v of keep) {
    for (let p = path.posix.dirname(v); p.length >= source.virtual.length && p !== source.virtual; p = path.posix.dirname(p)) through.add(p);
  }
  return { keep, through };
}

/**
 * Moves the children of `fromDir` into `toDir`, around the kept entries (same filesystem). Each
 * folder is listed and its children renamed through the folder opened and checked to be exactly
 * at its path (fs/dirfd.ts): a folder swapped for a link out since its parent was listed never
 * lets what lies outside be moved into the trash. Such a folder below `fromDir` stays, counted
 * as kept; `fromDir` itself moved answers a conflict.
 */
async function moveAround(fromDir: string, virtual: string, toDir: string, stay: { keep: Set<string>; through: Set<string> }): Promise<number> {
  const dir = await openDirExactly(fromDir).catch((err: unknown) => {
    throw new Conflict('the item moved while it was being deleted', { cause: err });
  });
  try {
    await mkdir(toDir, { mode: DIR_MODE });
    let kept = 0;
    const entries: Dirent[] = await readdir(viaFd(dir), { withFileTypes: true });
    for (const d of entries) {
      const v = childVirtual(virtual, d.name);
      const to = path.join(toDir, d.name);
      if (stay.keep.has(v)) kept++;
      else if (stay.through.has(v) && d.isDirectory()) {
        kept += await moveAround(path.join(fromDir, d.name), v, to, stay).catch((err: unknown) => {
          if (err instanceof Conflict) return 1;
          throw err;
        });
      } else await rename(viaFd(dir, d.name), to);
    }
    return kept;
  } finally {
    await dir.close();
  }
}

async function sizeOf(p: string): Promise<number> {
  const st = await lstat(p);
  if (!st.isDirectory()) return st.size;
  let total = 0;
  const stack = [p];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    for (const d of await readdir(dir, { withFileTypes: true }).catch(() => [] as Dirent[])) {
      const child = path.join(dir, d.name);
      if (d.isDirectory()) stack.push(child);
      else total += await lstat(child).then((s) => s.size, () => 0);
    }
  }
  return total;
}

/** Opens the trash folder under the data dir; it is made with the first trashed item. */
export async function openTrashArea(dataDir: string): Promise<TrashArea> {
  const dir = path.join(path.resolve(dataDir), 'trash');
  let made: Promise<unknown> | undefined;
  const ensure = async (): Promise<void> => {
    made ??= mkdir(dir, { recursive: true, mode: DIR_MODE }).catch((err: unknown) => {
      made = undefined;
      throw err;
    });
    await made;
  };
  const nearestDevice = async (): Promise<number> => {
    for (let cur = dir; ; cur = path.dirname(cur)) {
      const st = await stat(cur).catch(() => undefined);
      if (st) return st.dev;
      if (path.dirname(cur) === cur) return -1;
    }
  };

  return {
    dir,
    async sameDevice(p) {
      const st = await lstat(p.entry);
      return st.dev === (await nearestDevice());
    },
    async moveIn(id, source, opts) {
      await ensure();
      const to = itemPath(dir, id);
      const stay = await mustStay(source, opts);
      if ((await lstat(source.entry)).dev === (await nearestDevice())) {
        if (stay.keep.size > 0) {
          try {
            return { kept: await moveAround(source.entry, source.virtual, to, stay) };
          } finally {
            noteWritten(source.entry, true);
          }
        }
        // Through its parent opened exactly where it was resolved: a folder on the way swapped for
        // a link out since never lets an outside item be moved into the trash.
        const parent = await openDirExactly(path.dirname(source.entry)).catch((err: unknown) => {
          throw new Conflict('the item moved while it was being deleted', { cause: err });
        });
        try {
          await rename(viaFd(parent, path.basename(source.entry)), to);
          noteWritten(source.entry);
          return { kept: 0 };
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err; // a mount below the root
        } finally {
          await parent.close();
        }
      }
      // Another filesystem: a whole copy of what may go first, under a name no reader takes for
      // the item; then the original goes, around what must stay (S7). Links are copied as links.
      // Then only what was copied goes, and only unchanged (fs/ops.ts removeCopied): a file that
      // appeared or was written in the source meanwhile stays there.
      const part = itemPath(dir, id, PART);
      const keepReal = new Set([...stay.keep].map((v) => path.join(source.entry, path.relative(source.virtual, v))));
      const copied: Copied[] = [];
      const take = async (p: string): Promise<boolean> => {
        if (keepReal.has(p)) return false;
        const st = await lstat(p);
        copied.push(copiedOf(p, st, st.isSymbolicLink()));
        return true;
      };
      try {
        await copyItem(source.entry, part, take);
        await rename(part, to);
      } catch (err) {
        await rm(part, { recursive: true, force: true });
        throw err;
      }
      try {
        return await removeCopied(copied);
      } finally {
        noteWritten(source.entry, true);
      }
    },
    async moveOut(id, target) {
      const from = itemPath(dir, id);
      const st = await lstat(from).catch(() => undefined);
      if (!st) throw new Conflict('the item is not in the trash');
      const made = await makeDirs(path.dirname(target.entry));
      let parent: FileHandle | undefined;
      try {
        // Into the folder opened exactly where it was resolved: one on the way swapped for a link
        // out since never receives the item outside the scope.
        parent = await openDirExactly(path.dirname(target.entry)).catch((err: unknown) => {
          throw new Conflict('the place to restore to moved', { cause: err });
        });
        const at = viaFd(parent, path.basename(target.entry));
        if (await present(at)) throw new Conflict('the name is taken');
        try {
          // A file or link goes back by a hard link (which never replaces a name that appeared
          // meanwhile), a folder by a rename (which only replaces an empty folder).
          if (st.isDirectory()) await rename(from, at);
          else {
            await link(from, at);
            await unlink(from);
          }
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === 'EEXIST' || code === 'ENOTEMPTY') throw new Conflict('the name is taken', { cause: err });
          if (code !== 'EXDEV') throw err;
          await copyItem(from, at);
          await rm(from, { recursive: true, force: true });
        }
        noteWritten(target.entry, true);
        release(made);
      } catch (err) {
        await takeBack(made);
        throw err;
      } finally {
        await parent?.close();
      }
    },
    async exists(id) {
      return present(itemPath(dir, id));
    },
    async remove(id) {
      // rm never follows a link, inside the tree or as the item itself.
      await rm(itemPath(dir, id), { recursive: true, force: true });
      await rm(itemPath(dir, id, PART), { recursive: true, force: true });
    },
    async size(id) {
      return sizeOf(itemPath(dir, id));
    },
    async some(id, test) {
      const stack: [string, string][] = [[itemPath(dir, id), '']];
      while (stack.length > 0) {
        const [real, rel] = stack.pop()!;
        const entries: Dirent[] = await readdir(real, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
          if (err.code === 'ENOTDIR' || err.code === 'ENOENT') return [];
          throw err;
        });
        for (const d of entries) {
          const childRel = rel === '' ? d.name : `${rel}/${d.name}`;
          if (test(childRel)) return true;
          if (d.isDirectory()) stack.push([path.join(real, d.name), childRel]);
        }
      }
      return false;
    },
    async list() {
      try {
        return (await readdir(dir)).filter((n) => ID.test(n));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw err;
      }
    },
  };
}
