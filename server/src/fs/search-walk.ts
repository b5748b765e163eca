/**
 * The walk behind search (docs/api.md §12, S6, S84): names only, depth first in sorted order, one
 * readdir per folder with the entry types it returns (no stat per entry, as `find` does), folder
 * listings read a few ahead of the walk, links never descended and reported only when their target
 * stays inside the area. Entries come in batches (paths are built only for the ones the caller
 * keeps); between batches the walk yields to the event loop regularly, so that one huge folder
 * never stalls other requests, and it stops as soon as `signal` fires.
 */
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import type { ScopedPath } from './resolve.js';
import { linkTarget } from './walk.js';
import { reservedNamesIn } from './reserved.js';
import { isTempName } from './names.js';

export interface SearchFolder {
  /** Relative to the searched folder ('' for the folder itself). */
  readonly rel: string;
  /** Virtual path inside the area. */
  readonly virtual: string;
  readonly real: string;
}

export interface SearchHit {
  readonly name: string;
  readonly isDir: boolean;
  readonly parent: SearchFolder;
}

interface Item extends SearchHit {
  /** A plain folder whose listing is to be read (links are never descended). */
  descend: boolean;
  listing?: Promise<Dirent[]>;
}

/** Path of a hit relative to the searched folder. */
export function hitRel(h: SearchHit): string {
  return h.parent.rel ? `${h.parent.rel}/${h.name}` : h.name;
}

/** Virtual path of a hit (for rule checks). */
export function hitVirtual(h: SearchHit): string {
  return h.parent.virtual === '/' ? `/${h.name}` : `${h.parent.virtual}/${h.name}`;
}

const BATCH = 512;
const YIELD_EVERY_MS = 20;

async function list(real: string): Promise<Dirent[]> {
  const entries = await readdir(real, { withFileTypes: true }).catch(() => []);
  const reserved = reservedNamesIn(real);
  return entries.filter((d) => !isTempName(d.name) && !reserved.has(d.name));
}

function byName(a: Dirent, b: Dirent): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

export async function* searchWalk(
  dir: ScopedPath,
  opts: { signal: AbortSignal; readAhead?: number },
): AsyncGenerator<SearchHit[]> {
  const ahead = Math.max(1, opts.readAhead ?? 8);
  const root = dir.root;
  const stack: Item[] = [];
  const pushChildren = async (parent: SearchFolder, entries: Dirent[]) => {
    entries.sort(byName);
    const items: Item[] = [];
    for (const d of entries) {
      if (d.isSymbolicLink()) {
        const link = await linkTarget(`${parent.real}/${d.name}`, root);
        if (link.escaping) continue;
        items.push({ name: d.name, isDir: link.stat?.isDirectory() ?? false, parent, descend: false });
        continue;
      }
      const isDir = d.isDirectory();
      items.push({ name: d.name, isDir, parent, descend: isDir });
    }
    for (let i = items.length - 1; i >= 0; i--) stack.push(items[i]!);
  };
  await pushChildren({ rel: '', virtual: dir.virtual, real: dir.real }, await list(dir.real));
  let lastYield = Date.now();
  let batch: SearchHit[] = [];
  while (stack.length > 0) {
    if (opts.signal.aborted) return;
    const it = stack.pop()!;
    batch.push(it);
    if (it.descend) {
      // Read the next few folders' listings ahead (the top of the stack is visited first).
      for (let i = stack.length - 1, started = 0; i >= 0 && started < ahead; i--) {
        const next = stack[i]!;
        if (!next.descend) continue;
        next.listing ??= list(`${next.parent.real}/${next.name}`);
        started++;
      }
      const folder: SearchFolder = {
        rel: hitRel(it),
        virtual: hitVirtual(it),
        real: `${it.parent.real}/${it.name}`,
      };
      const listing = it.listing ?? list(folder.real);
      it.listing = undefined;
      if (batch.length) {
        yield batch;
        batch = [];
      }
      await pushChildren(folder, await listing);
    } else if (batch.length >= BATCH) {
      yield batch;
      batch = [];
    }
    if (Date.now() - lastYield >= YIELD_EVERY_MS) {
      await new Promise((r) => setImmediate(r));
      lastYield = Date.now();
    }
  }
  if (batch.length && !opts.signal.aborted) yield batch;
}
