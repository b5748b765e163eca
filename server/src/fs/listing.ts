/**
 * Folder listings and the metadata of one resource (docs/api.md §7.2 GET). A listing is one readdir plus
 * one lstat per entry (stat of the target for a link) and opens no file (S85); escaping links are
 * left out (S6), rule-denied and hidden entries too (S12).
 *
 * Built for 100,000-entry folders: the stats arrive as typed arrays (worker-pool.ts), the order is
 * computed on indices, and the JSON text is written directly — no object per entry. A big listing
 * leaves its garbage to one full collection soon after it (release.ts).
 */
import { lstat, stat } from 'node:fs/promises';
import path from 'node:path';
import type { FolderListing, ResourceItem, Rule, Sorting } from '@coffer/protocol';
import { extensionOf, detectType, type ResourceType } from './types.js';
import { cachedRfc3339Nano, goFileMode, isDirMode, isRegularMode, rfc3339Nano, splitNs } from './format.js';
import { isTempName } from './names.js';
import { BIG_WORK_ENTRIES, touchBigWork } from './release.js';
import { reservedNamesIn } from './reserved.js';
import { childVirtual, type ScopedPath } from './resolve.js';
import { isDenied, type RuleSubject } from './rules.js';
import { naturalOrder, orderByName, sortIndices, sortsByName, type SortSource } from './sort.js';
import { DIRENT, ENTRY, readFolder, statBatches, statNames, type StatPart } from './worker-pool.js';
import { linkTarget } from './walk.js';

/** One entry as the API reports it, and a folder's listing: packages/protocol (field order included). */
export type { FolderListing, ResourceItem };

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

/** Stats of entries with links judged: `link` marks links inside the area, `broken` dangling ones. */
interface Judged {
  raw: StatPart;
  link: Uint8Array;
  broken: Set<number>;
}

function judged(raw: StatPart): Judged {
  return { raw, link: new Uint8Array(raw.kind.length), broken: new Set() };
}

/**
 * Whether entry `i` of `j` (named `name`) is listed, by the rules every listing follows: vanished
 * entries and links leaving the area are not (S6); dangling or odd links (rare) are judged one by
 * one and listed when they stay inside (S5), with their own stats.
 */
async function judge(dir: ScopedPath, name: string, j: Judged, i: number): Promise<boolean> {
  const { raw } = j;
  const kind = raw.kind[i]!;
  if (kind === ENTRY.escaping || kind === ENTRY.gone) return false;
  if (kind === ENTRY.link) j.link[i] = 1;
  else if (kind === ENTRY.unresolved) {
    const entry = path.join(dir.real, name);
    const t = await linkTarget(entry, dir.root);
    if (t.escaping) return false;
    const st = await (t.stat ? stat(t.real, { bigint: true }) : lstat(entry, { bigint: true })).catch(() => undefined);
    if (!st) return false;
    const { sec, nsec } = splitNs(st.mtimeNs);
    raw.size[i] = Number(st.size);
    raw.sec[i] = sec;
    raw.nsec[i] = nsec;
    raw.mode[i] = Number(st.mode);
    j.link[i] = 1;
    if (!t.stat) j.broken.add(i);
  }
  return true;
}

/** Indices of the names a viewer may see: no temporary or reserved entries, hidden and denied ones left out (S12). */
function visible(dir: ScopedPath, names: readonly string[], viewer: ListingViewer, globalRules: readonly Rule[]): number[] {
  const out: number[] = [];
  const prefix = dir.virtual === '/' ? '/' : dir.virtual + '/';
  const noRules = globalRules.length === 0 && viewer.rules.length === 0;
  const reserved = reservedNamesIn(dir.real);
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    if (isTempName(name) || reserved.has(name)) continue;
    if (viewer.hideDotfiles && name.startsWith('.')) continue;
    if (!noRules && isDenied(viewer, prefix + name, globalRules)) continue;
    out.push(i);
  }
  return out;
}

interface Entries extends Judged {
  names: string[];
  /** Indices of listed entries, in listing order. */
  order: number[];
}

/**
 * Reads the whole folder, stats every entry, decides which are listed and puts them in the
 * viewer's order. What depends on names alone — the filters and a name order — is done while the
 * workers stat.
 */
async function collect(dir: ScopedPath, viewer: ListingViewer, globalRules: readonly Rule[]): Promise<Entries> {
  const { names } = await readFolder(dir.real);
  const stats = statNames(dir.real, dir.root, names);
  const candidates = visible(dir, names, viewer, globalRules);
  const byName = sortsByName(viewer.sorting);
  // A name sorting needs the natural order; the others sort stably from "disk order", which is
  // name order (docs/api.md §7.5; readdir gives no order).
  const ordered = byName ? naturalOrder(candidates, (i) => names[i]!) : codeUnitOrder(candidates, names);
  const j = judged(await stats);
  const kept: number[] = [];
  // Only links and vanished entries need judging (plain ones: no await per entry).
  for (const i of ordered) if (j.raw.kind[i] === ENTRY.plain || (await judge(dir, names[i]!, j, i))) kept.push(i);
  const { raw } = j;
  const order = byName
    ? orderByName(kept, (i) => isDirMode(raw.mode[i]!), viewer.sorting.asc)
    : sortIndices(kept, sortSource(names, raw), viewer.sorting);
  return { ...j, names, order };
}

/** Indices ordered by their names' code units (already ordered: kept as they are). */
function codeUnitOrder(indices: number[], names: readonly string[]): number[] {
  let sorted = true;
  for (let j = 1; j < indices.length && sorted; j++) if (names[indices[j - 1]!]! > names[indices[j]!]!) sorted = false;
  if (sorted) return indices;
  return indices.sort((a, b) => (names[a]! < names[b]! ? -1 : names[a]! > names[b]! ? 1 : 0));
}

function sortSource(names: readonly string[], raw: StatPart): SortSource {
  return {
    name: (i) => names[i]!,
    isDir: (i) => isDirMode(raw.mode[i]!),
    size: (i) => raw.size[i]!,
    mtime: (i) => raw.sec[i]! * 1e9 + raw.nsec[i]!,
  };
}

type Emit = (name: string, size: number, ext: string, modified: string, mode: number, isDir: boolean, isLink: boolean, type: ResourceType) => void;
type Format = ReturnType<typeof cachedRfc3339Nano>;

/** Hands the API fields of entry `i` of `j` to `emit`; returns whether it is a folder. */
function emitItem(name: string, j: Judged, i: number, fmt: Format, emit: Emit): boolean {
  const { raw } = j;
  const st = raw.mode[i]!;
  const isDir = isDirMode(st);
  const size = raw.size[i]!;
  const extension = extensionOf(name);
  // Listings type as if header reading were off and the viewer could modify (docs/api.md §7.4, S85).
  const type: ResourceType = j.broken.has(i)
    ? 'invalid_link'
    : isDir
      ? ''
      : detectType({ name, extension, size, special: !isRegularMode(st), sniff: false, canModify: true });
  emit(name, size, extension, fmt(raw.sec[i]!, raw.nsec[i]!), goFileMode(st), isDir, j.link[i] === 1, type);
  return isDir;
}

/** Room for a first piece; each next one starts with about the size of the last. */
const MIN_PIECE_BYTES = 64 * 1024;

/**
 * Writes listing items as JSON, in UTF-8, with the counts the answer ends with. Each item's text
 * goes straight into the piece's buffer: joining a piece's items into one string first cost more
 * than making them.
 */
class ItemWriter {
  numDirs = 0;
  count = 0;
  private readonly parent: string;
  private readonly fmt = cachedRfc3339Nano();
  private buf = Buffer.allocUnsafe(0);
  private used = 0;
  /** Bytes to allocate for the next piece. */
  private expect = MIN_PIECE_BYTES;
  /** Folders' recursive sizes by name (the file index), written as `folderSize` (docs/api.md §24). */
  constructor(
    dir: ScopedPath,
    private readonly sizes?: ReadonlyMap<string, number>,
  ) {
    this.parent = JSON.stringify(dir.virtual === '/' ? '/' : dir.virtual + '/').slice(0, -1); // '"/dir/' without the closing quote
  }
  private readonly emit: Emit = (name, size, ext, modified, mode, isDir, isLink, type) => {
    const qName = JSON.stringify(name);
    this.write(
      `${this.count > 0 ? ',' : ''}{"path":${this.parent}${qName.slice(1)},"name":${qName},"size":${size},"extension":${JSON.stringify(ext)},"modified":"${modified}","mode":${mode},"isDir":${isDir},"isSymlink":${isLink},"type":"${type}"${this.folderSize(name, isDir, isLink)}}`,
    );
    this.count++;
  };
  /** `,"folderSize":N` for a folder (not a link to one) the index knows; "" otherwise. */
  private folderSize(name: string, isDir: boolean, isLink: boolean): string {
    if (!this.sizes || !isDir || isLink) return '';
    const size = this.sizes.get(name);
    return size === undefined ? '' : `,"folderSize":${size}`;
  }
  private write(text: string): void {
    // At most 3 bytes of UTF-8 per UTF-16 code unit.
    const room = text.length * 3;
    if (this.used + room > this.buf.length) {
      const next = Buffer.allocUnsafe(Math.max(2 * this.buf.length, this.used + room, this.expect));
      this.buf.copy(next, 0, 0, this.used);
      this.buf = next;
    }
    this.used += this.buf.write(text, this.used);
  }
  add(name: string, j: Judged, i: number): void {
    if (emitItem(name, j, i, this.fmt, this.emit)) this.numDirs++;
  }
  /** The bytes written since the last take. */
  take(): Buffer {
    const out = this.buf.subarray(0, this.used);
    this.expect = Math.max(MIN_PIECE_BYTES, this.used + (this.used >> 3));
    this.buf = Buffer.allocUnsafe(0);
    this.used = 0;
    return out;
  }
  /**
   * The folder's own fields and its sorting, before the items: a reader of the streamed answer
   * knows the order of what it receives from the first piece on (the web client shows the first
   * rows then). Member order means nothing to JSON readers.
   */
  head(self: ResourceItem, sorting: Sorting): Buffer {
    const order = JSON.stringify({ by: sorting.by, asc: sorting.asc });
    return Buffer.from(`${JSON.stringify(self).slice(0, -1)},"sorting":${order},"items":[`, 'utf8');
  }
  tail(): Buffer {
    return Buffer.from(`],"numDirs":${this.numDirs},"numFiles":${this.count - this.numDirs}}`, 'utf8');
  }
}

/** Entries per piece of a streamed listing: ~190 bytes each of JSON. */
const PIECE_ENTRIES = 2048;

/** A listing whose stats are all in: its JSON, piece by piece. */
async function* collectedPieces(dir: ScopedPath, self: ResourceItem, e: Entries, sorting: Sorting, sizes?: ReadonlyMap<string, number>): AsyncGenerator<Buffer> {
  const out = new ItemWriter(dir, sizes);
  yield out.head(self, sorting);
  for (let from = 0; from < e.order.length; from += PIECE_ENTRIES) {
    const to = Math.min(e.order.length, from + PIECE_ENTRIES);
    for (let k = from; k < to; k++) out.add(e.names[e.order[k]!]!, e, e.order[k]!);
    yield out.take();
  }
  yield out.tail();
}

/**
 * Name order, streamed. The natural order is computed right after the readdir (names only, cheap
 * in readdir's byte order), then the stats are asked for in batches shared by the workers, in the
 * order the listing needs them (folders first by the types readdir reports): the first piece
 * needs only the first batch of files, whatever the names (`file-9` before `file-10`, `a` before
 * `B`), and each piece of the answer leaves as soon as its entries' stats are in — the reader
 * receives the listing while the rest is being statted. Links and entries of unknown type form
 * the first batch: their kind decides their group, and links leaving the area are not listed.
 */
async function namePieces(
  dir: ScopedPath,
  viewer: ListingViewer,
  globalRules: readonly Rule[],
  sizes?: ReadonlyMap<string, number>,
): Promise<{ entries: number; pieces: (self: ResourceItem) => AsyncGenerator<Buffer> }> {
  const { names, types } = await readFolder(dir.real);
  const candidates = visible(dir, names, viewer, globalRules);
  const { asc } = viewer.sorting;
  // By entry: FOLDER by readdir's type, EARLY for a link or an entry of unknown type.
  const FOLDER = 1;
  const EARLY = 2;
  const kind = new Uint8Array(names.length);
  const early: number[] = [];
  for (const i of candidates) {
    const t = types[i]!;
    if (t === DIRENT.folder) kind[i] = FOLDER;
    else if (t === DIRENT.link || t === DIRENT.unknown) {
      kind[i] = EARLY;
      early.push(i);
    }
  }
  const natural = naturalOrder(candidates, (i) => names[i]!);
  const guess = orderByName(early.length > 0 ? natural.filter((i) => kind[i] !== EARLY) : natural, (i) => kind[i] === FOLDER, asc);
  const batches: number[][] = [early];
  for (let from = 0; from < guess.length; from += PIECE_ENTRIES) batches.push(guess.slice(from, from + PIECE_ENTRIES));
  const stats = statBatches(
    dir.real,
    dir.root,
    batches.map((b) => b.map((i) => names[i]!)),
  );
  const batchOf = new Int32Array(names.length);
  const posOf = new Int32Array(names.length);
  batches.forEach((b, k) => b.forEach((i, pos) => ((batchOf[i] = k), (posOf[i] = pos))));
  const parts: Judged[] = [];
  const part = async (k: number) => (parts[k] ??= judged(await stats[k]!));

  const first = await part(0);
  let order = guess;
  if (early.length > 0) {
    // Where the early entries go, now that their kind is known.
    const dropped = new Set<number>();
    for (let pos = 0; pos < early.length; pos++) if (!(await judge(dir, names[early[pos]!]!, first, pos))) dropped.add(early[pos]!);
    const isDir = (i: number) => (kind[i] === EARLY ? isDirMode(first.raw.mode[posOf[i]!]!) : kind[i] === FOLDER);
    order = orderByName(dropped.size > 0 ? natural.filter((i) => !dropped.has(i)) : natural, isDir, asc);
  }

  return { entries: names.length, pieces };
  async function* pieces(self: ResourceItem) {
    const out = new ItemWriter(dir, sizes);
    yield out.head(self, viewer.sorting);
    for (let from = 0; from < order.length; from += PIECE_ENTRIES) {
      for (let at = from, end = Math.min(order.length, from + PIECE_ENTRIES); at < end; at++) {
        const i = order[at]!;
        const k = batchOf[i]!;
        const j = parts[k] ?? (await part(k));
        const pos = posOf[i]!;
        // Early entries were judged above; the others are judged only when they changed since the
        // readdir (a file swapped for a link, or gone).
        if (k === 0 || j.raw.kind[pos] === ENTRY.plain || (await judge(dir, names[i]!, j, pos))) out.add(names[i]!, j, pos);
      }
      yield out.take();
    }
    yield out.tail();
  }
}

/**
 * The listing as JSON, exactly as docs/api.md §7.2 shapes it: denied/hidden children and escaping links
 * dropped, broken links as `invalid_link`, sorted by the viewer's sorting. The folder is read (and
 * any error raised) before this resolves; the text then comes piece by piece, so a big answer
 * leaves while it is being made.
 */
export async function listFolderJsonPieces(
  dir: ScopedPath,
  viewer: ListingViewer,
  globalRules: readonly Rule[],
  sizes?: ReadonlyMap<string, number>,
): Promise<AsyncIterable<Buffer>> {
  if (sortsByName(viewer.sorting)) {
    const [self, { entries, pieces }] = await Promise.all([describe(dir), namePieces(dir, viewer, globalRules, sizes)]);
    return released(pieces(self), entries);
  }
  const [self, entries] = await Promise.all([describe(dir), collect(dir, viewer, globalRules)]);
  return released(collectedPieces(dir, self, entries, viewer.sorting, sizes), entries.names.length);
}

/**
 * The pieces of a listing of `entries` entries; a big one marks big work (release.ts) while it is
 * written and when it ends, however it ends.
 */
async function* released(pieces: AsyncGenerator<Buffer>, entries: number): AsyncGenerator<Buffer> {
  if (entries < BIG_WORK_ENTRIES) return yield* pieces;
  touchBigWork();
  try {
    for await (const piece of pieces) {
      yield piece;
      touchBigWork();
    }
  } finally {
    touchBigWork();
  }
}

/** The same JSON as one buffer. */
export async function listFolderJson(dir: ScopedPath, viewer: ListingViewer, globalRules: readonly Rule[]): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const piece of await listFolderJsonPieces(dir, viewer, globalRules)) parts.push(piece);
  return Buffer.concat(parts);
}

/** The same listing as objects (for callers that adapt it, e.g. public share listings). */
export async function listFolder(dir: ScopedPath, viewer: ListingViewer, globalRules: readonly Rule[]): Promise<FolderListing> {
  const [self, entries] = await Promise.all([describe(dir), collect(dir, viewer, globalRules)]);
  const items: ResourceItem[] = [];
  const fmt = cachedRfc3339Nano();
  let numDirs = 0;
  for (const i of entries.order) {
    const isDir = emitItem(entries.names[i]!, entries, i, fmt, (name, size, extension, modified, mode, isDir, isSymlink, type) => {
      items.push({ path: childVirtual(dir.virtual, name), name, size, extension, modified, mode, isDir, isSymlink, type });
    });
    if (isDir) numDirs++;
  }
  if (entries.names.length >= BIG_WORK_ENTRIES) touchBigWork();
  return { ...self, items, numDirs, numFiles: items.length - numDirs, sorting: { by: viewer.sorting.by, asc: viewer.sorting.asc } };
}
