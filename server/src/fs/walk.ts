/**
 * Recursive walk below a resolved folder, as an async iterator: depth first, names sorted, bounded
 * concurrency for the stat calls, never leaving the area. Rule-denied entries (with their subtree)
 * and escaping links are skipped (S6, S7) and reported through `onSkip`; a caller that must refuse
 * when anything was skipped (a move, S7) watches for it.
 */
import type { Stats } from 'node:fs';
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Rule } from '@coffer/protocol';
import { isTempName } from './names.js';
import { isReserved, reservedNamesIn } from './reserved.js';
import { isDenied, type RuleSubject } from './rules.js';
import { childVirtual, isInside, resolveInArea, type ScopedPath } from './resolve.js';

export type WalkKind = 'dir' | 'file' | 'other' | 'dangling';

export interface WalkEntry {
  /** Virtual path inside the area. */
  readonly virtual: string;
  readonly name: string;
  /** The directory entry on disk (the link itself for a link). */
  readonly entry: string;
  /** Fully resolved real path (equals `entry` unless `isSymlink`). */
  readonly real: string;
  /** 1 for the walked folder's children. */
  readonly depth: number;
  readonly kind: WalkKind;
  readonly isDir: boolean;
  readonly isSymlink: boolean;
  /** stat of the target (for a dangling link: the link's own lstat). */
  readonly stat: Stats;
  readonly lstat: Stats;
}

/** `reserved`: one of Coffer's own files (fs/reserved.ts) — never listed, copied, moved or deleted. */
export type SkipReason = 'denied' | 'escaping' | 'loop' | 'error' | 'reserved';

export interface WalkSkip {
  readonly virtual: string;
  readonly entry: string;
  readonly reason: SkipReason;
  readonly error?: unknown;
}

export interface WalkOptions {
  user: RuleSubject;
  globalRules: readonly Rule[];
  /** Count hideDotfiles as denied (default true; copy/move/delete walks pass false, docs/api.md §6.4). */
  hidden?: boolean;
  /** Apply rules at all (default true). */
  rules?: boolean;
  /** Parallel stat calls per folder (default 32). */
  concurrency?: number;
  /** Descend into links to folders inside the area (default false; loops are skipped). */
  descendLinks?: boolean;
  /** "pre": a folder before its contents (default); "post": after them (deletion). */
  order?: 'pre' | 'post';
  /** Deepest level yielded (default unlimited). */
  maxDepth?: number;
  signal?: AbortSignal;
  onSkip?: (skip: WalkSkip) => void;
}

type Probe = { ok: true; e: WalkEntry } | { ok: false; skip: WalkSkip } | null;

async function probe(
  dirEntry: string,
  dirVirtual: string,
  name: string,
  depth: number,
  root: string,
  opts: WalkOptions,
): Promise<Probe> {
  const virtual = childVirtual(dirVirtual, name);
  const entry = path.join(dirEntry, name);
  if ((opts.rules ?? true) && isDenied(opts.user, virtual, opts.globalRules, { hidden: opts.hidden ?? true })) {
    return { ok: false, skip: { virtual, entry, reason: 'denied' } };
  }
  let ls: Stats;
  try {
    ls = await lstat(entry);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null; // vanished meanwhile
    return { ok: false, skip: { virtual, entry, reason: 'error', error } };
  }
  if (!ls.isSymbolicLink()) {
    const kind: WalkKind = ls.isDirectory() ? 'dir' : ls.isFile() ? 'file' : 'other';
    return { ok: true, e: { virtual, name, entry, real: entry, depth, kind, isDir: kind === 'dir', isSymlink: false, stat: ls, lstat: ls } };
  }
  const link = await linkTarget(entry, root);
  if (link.escaping) {
    return { ok: false, skip: { virtual, entry, reason: link.loop ? 'loop' : link.reserved ? 'reserved' : 'escaping' } };
  }
  if (!link.stat) {
    return { ok: true, e: { virtual, name, entry, real: link.real, depth, kind: 'dangling', isDir: false, isSymlink: true, stat: ls, lstat: ls } };
  }
  const isDir = link.stat.isDirectory();
  const kind: WalkKind = isDir ? 'dir' : link.stat.isFile() ? 'file' : 'other';
  return { ok: true, e: { virtual, name, entry, real: link.real, depth, kind, isDir, isSymlink: true, stat: link.stat, lstat: ls } };
}

/**
 * Where a link found inside `root` leads: escaping when its fully resolved target (or, dangling,
 * the place it points to) is outside `root`; a loop counts as escaping, and so does a target that
 * is one of Coffer's own files or lies in one of its folders (`reserved`, fs/reserved.ts: a link
 * to the database must not bring it into an archive or a copy).
 */
export async function linkTarget(
  entry: string,
  root: string,
): Promise<{ escaping: boolean; loop?: boolean; reserved?: boolean; real: string; stat?: Stats }> {
  try {
    const real = await realpath(entry);
    if (!isInside(root, real)) return { escaping: true, real };
    if (isReserved(real)) return { escaping: true, reserved: true, real };
    return { escaping: false, real, stat: await stat(real) };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return { escaping: true, loop: true, real: entry };
    if (code !== 'ENOENT' && code !== 'ENOTDIR') return { escaping: true, real: entry };
  }
  // Dangling: judge by where it points (S5), resolving what exists of the target.
  try {
    const rel = path.relative(root, entry).split(path.sep);
    const p = await resolveInArea({ root }, { path: '/' + rel.join('/'), trailingSlash: false });
    return { escaping: false, real: p.real };
  } catch {
    return { escaping: true, real: entry };
  }
}

/**
 * Walks everything below `dir` (not `dir` itself). Entries are yielded in folder order (names
 * sorted by code unit); denied entries and escaping links are skipped with their subtree.
 */
export async function* walk(dir: ScopedPath, opts: WalkOptions): AsyncGenerator<WalkEntry> {
  const ancestors = new Set<string>([dir.real]);
  yield* visit(dir.real, dir.virtual, 1, dir.root, ancestors, opts);
}

async function* visit(
  dirReal: string,
  dirVirtual: string,
  depth: number,
  root: string,
  ancestors: Set<string>,
  opts: WalkOptions,
): AsyncGenerator<WalkEntry> {
  if (opts.maxDepth !== undefined && depth > opts.maxDepth) return;
  let names: string[];
  try {
    names = (await readdir(dirReal)).filter((n) => !isTempName(n));
  } catch (error) {
    opts.onSkip?.({ virtual: dirVirtual, entry: dirReal, reason: 'error', error });
    return;
  }
  // Reported, so that a move of a folder holding one is refused (S7 like a denied entry): the
  // server's file moved along would lie at a name that is no longer reserved.
  const reserved = reservedNamesIn(dirReal);
  if (reserved.size > 0) {
    names = names.filter((n) => {
      if (!reserved.has(n)) return true;
      opts.onSkip?.({ virtual: childVirtual(dirVirtual, n), entry: path.join(dirReal, n), reason: 'reserved' });
      return false;
    });
  }
  names.sort();
  const limit = Math.max(1, opts.concurrency ?? 32);
  const pending: Promise<Probe>[] = [];
  let next = 0;
  const fill = () => {
    while (next < names.length && pending.length < limit) {
      pending.push(probe(dirReal, dirVirtual, names[next++]!, depth, root, opts));
    }
  };
  fill();
  while (pending.length > 0) {
    if (opts.signal?.aborted) return;
    const r = await pending.shift()!;
    fill();
    if (!r) continue;
    if (!r.ok) {
      opts.onSkip?.(r.skip);
      continue;
    }
    const e = r.e;
    const descend = e.isDir && (!e.isSymlink || opts.descendLinks === true);
    if (descend && ancestors.has(e.real)) {
      opts.onSkip?.({ virtual: e.virtual, entry: e.entry, reason: 'loop' });
      continue;
    }
    if (opts.order !== 'post') yield e;
    if (descend) {
      ancestors.add(e.real);
      yield* visit(e.real, e.virtual, depth + 1, root, ancestors, opts);
      ancestors.delete(e.real);
    }
    if (opts.order === 'post') yield e;
  }
}
