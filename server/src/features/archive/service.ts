/**
 * Archive downloads (docs/api.md §8, S55–S57): the selection is resolved and checked before anything
 * is sent; entries come from the walker (rules, hidden files and escaping links left out, S56);
 * small files are read ahead in batches by two worker threads (for ZIP deflated there too, so the
 * event loop only writes), large ones streamed; the container and the codec stream with backpressure, and everything stops when the client goes away.
 */
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable, Transform, type Writable } from 'node:stream';
import { constants } from 'node:zlib';
import type { FastifyBaseLogger } from 'fastify';
import type { Rule } from '@coffer/protocol';
import { canonicalPath, joinVirtual, percentDecode } from '../../fs/canonical.js';
import { openExact, type FileChunks } from '../../fs/read.js';
import { readBatch } from '../../fs/worker-pool.js';
import type { ResolveUser, ScopedPath } from '../../fs/resolve.js';
import type { FileService } from '../../fs/service.js';
import type { WalkSkip } from '../../fs/walk.js';
import { walkBatched, type LeanEntry } from '../../fs/walk-batched.js';
import { NotFound } from '../../http/errors.js';
import { Coalesce, createCodec } from './codecs.js';
import type { ArchiveEntry } from './entry.js';
import type { ArchiveFormat } from './formats.js';
import { archiveName, commonBase, entryName, safeSegment, topLevelOnly } from './names.js';
import { tarStream } from './tar.js';
import { COMPRESSED_EXT, zipStream } from './zip.js';

/** Files up to this size are read whole, ahead of the writer. */
const SMALL_FILE = 256 * 1024;
/** Read-ahead bounds: entries and bytes. */
const AHEAD_ENTRIES = 512;
const AHEAD_BYTES = 8 * 1024 * 1024;
/** Small files per worker round trip, and their bytes. */
const BATCH_FILES = 64;
const BATCH_BYTES = 1024 * 1024;

/** Counters for tests and metrics: archives being built now. */
export const archiveActivity = { active: 0, started: 0 };

export interface ArchivePlan {
  /** Selected items (top-level only), resolved and checked. */
  items: ScopedPath[];
  /** Common base of the items: entry names are relative to it. */
  base: string;
  /** The file name for Content-Disposition. */
  name: string;
}

/**
 * Resolves `{folder}` plus an optional `files=` list into a plan. Every item is decoded once more,
 * canonicalised (S1), joined under the folder and resolved with rules and links checked: a
 * missing, denied or escaping item answers 404/403 here, before any byte (S57).
 */
export async function planArchive(
  files: FileService,
  user: ResolveUser,
  folder: ScopedPath,
  filesParam: string | undefined,
  format: ArchiveFormat,
): Promise<ArchivePlan> {
  const globalRules = await files.globalRules();
  let items: ScopedPath[] = [];
  const list = (filesParam ?? '').split(',').filter((s) => s !== '');
  if (list.length === 0) {
    if (!folder.stat?.isDirectory()) throw new NotFound();
    items = [folder];
  } else {
    for (const raw of list) {
      const canon = canonicalPath(percentDecode(raw));
      const virtual = joinVirtual(folder.virtual, canon.path);
      items.push(
        await files.resolve(user, { path: virtual, trailingSlash: false }, { globalRules, mustExist: true }),
      );
    }
  }
  const top = new Set(topLevelOnly(items.map((i) => i.virtual)));
  const seen = new Set<string>();
  items = items.filter((i) => top.has(i.virtual) && !seen.has(i.virtual) && seen.add(i.virtual));
  const base = commonBase(items.map((i) => i.virtual));
  const name = archiveName({
    base,
    requested: folder.virtual,
    scopeName: path.basename(folder.root) || 'files',
    items: items.length,
    extension: format.extension,
  });
  return { items, base, name };
}

interface PlannedEntry {
  name: string;
  isDir: boolean;
  mode: number;
  mtime: Date;
  size: number;
  /** Where the content is, and the device and inode its read must find there. */
  src: { real: string; stat: { dev: number; ino: number } };
}

function planned(name: string, src: ScopedPath | LeanEntry, isDir: boolean): PlannedEntry {
  const st = src.stat!;
  return {
    name,
    isDir,
    mode: st.mode & 0o7777,
    mtime: st.mtime,
    size: isDir ? 0 : st.size,
    src: { real: src.real, stat: st },
  };
}

/** Every entry of the plan, in walk order; folders before their contents. */
async function* plannedEntries(
  plan: ArchivePlan,
  ctx: {
    user: ResolveUser;
    globalRules: readonly Rule[];
    signal: AbortSignal;
    onSkip: (s: WalkSkip) => void;
  },
): AsyncGenerator<PlannedEntry> {
  for (const item of plan.items) {
    const st = item.stat;
    if (!st) continue;
    const name = entryName(plan.base, item.virtual);
    if (st.isFile()) {
      // One selected file is its own base: it goes at the archive's root (S57).
      yield planned(name || safeSegment(path.posix.basename(item.virtual)), item, false);
      continue;
    }
    if (!st.isDirectory()) continue;
    if (name) yield planned(name, item, true);
    // The walk's folder reads and lstat calls are done in a worker (fs/walk-batched.ts), with
    // the same rules as fs/walk.ts: denied, hidden and reserved names, escaping links and loops
    // are left out (S56).
    const entries = walkBatched(item, {
      user: ctx.user,
      globalRules: ctx.globalRules,
      hidden: true,
      signal: ctx.signal,
      onSkip: ctx.onSkip,
    });
    for await (const e of entries) {
      if (ctx.signal.aborted) return;
      if (e.kind === 'dir') yield planned(entryName(plan.base, e.virtual), e, true);
      else if (e.kind === 'file') yield planned(entryName(plan.base, e.virtual), e, false);
    }
  }
}

/** A read-ahead file: its content (bytes, or ZIP's body), or null when it was skipped. */
type Slot = { e: PlannedEntry; data?: Promise<Pick<ArchiveEntry, 'data' | 'zip' | 'size'> | null> };

/**
 * Reads small files ahead in batches (fs/worker-pool.ts readBatch: two workers read, and for ZIP
 * deflate, while the main thread writes; at most AHEAD_ENTRIES / AHEAD_BYTES in flight) and opens
 * large ones just before the writer needs them. A file that vanished, changed or cannot be read
 * before its first byte is written is skipped (logged); one that fails later fails the archive.
 */
async function* withContents(
  source: AsyncGenerator<PlannedEntry>,
  log: FastifyBaseLogger,
  container: ArchiveFormat['container'],
): AsyncGenerator<ArchiveEntry> {
  const queue: Slot[] = [];
  let done = false;
  let aheadBytes = 0;
  let current: FileChunks | undefined;
  const skip = (e: PlannedEntry, code: string | undefined) => {
    log.warn({ entry: e.name, code }, 'archive entry skipped: unreadable');
    return null;
  };
  const zipLevel = container === 'zip' ? constants.Z_DEFAULT_COMPRESSION : null;
  let batch: Slot[] = [];
  let batchBytes = 0;
  const dispatch = () => {
    if (batch.length === 0) return;
    const slots = batch;
    batch = [];
    batchBytes = 0;
    const files = slots.map(({ e }) => ({
      real: e.src.real,
      size: e.size,
      dev: e.src.stat.dev,
      ino: e.src.stat.ino,
      deflate: !COMPRESSED_EXT.test(e.name),
    }));
    const results = readBatch(files, zipLevel);
    slots.forEach((slot, i) => {
      slot.data = results.then(
        (r) => {
          const one = r[i]!;
          if ('changed' in one) return skip(slot.e, 'changed');
          if ('code' in one) return skip(slot.e, one.code);
          return zipLevel === null
            ? { data: one.body, size: one.size }
            : { zip: { body: one.body, deflated: one.deflated, crc: one.crc }, size: one.size };
        },
        (err: unknown) => skip(slot.e, (err as NodeJS.ErrnoException).code),
      );
    });
  };
  const fill = async () => {
    while (!done && queue.length < AHEAD_ENTRIES && aheadBytes < AHEAD_BYTES) {
      const r = await source.next();
      if (r.done) {
        done = true;
        break;
      }
      const e = r.value;
      const slot: Slot = { e };
      queue.push(slot);
      if (!e.isDir && e.size <= SMALL_FILE) {
        aheadBytes += e.size;
        batch.push(slot);
        batchBytes += e.size;
        if (batch.length >= BATCH_FILES || batchBytes >= BATCH_BYTES) dispatch();
      }
    }
    // A partial batch goes when the writer is about to need it, or at the end.
    if (done || (batch.length > 0 && queue.indexOf(batch[0]!) < BATCH_FILES)) dispatch();
  };
  try {
    for (;;) {
      await fill();
      const slot = queue.shift();
      if (!slot) break;
      const e = slot.e;
      // Entries are built as whole literals: object spread and rest per entry were a visible cost.
      if (e.isDir) {
        yield { name: e.name, isDir: true, mode: e.mode, mtime: e.mtime, size: 0 };
      } else if (slot.data) {
        const content = await slot.data;
        aheadBytes -= e.size;
        if (content)
          yield {
            name: e.name,
            isDir: false,
            mode: e.mode,
            mtime: e.mtime,
            size: content.size,
            data: content.data,
            zip: content.zip,
          };
      } else {
        try {
          current = await openExact(slot.e.src, slot.e.size);
        } catch (err) {
          skip(slot.e, (err as NodeJS.ErrnoException).code);
          continue;
        }
        yield { name: e.name, isDir: false, mode: e.mode, mtime: e.mtime, size: e.size, stream: current };
        await current.close();
        current = undefined;
      }
    }
  } finally {
    await current?.close();
    await source.return(undefined);
    // Read-ahead still in flight settles on its own; nothing waits for it.
  }
}

async function* counted(
  source: AsyncGenerator<ArchiveEntry>,
  onEntry: (size: number) => void,
): AsyncGenerator<ArchiveEntry> {
  for await (const e of source) {
    onEntry(e.size);
    yield e;
  }
}

/**
 * The total of a compress job's progress (see streamArchive's onProgress), by the same walk as the
 * archive (rules, links, hidden Coffer files): for a tar, its uncompressed size — a 512-byte header
 * and the data rounded up to 512 bytes per entry, and the two closing blocks (long names add
 * headers: the caller clamps); for a zip, the bytes of its files. One walk more before the job
 * starts writing.
 */
export async function measurePlan(
  plan: ArchivePlan,
  container: ArchiveFormat['container'],
  ctx: { user: ResolveUser; globalRules: readonly Rule[]; signal: AbortSignal },
): Promise<number> {
  let total = container === 'tar' ? 1024 : 0;
  for await (const e of plannedEntries(plan, { ...ctx, onSkip: () => undefined })) {
    total += container === 'tar' ? 512 + Math.ceil(e.size / 512) * 512 : e.size;
  }
  return total;
}

/**
 * Streams the archive of `plan` into `out`. Resolves when the archive is complete; rejects when
 * it could not be finished (the caller then cuts the connection so that a truncated archive
 * never looks complete) or when `signal` fired (the client went away).
 */
export async function streamArchive(
  plan: ArchivePlan,
  format: ArchiveFormat,
  out: Writable,
  ctx: {
    user: ResolveUser;
    globalRules: readonly Rule[];
    signal: AbortSignal;
    log: FastifyBaseLogger;
    /**
     * Progress of a compress job, in the units of measurePlan: a tar's bytes as they leave the tar
     * writer (before its codec), a zip's entry sizes as the writer takes them.
     */
    onProgress?: (n: number) => void;
  },
): Promise<void> {
  archiveActivity.active++;
  archiveActivity.started++;
  try {
    const onSkip = (s: WalkSkip) =>
      ctx.log.debug({ entry: s.virtual, reason: s.reason }, 'archive entry left out');
    const read = withContents(plannedEntries(plan, { ...ctx, onSkip }), ctx.log, format.container);
    const entries = ctx.onProgress && format.container === 'zip' ? counted(read, ctx.onProgress) : read;
    const body =
      format.container === 'zip' ? Readable.from(zipStream(entries)) : Readable.from(tarStream(entries));
    const codec = createCodec(format.codec);
    const onBytes = format.container === 'tar' ? ctx.onProgress : undefined;
    const meter = onBytes
      ? new Transform({
          transform(chunk: Buffer, _enc, cb) {
            onBytes(chunk.length);
            cb(null, chunk);
          },
        })
      : undefined;
    const stages = [body, new Coalesce(), ...(meter ? [meter] : []), ...(codec ? [codec] : []), out] as const;
    await pipeline(stages as unknown as [Readable, Writable], { signal: ctx.signal });
  } finally {
    archiveActivity.active--;
  }
}
