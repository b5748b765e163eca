/**
 * The children of a resolved folder with their stats, for WebDAV's PROPFIND Depth 1 (issue 19,
 * docs/api.md §21): what walk.ts gives at depth 1, the way listings get it (listing.ts) — one readdir
 * and one lstat per entry, both in the worker threads of worker-pool.ts, because a libuv round
 * trip per lstat costs more than the system call (a 100,000-entry folder: ~10 s of the main
 * thread's time under load against a fraction of that). Per entry, as walk.ts: staging and
 * reserved names never appear, the rules and hideDotfiles leave denied entries out (S12), links
 * leaving the area (S6), dangling or unreadable links and entries gone meanwhile are left out; a
 * link inside the area is described by its target. Names come in code-unit order, a batch at a
 * time as the workers stat them, so the answer leaves while the rest is being statted.
 */
import type { Rule } from '@coffer/protocol';
import { isDirMode } from './format.js';
import { isTempName } from './names.js';
import { BIG_WORK_ENTRIES, touchBigWork } from './release.js';
import { reservedNamesIn } from './reserved.js';
import type { ScopedPath } from './resolve.js';
import { isDenied, type RuleSubject } from './rules.js';
import { ENTRY, readFolder, statBatches } from './worker-pool.js';

export interface ChildEntry {
  readonly name: string;
  readonly isDir: boolean;
  /** A link inside the area (the other fields describe its target). */
  readonly isLink: boolean;
  readonly size: number;
  readonly mtimeMs: number;
  /** Birth time, or change time where the file system has none (as `Stats`). */
  readonly createdMs: number;
}

/** Names per batch of stats (and per yielded batch). */
const BATCH = 2048;

/**
 * Reads the folder now (so an unreadable one is known before anything is answered; it rejects
 * with the errno code) and returns its visible children as batches.
 */
export async function folderChildren(
  dir: ScopedPath,
  viewer: RuleSubject,
  globalRules: readonly Rule[],
  signal?: AbortSignal,
): Promise<AsyncGenerator<ChildEntry[]>> {
  const { names } = await readFolder(dir.real);
  const prefix = dir.virtual === '/' ? '/' : dir.virtual + '/';
  const reserved = reservedNamesIn(dir.real);
  const visible: string[] = [];
  for (const name of names) {
    if (isTempName(name) || reserved.has(name)) continue;
    if (isDenied(viewer, prefix + name, globalRules)) continue;
    visible.push(name);
  }
  const batches: string[][] = [];
  for (let from = 0; from < visible.length; from += BATCH) batches.push(visible.slice(from, from + BATCH));
  const big = names.length >= BIG_WORK_ENTRIES;
  if (big) touchBigWork();
  const stats = statBatches(dir.real, dir.root, batches);
  return (async function* () {
    try {
      for (let k = 0; k < batches.length; k++) {
        if (signal?.aborted) return;
        const part = await stats[k]!;
        const list = batches[k]!;
        const out: ChildEntry[] = [];
        for (let i = 0; i < list.length; i++) {
          const kind = part.kind[i];
          if (kind !== ENTRY.plain && kind !== ENTRY.link) continue;
          out.push({
            name: list[i]!,
            isDir: isDirMode(part.mode[i]!),
            isLink: kind === ENTRY.link,
            size: part.size[i]!,
            mtimeMs: part.sec[i]! * 1e3 + part.nsec[i]! / 1e6,
            createdMs: part.created[i]!,
          });
        }
        if (big) touchBigWork();
        yield out;
      }
    } finally {
      if (big) touchBigWork();
    }
  })();
}

