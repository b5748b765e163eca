/**
 * Folder listings and the metadata of one resource (api.md §8 GET). A listing is one readdir plus
 * one lstat per entry (stat of the target for a link) and opens no file (S85); escaping links are
 * left out (S6), rule-denied and hidden entries too (S12).
 */
import { lstat, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Rule, Sorting } from '@coffer/protocol';
import { extensionOf, detectType, type ResourceType } from './types.js';
import { goFileMode, isDirMode, isRegularMode, rfc3339Nano, splitNs } from './format.js';
import { isTempName } from './names.js';
import { childVirtual, type ScopedPath } from './resolve.js';
import { isDenied, type RuleSubject } from './rules.js';
import { sortItems } from './sort.js';
import { ENTRY, statDirectory } from './stat-pool.js';
import { linkTarget } from './walk.js';

/** One entry as the API reports it; field order as File Browser emits it. */
export interface ResourceItem {
  path: string;
  name: string;
  size: number;
  extension: string;
  modified: string;
  mode: number;
  isDir: boolean;
  isSymlink: boolean;
  type: ResourceType;
}

export interface FolderListing extends ResourceItem {
  items: ResourceItem[];
  numDirs: number;
  numFiles: number;
  sorting: Sorting;
}

export interface ListingViewer extends RuleSubject {
  sorting: Sorting;
}

interface Row {
  item: ResourceItem;
  name: string;
  isDir: boolean;
  size: number;
  mtime: number;
}

function item(virtual: string, name: string, size: number, sec: number, nsec: number, stMode: number, isSymlink: boolean, type?: ResourceType): ResourceItem {
  const isDir = isDirMode(stMode);
  return {
    path: virtual,
    name,
    size,
    extension: extensionOf(name),
    modified: rfc3339Nano(sec, nsec),
    mode: goFileMode(stMode),
    isDir,
    isSymlink,
    // Listings type as if header reading were off and the viewer could modify (api.md §8, S85).
    type: type ?? (isDir ? '' : detectType({ name, size, special: !isRegularMode(stMode), sniff: false, canModify: true })),
  };
}

/** The base fields of a resolved, existing resource (the folder or file itself). */
export async function describe(p: ScopedPath): Promise<ResourceItem> {
  const st = await stat(p.real, { bigint: true });
  const { sec, nsec } = splitNs(st.mtimeNs);
  const name = p.virtual === '/' ? '' : path.posix.basename(p.virtual);
  const mode = Number(st.mode);
  return {
    path: p.virtual,
    name,
    size: Number(st.size),
    extension: extensionOf(name),
    modified: rfc3339Nano(sec, nsec),
    mode: goFileMode(mode),
    isDir: isDirMode(mode),
    isSymlink: p.isSymlink,
    type: isDirMode(mode) ? '' : 'blob',
  };
}

/**
 * Lists a resolved folder for a viewer: denied/hidden children and escaping links dropped, broken
 * links listed as `invalid_link`, sorted by the viewer's sorting.
 */
export async function listFolder(dir: ScopedPath, viewer: ListingViewer, globalRules: readonly Rule[]): Promise<FolderListing> {
  const [self, raw] = await Promise.all([describe(dir), statDirectory(dir.real, dir.root)]);
  const rows: Row[] = [];
  const n = raw.names.length;
  const unresolved: number[] = [];
  for (let i = 0; i < n; i++) {
    const kind = raw.kind[i]!;
    if (kind === ENTRY.escaping || kind === ENTRY.gone) continue;
    const name = raw.names[i]!;
    if (isTempName(name)) continue;
    const virtual = childVirtual(dir.virtual, name);
    if (isDenied(viewer, virtual, globalRules)) continue;
    if (kind === ENTRY.unresolved) {
      unresolved.push(i);
      continue;
    }
    const it = item(virtual, name, raw.size[i]!, raw.sec[i]!, raw.nsec[i]!, raw.mode[i]!, kind === ENTRY.link);
    rows.push({ item: it, name, isDir: it.isDir, size: it.size, mtime: raw.sec[i]! * 1e9 + raw.nsec[i]! });
  }
  // Dangling or odd links (rare): judged one by one, listed only when they stay inside (S5, S6).
  for (const i of unresolved) {
    const name = raw.names[i]!;
    const entry = path.join(dir.real, name);
    const link = await linkTarget(entry, dir.root);
    if (link.escaping) continue;
    const virtual = childVirtual(dir.virtual, name);
    let it: ResourceItem;
    if (link.stat) {
      const st = await stat(link.real, { bigint: true }).catch(() => undefined);
      if (!st) continue;
      const t = splitNs(st.mtimeNs);
      it = item(virtual, name, Number(st.size), t.sec, t.nsec, Number(st.mode), true);
    } else {
      const ls = await lstat(entry, { bigint: true }).catch(() => undefined);
      if (!ls) continue;
      const t = splitNs(ls.mtimeNs);
      it = item(virtual, name, Number(ls.size), t.sec, t.nsec, Number(ls.mode), true, 'invalid_link');
    }
    rows.push({ item: it, name, isDir: it.isDir, size: it.size, mtime: raw.sec[i]! * 1e9 + raw.nsec[i]! });
  }
  if (unresolved.length) rows.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  else if (!isSortedByName(rows)) rows.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  sortItems(rows, viewer.sorting);
  let numDirs = 0;
  const items = rows.map((r) => {
    if (r.isDir) numDirs++;
    return r.item;
  });
  return { ...self, items, numDirs, numFiles: items.length - numDirs, sorting: { by: viewer.sorting.by, asc: viewer.sorting.asc } };
}

function isSortedByName(rows: Row[]): boolean {
  for (let i = 1; i < rows.length; i++) if (rows[i - 1]!.name > rows[i]!.name) return false;
  return true;
}
