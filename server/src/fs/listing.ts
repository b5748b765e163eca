/**
 * Folder listings and the metadata of one resource (api.md §8 GET). A listing is one readdir plus
 * one lstat per entry (stat of the target for a link) and opens no file (S85); escaping links are
 * left out (S6), rule-denied and hidden entries too (S12).
 *
 * Built for 100,000-entry folders: the stats arrive as typed arrays (worker-pool.ts), the order is
 * computed on indices, and the JSON text is written directly — no object per entry.
 */
import { lstat, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Rule, Sorting } from '@coffer/protocol';
import { extensionOf, detectType, type ResourceType } from './types.js';
import { cachedRfc3339Nano, goFileMode, isDirMode, isRegularMode, rfc3339Nano, splitNs } from './format.js';
import { isTempName } from './names.js';
import { reservedNamesIn } from './reserved.js';
import { childVirtual, type ScopedPath } from './resolve.js';
import { isDenied, type RuleSubject } from './rules.js';
import { naturalOrder, orderByName, sortIndices, sortsByName, type SortSource } from './sort.js';
import { ENTRY, statNames, type DirStats } from './worker-pool.js';
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

interface Entries {
  raw: DirStats;
  /** Indices of listed entries, in listing order. */
  order: number[];
  /** Entries that are links (inside the area). */
  link: Uint8Array;
  /** Broken links: `invalid_link`. */
  broken: Set<number>;
}

/**
 * Reads the folder, decides which entries are listed (rules, hidden, links) and puts them in the
 * viewer's order. What depends on names alone — the filters and a name order — is done while the
 * workers stat.
 */
async function collect(dir: ScopedPath, viewer: ListingViewer, globalRules: readonly Rule[]): Promise<Entries> {
  const names = await readdir(dir.real);
  const stats = statNames(dir.real, dir.root, names);
  const n = names.length;
  const candidates: number[] = [];
  const prefix = dir.virtual === '/' ? '/' : dir.virtual + '/';
  const noRules = globalRules.length === 0 && viewer.rules.length === 0;
  const reserved = reservedNamesIn(dir.real);
  for (let i = 0; i < n; i++) {
    const name = names[i]!;
    if (isTempName(name) || reserved.has(name)) continue;
    if (viewer.hideDotfiles && name.startsWith('.')) continue;
    if (!noRules && isDenied(viewer, prefix + name, globalRules)) continue;
    candidates.push(i);
  }
  const byName = sortsByName(viewer.sorting);
  // A name sorting needs the natural order; the others sort stably from "disk order", which is
  // name order (api.md §8; readdir gives no order).
  const ordered = byName ? naturalOrder(candidates, (i) => names[i]!) : codeUnitOrder(candidates, names);
  const raw = await stats;
  const link = new Uint8Array(n);
  const broken = new Set<number>();
  const kept: number[] = [];
  for (const i of ordered) {
    const kind = raw.kind[i]!;
    if (kind === ENTRY.escaping || kind === ENTRY.gone) continue;
    if (kind === ENTRY.link) link[i] = 1;
    else if (kind === ENTRY.unresolved) {
      // Dangling or odd links (rare): judged one by one, listed only when they stay inside (S5, S6).
      const entry = path.join(dir.real, names[i]!);
      const t = await linkTarget(entry, dir.root);
      if (t.escaping) continue;
      const st = await (t.stat ? stat(t.real, { bigint: true }) : lstat(entry, { bigint: true })).catch(() => undefined);
      if (!st) continue;
      const { sec, nsec } = splitNs(st.mtimeNs);
      raw.size[i] = Number(st.size);
      raw.sec[i] = sec;
      raw.nsec[i] = nsec;
      raw.mode[i] = Number(st.mode);
      link[i] = 1;
      if (!t.stat) broken.add(i);
    }
    kept.push(i);
  }
  const order = byName
    ? orderByName(kept, (i) => isDirMode(raw.mode[i]!), viewer.sorting.asc)
    : sortIndices(kept, sortSource(raw), viewer.sorting);
  return { raw, order, link, broken };
}

/** Indices ordered by their names' code units (already ordered: kept as they are). */
function codeUnitOrder(indices: number[], names: readonly string[]): number[] {
  let sorted = true;
  for (let j = 1; j < indices.length && sorted; j++) if (names[indices[j - 1]!]! > names[indices[j]!]!) sorted = false;
  if (sorted) return indices;
  return indices.sort((a, b) => (names[a]! < names[b]! ? -1 : names[a]! > names[b]! ? 1 : 0));
}

function sortSource(raw: DirStats): SortSource {
  return {
    name: (i) => raw.names[i]!,
    isDir: (i) => isDirMode(raw.mode[i]!),
    size: (i) => raw.size[i]!,
    mtime: (i) => raw.sec[i]! * 1e9 + raw.nsec[i]!,
  };
}

/** Walks the ordered entries, handing each one's fields to `emit`. */
function forEachItem(
  dir: ScopedPath,
  e: Entries,
  emit: (i: number, name: string, size: number, ext: string, modified: string, mode: number, isDir: boolean, isLink: boolean, type: ResourceType) => void,
): number {
  const { raw } = e;
  const fmt = cachedRfc3339Nano();
  let numDirs = 0;
  for (const i of e.order) {
    const name = raw.names[i]!;
    const st = raw.mode[i]!;
    const isDir = isDirMode(st);
    if (isDir) numDirs++;
    const size = raw.size[i]!;
    // Listings type as if header reading were off and the viewer could modify (api.md §8, S85).
    const type: ResourceType = e.broken.has(i)
      ? 'invalid_link'
      : isDir
        ? ''
        : detectType({ name, size, special: !isRegularMode(st), sniff: false, canModify: true });
    emit(i, name, size, extensionOf(name), fmt(raw.sec[i]!, raw.nsec[i]!), goFileMode(st), isDir, e.link[i] === 1, type);
  }
  return numDirs;
}

/**
 * Appends text to one growing Buffer. A listing's JSON is written here piece by piece: the
 * per-entry strings die young, and the result lives outside the JS heap (no 18 MB string to copy
 * through the young generation and then encode again).
 */
class JsonSink {
  private buf: Buffer;
  private len = 0;
  /** Text not yet encoded: pieces are gathered to about 64 KiB, joined (one flat string), then encoded in one call. */
  private pending: string[] = [];
  private pendingLength = 0;
  constructor(capacity: number) {
    this.buf = Buffer.allocUnsafe(Math.max(1024, capacity));
  }
  write(s: string): void {
    this.pending.push(s);
    this.pendingLength += s.length;
    if (this.pendingLength >= 65536) this.flush();
  }
  private flush(): void {
    const s = this.pending.join('');
    this.pending = [];
    this.pendingLength = 0;
    // UTF-8 needs at most 3 bytes per UTF-16 unit.
    if (this.len + s.length * 3 > this.buf.length) {
      const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + s.length * 3));
      this.buf.copy(next, 0, 0, this.len);
      this.buf = next;
    }
    this.len += this.buf.write(s, this.len, 'utf8');
  }
  result(): Buffer {
    this.flush();
    return this.buf.subarray(0, this.len);
  }
}

/**
 * The listing as JSON bytes, exactly as api.md §8 shapes it: denied/hidden children and escaping
 * links dropped, broken links as `invalid_link`, sorted by the viewer's sorting.
 */
export async function listFolderJson(dir: ScopedPath, viewer: ListingViewer, globalRules: readonly Rule[]): Promise<Buffer> {
  const [self, entries] = await Promise.all([describe(dir), collect(dir, viewer, globalRules)]);
  const parent = JSON.stringify(dir.virtual === '/' ? '/' : dir.virtual + '/').slice(0, -1); // '"/dir/' without the closing quote
  const out = new JsonSink(entries.order.length * (200 + 2 * parent.length) + 1024);
  out.write(JSON.stringify(self).slice(0, -1) + ',"items":[');
  let first = true;
  const numDirs = forEachItem(dir, entries, (_i, name, size, ext, modified, mode, isDir, isLink, type) => {
    const qName = JSON.stringify(name);
    out.write(
      `${first ? '' : ','}{"path":${parent}${qName.slice(1)},"name":${qName},"size":${size},"extension":${JSON.stringify(ext)},"modified":"${modified}","mode":${mode},"isDir":${isDir},"isSymlink":${isLink},"type":"${type}"}`,
    );
    first = false;
  });
  const sorting = JSON.stringify({ by: viewer.sorting.by, asc: viewer.sorting.asc });
  out.write(`],"numDirs":${numDirs},"numFiles":${entries.order.length - numDirs},"sorting":${sorting}}`);
  return out.result();
}

/** The same listing as objects (for callers that adapt it, e.g. public share listings). */
export async function listFolder(dir: ScopedPath, viewer: ListingViewer, globalRules: readonly Rule[]): Promise<FolderListing> {
  const [self, entries] = await Promise.all([describe(dir), collect(dir, viewer, globalRules)]);
  const items: ResourceItem[] = [];
  const numDirs = forEachItem(dir, entries, (_i, name, size, extension, modified, mode, isDir, isSymlink, type) => {
    items.push({ path: childVirtual(dir.virtual, name), name, size, extension, modified, mode, isDir, isSymlink, type });
  });
  return { ...self, items, numDirs, numFiles: items.length - numDirs, sorting: { by: viewer.sorting.by, asc: viewer.sorting.asc } };
}
