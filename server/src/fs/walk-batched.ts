/**
 * The walk of `walk.ts` with its folder reads and lstat calls done in a worker thread, a folder
 * (or a part of WALK_PART entries) per round trip (worker-pool.ts walkFolder / walkStats), for
 * walks that visit every file of a big tree at once: archive downloads and compress jobs. On the
 * event loop one lstat per entry through libuv was the largest single cost of an archive of
 * 10,000 small files (bench/README.md, Archive, 2026-11-29).
 *
 * Same rules as `walk` with `descendLinks` and pre-order: depth first, names sorted by code unit,
 * Coffer's temporary and reserved names left out, rule-denied entries (and hidden ones unless
 * `hidden: false`) skipped with their subtree before anything of theirs is used (S6), links
 * judged on the main thread by the same `linkTarget` as `walk` (escaping links and loops skipped,
 * S7), never leaving the area. What it yields is leaner than `WalkEntry`: the numbers of the
 * stat the archive writers need, with the device and inode that a later read checks (the file
 * read must be the one walked). A folder is read by the worker through a descriptor of its own,
 * checked to be the real path walked and the folder its parent's lstat saw (device and inode): a
 * folder swapped for a link since cannot lead the walk, and then the reads, out of the area.
 */
import { constants, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Rule } from '@coffer/protocol';
import { whereIs } from './dirfd.js';
import { isTempName } from './names.js';
import { reservedNamesIn } from './reserved.js';
import { isDenied, type RuleSubject } from './rules.js';
import { childVirtual, type ScopedPath } from './resolve.js';
import { linkTarget, type WalkKind, type WalkSkip } from './walk.js';
import {
  walkFolder,
  walkStats,
  WALK_FIRST,
  WALK_PART,
  type WalkedFolder,
  type WalkStats,
} from './worker-pool.js';

/** What the walk knows of an entry's target (a link's target for a link). */
export interface LeanStat {
  /** st_mode (type and permission bits). */
  mode: number;
  size: number;
  mtime: Date;
  dev: number;
  ino: number;
}

export interface LeanEntry {
  /** Virtual path inside the area. */
  readonly virtual: string;
  /** The directory entry on disk (the link itself for a link). */
  readonly entry: string;
  /** Fully resolved real path (equals `entry` unless `isSymlink`). */
  readonly real: string;
  readonly kind: WalkKind;
  readonly isSymlink: boolean;
  readonly stat: LeanStat;
}

export interface BatchedWalkOptions {
  user: RuleSubject;
  globalRules: readonly Rule[];
  /** Count hideDotfiles as denied (default true). */
  hidden?: boolean;
  signal?: AbortSignal;
  onSkip?: (skip: WalkSkip) => void;
}

/** Parts of a big folder's stats asked for ahead of the walk. */
const PARTS_AHEAD = 2;

const TYPE_KIND: Record<number, WalkKind> = { 1: 'file', 2: 'dir', 4: 'other' };

function fromStats(s: Stats): LeanStat {
  return { mode: s.mode, size: s.size, mtime: s.mtime, dev: s.dev, ino: s.ino };
}

/**
 * Walks everything below `dir` (not `dir` itself), folders before their contents, links to
 * folders inside the area descended into (loops skipped).
 */
export async function* walkBatched(dir: ScopedPath, opts: BatchedWalkOptions): AsyncGenerator<LeanEntry> {
  const ancestors = new Set<string>([dir.real]);
  yield* visit(dir.real, dir.virtual, dir.root, ancestors, opts, dir.stat);
}

type Folder = { names: string[]; first: WalkStats };

/**
 * A folder that cannot be read (an errno code: gone, denied, changed since it was statted) is
 * skipped and reported, as walk.ts does; anything else — the walk's worker died or was stopped —
 * fails the walk, so that an archive is cut off instead of looking complete without the folder.
 */
function walkFailed(error: unknown): void {
  if (typeof (error as NodeJS.ErrnoException | undefined)?.code !== 'string') throw error;
}

/**
 * Whether the file a link leads to, as linkTarget found it (its real path inside the area, then
 * its stat), is that file at that path: opened without following a link, the same device and
 * inode, and the kernel's name for it `real`. Between linkTarget's realpath and its stat a folder
 * on the way could have been swapped for a link out: the stat then describes a file outside, and
 * the archive's read (which checks the device and inode) would accept it.
 */
async function fileStillAt(real: string, st: Stats): Promise<boolean> {
  let fh: FileHandle | undefined;
  try {
    fh = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const now = await fh.stat();
    return now.isFile() && now.dev === st.dev && now.ino === st.ino && (await whereIs(fh)) === real;
  } catch (err) {
    // Not opened (unreadable, gone): the archive's own read fails the same way and skips it.
    return (err as NodeJS.ErrnoException).code !== 'ELOOP';
  } finally {
    await fh?.close();
  }
}

/** A folder read started early; its failure is seen when it is awaited. */
function readEarly(dirReal: string, expect: WalkedFolder): Promise<Folder> {
  const p = walkFolder(dirReal, expect);
  p.catch(() => undefined);
  return p;
}

async function* visit(
  dirReal: string,
  dirVirtual: string,
  root: string,
  ancestors: Set<string>,
  opts: BatchedWalkOptions,
  /** The folder's device and inode as its parent's lstat (or the resolver) saw it: its reads check them. */
  expect: WalkedFolder | undefined,
  early?: Promise<Folder>,
): AsyncGenerator<LeanEntry> {
  let names: string[];
  let first: WalkStats;
  try {
    ({ names, first } = await (early ?? walkFolder(dirReal, expect)));
  } catch (error) {
    walkFailed(error);
    opts.onSkip?.({ virtual: dirVirtual, entry: dirReal, reason: 'error', error });
    return;
  }
  // The rest of a big folder's stats, in parts of WALK_PART names (the first part came with the
  // names), PARTS_AHEAD asked for ahead of the walk: never a whole huge folder queued at once
  // on the one worker that every download's walk shares.
  const parts: Promise<WalkStats>[] = [];
  let asked = WALK_FIRST;
  const askAhead = () => {
    while (parts.length < PARTS_AHEAD && asked < names.length) {
      const p = walkStats(dirReal, names.slice(asked, asked + WALK_PART), expect);
      p.catch(() => undefined); // awaited below, or abandoned when the walk stops
      parts.push(p);
      asked += WALK_PART;
    }
  };
  askAhead();
  const reserved = reservedNamesIn(dirReal);
  /** Why a name is left out before its stats are looked at, or null. */
  const leftOut = (name: string, virtual: string): 'temp' | 'reserved' | 'denied' | null => {
    if (isTempName(name)) return 'temp';
    if (reserved.has(name)) return 'reserved';
    if (isDenied(opts.user, virtual, opts.globalRules, { hidden: opts.hidden ?? true })) return 'denied';
    return null;
  };
  let stats = first;
  let at = 0; // index of `stats`' first entry in `names`
  // The next plain subfolder's read, started before the walk gets there (a round trip to the
  // worker per folder would otherwise be waited for in turn): one per level at most.
  let next: { index: number; p: Promise<Folder> } | undefined;
  const readNext = (from: number) => {
    next = undefined;
    for (let j = from; j < at + stats.type.length; j++) {
      if (stats.type[j - at] !== 2) continue;
      const name = names[j]!;
      if (leftOut(name, childVirtual(dirVirtual, name)) !== null) continue;
      next = {
        index: j,
        p: readEarly(path.join(dirReal, name), { dev: stats.dev[j - at]!, ino: stats.ino[j - at]! }),
      };
      return;
    }
  };
  readNext(0);
  for (let i = 0; i < names.length; i++) {
    if (opts.signal?.aborted) return;
    if (i - at >= stats.type.length) {
      at = i;
      try {
        const part = parts.shift()!;
        askAhead();
        stats = await part;
      } catch (error) {
        walkFailed(error);
        opts.onSkip?.({ virtual: dirVirtual, entry: dirReal, reason: 'error', error });
        return;
      }
      if (!next) readNext(i);
    }
    const k = i - at;
    const name = names[i]!;
    const virtual = childVirtual(dirVirtual, name);
    const entry = path.join(dirReal, name);
    const why = leftOut(name, virtual);
    if (why === 'temp') continue;
    // Reserved and denied names are reported as walk.ts does (a caller may refuse a folder holding one).
    if (why) {
      opts.onSkip?.({ virtual, entry, reason: why });
      continue;
    }
    const type = stats.type[k]!;
    if (type === 0) continue; // vanished between the folder's read and its lstat
    if (type === 5) {
      const error = Object.assign(new Error(`lstat failed: ${stats.codes[k] ?? 'EIO'}`), {
        code: stats.codes[k],
      });
      opts.onSkip?.({ virtual, entry, reason: 'error', error });
      continue;
    }
    let e: LeanEntry;
    if (type !== 3) {
      const stat: LeanStat = {
        mode: stats.mode[k]!,
        size: stats.size[k]!,
        // As Stats.mtime: the milliseconds rounded.
        mtime: new Date(Math.round(stats.mtime[k]!)),
        dev: stats.dev[k]!,
        ino: stats.ino[k]!,
      };
      e = { virtual, entry, real: entry, kind: TYPE_KIND[type] ?? 'other', isSymlink: false, stat };
    } else {
      // A link: judged here exactly as walk.ts does (links are few).
      const link = await linkTarget(entry, root);
      if (link.escaping) {
        opts.onSkip?.({
          virtual,
          entry,
          reason: link.loop ? 'loop' : link.reserved ? 'reserved' : 'escaping',
        });
        continue;
      }
      if (!link.stat) {
        // Dangling: nothing to archive; its own lstat numbers are not needed by anyone.
        e = {
          virtual,
          entry,
          real: link.real,
          kind: 'dangling',
          isSymlink: true,
          stat: {
            mode: stats.mode[k]!,
            size: 0,
            mtime: new Date(Math.round(stats.mtime[k]!)),
            dev: 0,
            ino: 0,
          },
        };
      } else {
        const kind: WalkKind = link.stat.isDirectory() ? 'dir' : link.stat.isFile() ? 'file' : 'other';
        // A folder's own read checks it (worker-pool.ts openWalked); a file is checked here.
        if (kind === 'file' && !(await fileStillAt(link.real, link.stat))) {
          opts.onSkip?.({ virtual, entry, reason: 'escaping' });
          continue;
        }
        e = { virtual, entry, real: link.real, kind, isSymlink: true, stat: fromStats(link.stat) };
      }
    }
    if (e.kind === 'dir' && ancestors.has(e.real)) {
      opts.onSkip?.({ virtual, entry, reason: 'loop' });
      continue;
    }
    yield e;
    if (e.kind === 'dir') {
      // Its read, if started early (a plain folder, not a link: the same path as e.real).
      const early = next?.index === i ? next.p : undefined;
      if (early) readNext(i + 1);
      ancestors.add(e.real);
      yield* visit(e.real, e.virtual, root, ancestors, opts, e.stat, early);
      ancestors.delete(e.real);
    }
  }
}
