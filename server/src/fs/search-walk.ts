/**
 * The walk behind search (api.md §13, S6, S84): names only, depth first in sorted order, one
 * readdir per folder with the entry types it returns (no stat per entry, as `find` does), folder
 * listings read a few ahead of the walk, links never descended and reported only when their target
 * stays inside the area. It yields to the event loop regularly so that one huge folder never
 * stalls other requests, and stops as soon as `signal` fires.
 */
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { ScopedPath } from './resolve.js';
import { linkTarget } from './walk.js';

export interface SearchHit {
  /** Path relative to the searched folder, `/`-separated. */
  rel: string;
  /** Virtual path inside the area (for rule checks). */
  virtual: string;
  name: string;
  isDir: boolean;
}

interface Item {
  rel: string;
  virtual: string;
  real: string;
  name: string;
  isDir: boolean;
  /** Plain folder whose listing is to be read (links are never descended). */
  descend: boolean;
  listing?: Promise<Dirent[]>;
}

const YIELD_EVERY = 1024;

function list(real: string): Promise<Dirent[]> {
  return readdir(real, { withFileTypes: true }).catch(() => []);
}

export async function* searchWalk(dir: ScopedPath, opts: { signal: AbortSignal; readAhead?: number }): AsyncGenerator<SearchHit> {
  const ahead = Math.max(1, opts.readAhead ?? 8);
  const root = dir.root;
  const stack: Item[] = [];
  const pushChildren = async (parent: { rel: string; virtual: string; real: string }, entries: Dirent[]) => {
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const items: Item[] = [];
    for (const d of entries) {
      const rel = parent.rel ? `${parent.rel}/${d.name}` : d.name;
      const virtual = parent.virtual === '/' ? `/${d.name}` : `${parent.virtual}/${d.name}`;
      const real = path.join(parent.real, d.name);
      if (d.isSymbolicLink()) {
        const link = await linkTarget(real, root);
        if (link.escaping) continue;
        items.push({ rel, virtual, real, name: d.name, isDir: link.stat?.isDirectory() ?? false, descend: false });
        continue;
      }
      const isDir = d.isDirectory();
      items.push({ rel, virtual, real, name: d.name, isDir, descend: isDir });
    }
    for (let i = items.length - 1; i >= 0; i--) stack.push(items[i]!);
  };
  await pushChildren({ rel: '', virtual: dir.virtual, real: dir.real }, await list(dir.real));
  let count = 0;
  while (stack.length > 0) {
    if (opts.signal.aborted) return;
    // Read the next few folders' listings ahead (the top of the stack is visited first).
    for (let i = stack.length - 1, started = 0; i >= 0 && started < ahead; i--) {
      const it = stack[i]!;
      if (!it.descend) continue;
      it.listing ??= list(it.real);
      started++;
    }
    const it = stack.pop()!;
    yield { rel: it.rel, virtual: it.virtual, name: it.name, isDir: it.isDir };
    if (it.descend) await pushChildren(it, await (it.listing ?? list(it.real)));
    if (++count % YIELD_EVERY === 0) await new Promise((r) => setImmediate(r));
  }
}
