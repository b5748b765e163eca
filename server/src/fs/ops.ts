/**
 * Whole-resource operations on resolved paths: delete, copy, move, checksum, header and text
 * reads, disk usage. Recursive ones walk with the rules (S7): denied descendants and escaping links
 * are never copied, moved or deleted.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fsp from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import path from 'node:path';
import type { Rule } from '@coffer/protocol';
import { Conflict, Forbidden } from '../http/errors.js';
import { createdEntry, DIR_MODE, FILE_MODE, makeDirs, nodeIo, release, takeBack, writeAtomic, type Created, type WriteIo } from './atomic.js';
import { isDenied, type RuleSubject } from './rules.js';
import { resolveInArea, type ScopedPath } from './resolve.js';
import { walk, type WalkEntry, type WalkSkip } from './walk.js';
import { openDirExactly, viaFd } from './dirfd.js';
import { openFileStream, openFileToEnd, openForChild } from './read.js';
import { noteWritten } from './changes.js';
import { TEMP_PREFIX } from './names.js';

export interface TreeOptions {
  user: RuleSubject;
  globalRules: readonly Rule[];
  io?: WriteIo;
}

/** Virtual path of `virtual` (inside `from`) moved under `to`. */
function rebase(virtual: string, from: string, to: string): string {
  const rest = from === '/' ? virtual : virtual.slice(from.length);
  return to === '/' ? rest || '/' : to + rest;
}

/** `child` is `parent` or below it, by whole segment (virtual paths). */
export function isWithin(parent: string, child: string): boolean {
  return child === parent || parent === '/' || child.startsWith(parent + '/');
}

/**
 * Deletes a file, a link (never its target) or a folder tree. Denied descendants and escaping
 * links are left in place with the folders leading to them (S7). Returns how many were kept.
 */
export async function removeTree(target: ScopedPath, opts: TreeOptions): Promise<{ kept: number }> {
  const parents = openedParents();
  try {
    if (target.isSymlink || !target.stat?.isDirectory()) {
      const at = await parents.inside(target.entry).catch(() => {
        throw new Conflict('the item moved while it was being deleted');
      });
      await fsp.unlink(at);
      noteWritten(target.entry);
      return { kept: 0 };
    }
    try {
      return await removeFolder(target, opts, parents);
    } finally {
      noteWritten(target.entry, true);
    }
  } finally {
    await parents.close();
  }
}

/**
 * Names reached through their parent folder opened and checked to be exactly where it was
 * resolved (fs/dirfd.ts): a folder on the way swapped for a link after the walk read it cannot
 * send an unlink or rmdir out of the scope — the open folder is the one that was walked, wherever
 * its name leads now. One folder is kept open at a time (a walk removes a folder's entries
 * together).
 */
function openedParents() {
  let open: { path: string; dir: FileHandle } | null = null;
  const close = async () => {
    const was = open;
    open = null;
    await was?.dir.close();
  };
  return {
    /** A path for `entry` inside its parent opened exactly; throws when the parent moved. */
    async inside(entry: string): Promise<string> {
      const parent = path.dirname(entry);
      if (open?.path !== parent) {
        await close();
        open = { path: parent, dir: await openDirExactly(parent) };
      }
      return viaFd(open.dir, path.basename(entry));
    },
    close,
  };
}

async function removeFolder(target: ScopedPath, opts: TreeOptions, parents: ReturnType<typeof openedParents>): Promise<{ kept: number }> {
  let kept = 0;
  const onSkip = () => void kept++;
  for await (const e of walk(target, { user: opts.user, globalRules: opts.globalRules, order: 'post', onSkip })) {
    // A parent no longer where it was walked (moved, or swapped for a link): its entries stay.
    const at = await parents.inside(e.entry).catch(() => null);
    if (at === null) {
      kept++;
      continue;
    }
    if (e.isDir && !e.isSymlink) {
      await fsp.rmdir(at).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST' && err.code !== 'ENOENT' && err.code !== 'ENOTDIR') throw err;
      });
    } else {
      await fsp.unlink(at).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT' && err.code !== 'EISDIR') throw err;
      });
    }
  }
  // The folder's own parent moved, or the folder was swapped for a link or a file: nothing more
  // is removed, and the answer says so (as for a file moved away above).
  const at = await parents.inside(target.entry).catch(() => {
    throw new Conflict('the item moved while it was being deleted');
  });
  try {
    await fsp.rmdir(at);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') throw new Conflict('the item moved while it was being deleted', { cause: err });
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw err;
    kept = Math.max(kept, 1);
  }
  return { kept };
}

/**
 * S7 checks before a copy or move of a folder: every descendant's destination counterpart must
 * pass the rules (403), and for a move nothing may be skipped (a move cannot leave part behind).
 */
export async function checkTree(src: ScopedPath, dstVirtual: string, opts: TreeOptions & { move: boolean }): Promise<void> {
  // A link moves as a link (nothing below it moves); a copy of a link to a folder copies the folder.
  if (!src.stat?.isDirectory() || (opts.move && src.isSymlink)) return;
  const skipped: WalkSkip[] = [];
  const onSkip = (s: WalkSkip) => void skipped.push(s);
  for await (const e of walk(src, { user: opts.user, globalRules: opts.globalRules, onSkip, descendLinks: !opts.move })) {
    if (opts.move && skipped.length) break;
    if (isDenied(opts.user, rebase(e.virtual, src.virtual, dstVirtual), opts.globalRules)) {
      throw new Forbidden('a destination path is denied by a rule');
    }
  }
  if (opts.move && skipped.some((s) => s.reason !== 'error')) {
    throw new Forbidden('the folder holds entries that cannot be moved');
  }
  const failed = skipped.find((s) => s.reason === 'error');
  if (failed) throw failed.error;
}

/**
 * Copies the file walked or resolved, never what its name leads to now (fs/read.ts checked open),
 * read to its end like a plain stream: a file that grew since the walk's stat is copied whole.
 */
async function copyFile(src: ScopedPath | WalkEntry, dst: ScopedPath, override: boolean, io: WriteIo, owner?: object): Promise<void> {
  // Opened when the write starts reading, so that its failure (a link swapped in) reaches the write.
  const body = async function* () {
    yield* openFileToEnd(src) as AsyncIterable<Buffer>;
  };
  await writeAtomic(dst, body(), { exclusive: !override, io, owner });
}

/**
 * Copies a file or a folder tree (folders merged, files replaced only with `override`). Every
 * destination path is resolved again inside the destination's area, so a link already present
 * under the destination is never written through to the outside. A copy that fails part way takes
 * back the folders and files it created (files it replaced stay replaced, each whole).
 */
export async function copyTree(src: ScopedPath, dst: ScopedPath, opts: TreeOptions & { override: boolean; moving?: Copied[] }): Promise<void> {
  const io = opts.io ?? nodeIo;
  const area = { root: dst.root };
  const moving = opts.moving;
  if (!src.stat?.isDirectory()) {
    await copyFile(src, dst, opts.override, io);
    if (src.stat) moving?.push(copiedOf(src.entry, src.stat, false));
    return;
  }
  const created: Created = [];
  const owner = {};
  try {
    created.push(...(await makeDirs(dst.real, io, owner)));
    if (src.stat) moving?.push(copiedOf(src.entry, src.stat, false));
    let failure: unknown;
    const onSkip = (s: WalkSkip) => {
      if (s.reason === 'error') failure ??= s.error;
    };
    // A move keeps links as links, as a rename does (checkTree judged nothing below them); a copy
    // of a link to a folder copies the folder.
    for await (const e of walk(src, { user: opts.user, globalRules: opts.globalRules, descendLinks: !moving, onSkip })) {
      if (e.kind === 'other' || (e.kind === 'dangling' && !moving)) continue;
      const target = await resolveInArea(area, { path: rebase(e.virtual, src.virtual, dst.virtual), trailingSlash: false }, { forWrite: true });
      if (moving && e.isSymlink) {
        if (target.exists && target.stat?.isDirectory() && !target.isSymlink) throw new Conflict('a folder is in the way of a link');
        await copyLink(e.entry, target.entry, opts.override && target.exists);
        if (!target.exists) created.push(await createdEntry(target.entry, false, owner));
      } else if (e.isDir) {
        if (target.exists && !target.stat?.isDirectory()) throw new Conflict('a file is in the way of a folder');
        created.push(...(await makeDirs(target.real, io, owner)));
      } else {
        if (target.exists && target.stat?.isDirectory()) throw new Conflict('a folder is in the way of a file');
        await copyFile(e, target, opts.override, io, owner);
        if (!target.exists) created.push(await createdEntry(target.real, false, owner));
      }
      moving?.push(copiedOf(e.entry, e.lstat, e.isSymlink));
    }
    if (failure) throw failure;
    noteWritten(dst.real, true);
    release(created);
  } catch (err) {
    await takeBack(created);
    throw err;
  }
}

/**
 * Moves `src` (the entry itself: a link moves as a link) to `dst`. A file may replace a file
 * (`override` checked by the caller). Across filesystems: copy (links as links), then remove from
 * the source exactly what was copied (`removeCopied`): what appeared or changed there meanwhile,
 * and FIFOs and sockets (which no copy takes), stay in the source. Parent folders made for the
 * destination are removed again when the move fails.
 */
export async function moveTree(src: ScopedPath, dst: ScopedPath, opts: TreeOptions & { override: boolean }): Promise<void> {
  const io = opts.io ?? nodeIo;
  const made = await makeDirs(path.dirname(dst.entry), io);
  try {
    if (!opts.override) {
      // No replacing: a name that appeared since the checks wins.
      const taken = await fsp.lstat(dst.entry).then(
        () => true,
        () => false,
      );
      if (taken) throw new Conflict('the destination exists');
    }
    try {
      await io.rename(src.entry, dst.entry);
      noteWritten(src.entry);
      noteWritten(dst.entry, true);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'EISDIR' || code === 'ENOTDIR') {
        throw new Conflict('the destination is in the way', { cause: err });
      }
      if (code !== 'EXDEV') throw err;
      if (src.isSymlink) await moveLinkAcross(src, dst, io, opts);
      else {
        const copied: Copied[] = [];
        await copyTree(src, dst, { ...opts, override: opts.override, moving: copied });
        await removeCopied(copied);
        noteWritten(src.entry, true);
      }
    }
    release(made);
  } catch (err) {
    await takeBack(made);
    throw err;
  }
}

/** An entry a move across filesystems copied, as it was when copied: removed afterwards only if unchanged. */
export interface Copied {
  entry: string;
  dir: boolean;
  link: boolean;
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  /** Change time: no writer sets it back, as one may the modification time (a file's only). */
  ctimeMs: number;
}

export function copiedOf(entry: string, st: Stats, link: boolean): Copied {
  return { entry, dir: st.isDirectory() && !link, link, dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs };
}

/** A link's text put at `to`: created there, or (`replace`) renamed over what is there. */
async function copyLink(from: string, to: string, replace: boolean): Promise<void> {
  const text = await fsp.readlink(from);
  if (!replace) {
    await fsp.symlink(text, to).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'EEXIST') throw new Conflict('the destination is in the way', { cause: err });
      throw err;
    });
    return;
  }
  const tmp = path.join(path.dirname(to), TEMP_PREFIX + randomBytes(8).toString('hex'));
  await fsp.symlink(text, tmp);
  try {
    await fsp.rename(tmp, to);
  } catch (err) {
    await fsp.unlink(tmp).catch(() => undefined);
    throw err;
  }
}

/**
 * The second half of a move across filesystems: removes what `copyTree` copied (listed parents
 * first), last first, each through its parent opened exactly where it was (a folder on the way
 * swapped for a link removes nothing outside). A file or link goes only while it is the very entry
 * that was copied, unchanged (device, inode, size, modification and change time): one written
 * meanwhile stays. A folder goes only while it is the folder copied, and only empty: what appeared
 * in it since the copy stays, with the folders leading to it.
 * Returns how many entries stayed.
 */
export async function removeCopied(copied: readonly Copied[]): Promise<{ kept: number }> {
  const parents = openedParents();
  let kept = 0;
  /** Files a name of which this removal unlinked (that changed their change time): device:inode. */
  const unlinked = new Set<string>();
  try {
    for (let i = copied.length - 1; i >= 0; i--) {
      const c = copied[i]!;
      const at = await parents.inside(c.entry).catch(() => null);
      if (at === null) {
        kept++;
        continue;
      }
      const now = await fsp.lstat(at).catch(() => null);
      if (!now) continue;
      if (c.dir) {
        // The very folder copied (another one put at its name stays, empty or not).
        if (!now.isDirectory() || now.dev !== c.dev || now.ino !== c.ino) {
          kept++;
          continue;
        }
        await fsp.rmdir(at).catch((err: NodeJS.ErrnoException) => {
          if (err.code === 'ENOENT') return;
          if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST' && err.code !== 'ENOTDIR' && err.code !== 'EBUSY') throw err;
          kept++;
        });
        continue;
      }
      // Written again in place with its size and modification time set back (cp -p, touch -r):
      // the change time tells, unless this removal unlinked another name of the file (a hard link).
      const inode = `${c.dev}:${c.ino}`;
      const same =
        now.dev === c.dev &&
        now.ino === c.ino &&
        now.isSymbolicLink() === c.link &&
        (now.ctimeMs === c.ctimeMs || unlinked.has(inode)) &&
        (c.link || (now.size === c.size && now.mtimeMs === c.mtimeMs));
      if (!same) {
        kept++;
        continue;
      }
      await fsp.unlink(at).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
      if (now.nlink > 1) unlinked.add(inode);
    }
  } finally {
    await parents.close();
  }
  return { kept };
}

/**
 * A link moved to another filesystem stays a link, as a rename keeps it (checkTree judged nothing
 * below it): the same text at the destination, put in place by a rename of a staging name, then the
 * link itself goes. A copy would bring what it leads to, unchecked against the destination's rules.
 */
async function moveLinkAcross(src: ScopedPath, dst: ScopedPath, io: WriteIo, opts: TreeOptions): Promise<void> {
  const text = await fsp.readlink(src.entry);
  const tmp = path.join(path.dirname(dst.entry), TEMP_PREFIX + randomBytes(8).toString('hex'));
  await fsp.symlink(text, tmp);
  try {
    await io.rename(tmp, dst.entry);
  } catch (err) {
    await fsp.unlink(tmp).catch(() => undefined);
    throw err;
  }
  noteWritten(dst.entry, true);
  await removeTree(src, opts);
}

export const CHECKSUM_ALGOS = ['md5', 'sha1', 'sha256', 'sha512'] as const;
export type ChecksumAlgo = (typeof CHECKSUM_ALGOS)[number];

/** Streams the file through the hash; never holds it in memory. */
export async function checksum(file: ScopedPath, algo: ChecksumAlgo): Promise<string> {
  const hash = createHash(algo);
  // The file resolved, never what its name leads to now (fs/read.ts checked open).
  for await (const chunk of openFileToEnd(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Reads at most `max` bytes from the start of a regular file. */
export async function readHead(file: ScopedPath, max: number): Promise<Uint8Array> {
  const fh = await openForChild(file);
  try {
    const buf = Buffer.alloc(max);
    let got = 0;
    while (got < max) {
      const { bytesRead } = await fh.read(buf, got, max - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return buf.subarray(0, got);
  } finally {
    await fh.close();
  }
}

/** Reads a small text file (the caller bounds `limit`, S81); stops at `limit` bytes. */
export async function readText(file: ScopedPath, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of openFileToEnd(file, Math.max(0, limit - 1))) {
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    if (size >= limit) break;
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The file's bytes as a stream (text answers of X-Encoding): the file resolved, never what its
 * name leads to now, and the `stat.size` bytes the answer's Content-Length announced.
 */
export function openRead(file: ScopedPath): NodeJS.ReadableStream {
  return openFileStream(file);
}

/** docs/api.md §11: total and used bytes of the filesystem holding a folder (used = total − free). */
export async function diskUsage(dir: ScopedPath): Promise<{ total: number; used: number }> {
  const s = await fsp.statfs(dir.real);
  const total = s.blocks * s.bsize;
  return { total, used: Math.max(0, total - s.bfree * s.bsize) };
}

/** Permission bits of an existing file, kept when it is saved. */
/**
 * Whether a resolved entry, or a place below it (`sub`, "/a/b"), is on disk now — the entry
 * itself, not a link's target. A delete leaves what the caller's rules deny (S7).
 */
export async function stillPresent(target: Pick<ScopedPath, 'entry'>, sub = ''): Promise<boolean> {
  return fsp.lstat(target.entry + sub.split('/').join(path.sep)).then(
    () => true,
    () => false,
  );
}

export function permissionBits(file: ScopedPath): number {
  return file.stat ? file.stat.mode & 0o7777 : FILE_MODE;
}

export { DIR_MODE, FILE_MODE };
