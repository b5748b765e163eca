/**
 * The file index's view of the disk (features/index): a folder's entries with the fields the
 * index keeps (type, size, modification time, inode) from one lstat each, the same entries a
 * search walk sees — staging files (names.ts) and Coffer's own files (reserved.ts) left out, links
 * reported as links and never followed. Paths here are real paths below the server root; the
 * index never takes a path from a request.
 */
import { constants, type Stats } from 'node:fs';
import { lstat, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { isTempName } from './names.js';
import { isReserved, reservedNamesIn } from './reserved.js';
import { lstatNames } from './worker-pool.js';

const { S_IFMT, S_IFLNK, S_IFDIR } = constants;

export interface ScanEntry {
  name: string;
  isDir: boolean;
  isLink: boolean;
  /** Bytes (lstat: a link's own size). */
  size: number;
  /** Unix milliseconds, whole. */
  mtime: number;
  inode: number;
}

function entryOf(name: string, st: Stats): ScanEntry {
  const isLink = st.isSymbolicLink();
  return { name, isDir: !isLink && st.isDirectory(), isLink, size: st.size, mtime: Math.floor(st.mtimeMs), inode: st.ino };
}

/** One entry by its real path; null when it is gone (or cannot be read). */
export async function scanEntry(real: string): Promise<ScanEntry | null> {
  const st = await lstat(real).catch(() => null);
  return st ? entryOf(path.basename(real), st) : null;
}

/**
 * The entries of the real folder `dir`, each with one lstat (in the index's worker, fs/worker-pool.ts:
 * a folder's stats are one message to the event loop, not a callback per entry); null when `dir`
 * is not a readable folder. Entries that vanish between the readdir and their lstat are left out.
 */
export async function scanFolder(dir: string): Promise<ScanEntry[] | null> {
  const names = await readdir(dir).catch(() => null);
  if (!names) return null;
  const reserved = reservedNamesIn(dir);
  const wanted = names.filter((n) => !isTempName(n) && !reserved.has(n));
  if (wanted.length === 0) return [];
  const st = await lstatNames(dir, wanted).catch(() => null);
  // A worker that died meanwhile (it is replaced at the next call): this folder's stats on libuv's pool.
  if (!st) return lstatHere(dir, wanted);
  const out: ScanEntry[] = [];
  for (let i = 0; i < wanted.length; i++) {
    if (!st.ok[i]) continue;
    const type = st.mode[i]! & S_IFMT;
    const isLink = type === S_IFLNK;
    out.push({ name: wanted[i]!, isDir: type === S_IFDIR, isLink, size: st.size[i]!, mtime: st.mtime[i]!, inode: st.ino[i]! });
  }
  return out;
}

/** lstat calls in flight per folder in `lstatHere`. */
const STAT_CONCURRENCY = 32;

/** `scanFolder`'s stats through libuv's pool, a callback each. */
async function lstatHere(dir: string, names: string[]): Promise<ScanEntry[]> {
  const out: ScanEntry[] = [];
  for (let i = 0; i < names.length; i += STAT_CONCURRENCY) {
    const part = names.slice(i, i + STAT_CONCURRENCY);
    const stats = await Promise.all(part.map((n) => lstat(path.join(dir, n)).catch(() => null)));
    stats.forEach((st, k) => {
      if (st) out.push(entryOf(part[k]!, st));
    });
  }
  return out;
}

/**
 * Whether a real path below `root` may be in the index: none of its names below the root is a
 * staging name, and it is not (inside) one of Coffer's own files.
 */
export function indexable(root: string, real: string): boolean {
  if (isReserved(real)) return false;
  const rel = path.relative(root, real);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return false;
  return rel === '' || !rel.split(path.sep).some(isTempName);
}

/** The root's real path (links resolved), or null when it does not exist. */
export function realRoot(root: string): Promise<string | null> {
  return realpath(root).catch(() => null);
}
