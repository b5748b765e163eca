/**
 * Extracting an archive as a job (docs/api.md §18 E11). The archive's entries are written into a
 * staging folder inside the destination (fs/extract.ts), under limits on their count, their total
 * size and their compression ratio; only when the whole archive has been read are they moved into
 * place under the conflict policy (fs/extract.ts place: the user's rules, no link followed). A failure or a
 * cancel before that removes the staging folder: nothing half-written is left.
 *
 * Entry names that could land outside the destination (absolute, `..`, backslashes, control
 * characters) refuse the whole archive. Symbolic links, hard links, devices and FIFOs are never
 * created: they are left out and listed in the result's `skipped`.
 */
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { JobResult } from '@coffer/protocol';
import tarStream from 'tar-stream';
import yauzl from 'yauzl';
import { BadRequest, InsufficientStorage, isErrno } from '../../http/errors.js';
import { entrySegments, openArchive, openArchiveReader, openStaging, place, SkipList, SMALL_BATCH_MAX, type ArchiveReader, type ConflictPolicy, type PlaceOptions, type SmallFile, type Staging } from '../../fs/extract.js';
import type { ScopedPath } from '../../fs/resolve.js';
import type { ArchiveFormat, Codec } from '../archive/formats.js';
import type { JobContext } from '../jobs/service.js';
import type { QuotaMeter } from '../quota/service.js';
import { numberedName } from '../resources/service.js';
import { createDecompressor, XZ_MEMLIMIT } from './decompress.js';

export interface ExtractLimits {
  /** Bytes the entries may hold in all. */
  maxSize: number;
  /** Entries (files, folders, links) in the archive. */
  maxEntries: number;
  /** Uncompressed ÷ compressed bytes, checked once more than RATIO_FLOOR bytes came out. */
  maxRatio: number;
}

/** Below this many bytes out, no ratio is judged (small files compress very well). */
const RATIO_FLOOR = 1024 * 1024;

/** Archive names → formats, longest suffix first. */
const SUFFIXES: [string, ArchiveFormat['container'], Codec][] = [
  ['.tar.gz', 'tar', 'gzip'], ['.tgz', 'tar', 'gzip'], ['.tar.bz2', 'tar', 'bzip2'], ['.tbz2', 'tar', 'bzip2'],
  ['.tar.xz', 'tar', 'xz'], ['.txz', 'tar', 'xz'], ['.tar.zst', 'tar', 'zstd'], ['.tar.lz4', 'tar', 'lz4'],
  ['.tar.br', 'tar', 'brotli'], ['.tar.sz', 'tar', 'snappy'], ['.tar', 'tar', 'none'], ['.zip', 'zip', 'none'],
];

export function formatOfName(name: string): { container: 'zip' | 'tar'; codec: Codec; suffix: string } | undefined {
  const lower = name.toLowerCase();
  const hit = SUFFIXES.find(([suffix]) => lower.endsWith(suffix));
  return hit && { suffix: hit[0], container: hit[1], codec: hit[2] };
}

/** Why an archive is refused: the job's error, in words for the user. */
class Refused extends BadRequest {}

const fmtBytes = (n: number) => (n >= 1024 ** 3 ? `${+(n / 1024 ** 3).toFixed(1)} GiB` : `${+(n / 1024 ** 2).toFixed(1)} MiB`);

/** Counts entries and bytes against the limits; throws Refused past one. */
export function budget(limits: ExtractLimits) {
  let entries = 0;
  let bytes = 0;
  return {
    entry(): void {
      if (++entries > limits.maxEntries) throw new Refused(`the archive holds more than ${limits.maxEntries} entries (--extract-max-entries)`);
    },
    /** `n` more bytes out; `compressed` bytes in so far (for the ratio). */
    bytes(n: number, compressed: number): void {
      bytes += n;
      if (bytes > limits.maxSize) throw new Refused(`the archive unpacks to more than ${fmtBytes(limits.maxSize)} (--extract-max-size)`);
      if (bytes > RATIO_FLOOR && bytes / Math.max(1, compressed) > limits.maxRatio) {
        throw new Refused(`the archive is compressed more than ${limits.maxRatio} to 1, like an archive bomb (--extract-max-ratio)`);
      }
    },
    get total() {
      return bytes;
    },
  };
}
type Budget = ReturnType<typeof budget>;

/** Counts bytes through it, calling `each(n)` (which may throw to stop the stream). */
export class Counter extends Transform {
  constructor(private readonly each: (n: number) => void) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    try {
      this.each(chunk.length);
      cb(null, chunk);
    } catch (err) {
      cb(err as Error);
    }
  }
}

/** The segments of an entry, or Refused for a name that could land outside the destination. */
function segmentsOf(name: string): string[] {
  const verdict = entrySegments(name);
  if (!verdict.ok) throw new Refused(`the archive holds ${verdict.reason}: ${JSON.stringify(name.slice(0, 200))}`);
  return verdict.segments;
}

export interface ExtractJob {
  source: ScopedPath;
  dest: ScopedPath;
  conflict: ConflictPolicy;
  container: 'zip' | 'tar';
  codec: Codec;
  limits: ExtractLimits;
  /** The job's user's rules as they are when the entries are placed (fs/extract.ts placeRules). */
  rules(): Promise<Pick<PlaceOptions, 'denied' | 'anyRule'>>;
  /** Where the staging folder is noted for the sweep after a crash (Deps.jobStagingLedger). */
  ledger: string;
  /**
   * The user's quota (features/quota): each file's declared size (tar's header, zip's central
   * directory, which yauzl holds the data to) is counted before its first byte is written.
   */
  quota?: QuotaMeter;
}

/** ENOSPC / EDQUOT while writing: the disk is full, which says nothing about the archive. */
export function diskFull(err: unknown): InsufficientStorage | undefined {
  if (isErrno(err) && (err.code === 'ENOSPC' || err.code === 'EDQUOT')) {
    return new InsufficientStorage('the disk is full: there is not enough space for the files (507 Insufficient Storage)');
  }
  return undefined;
}

/** `work`, with a full disk reported as such (extract and compress jobs). */
export async function reportingDiskFull<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw diskFull(err) ?? err;
  }
}

export function extractArchive(job: ExtractJob, ctx: JobContext): Promise<JobResult> {
  return reportingDiskFull(() => extractStaged(job, ctx));
}

async function extractStaged(job: ExtractJob, ctx: JobContext): Promise<JobResult> {
  const staging = await openStaging(job.dest, { ledger: job.ledger, job: ctx.id });
  try {
    const skipped = new SkipList();
    const b = budget(job.limits);
    if (job.container === 'zip') await readZip(job, ctx, staging, b, skipped);
    else await readTar(job, ctx, staging, b, skipped);
    ctx.signal.throwIfAborted();
    // From here on the entries are whole files: they are moved into place, not cancelled halfway.
    await place(staging, { destVirtual: job.dest.virtual, ...(await job.rules()), conflict: job.conflict, numbered: numberedName }, skipped);
    return { path: job.dest.virtual, skipped: skipped.items, ...(skipped.total > skipped.items.length ? { skippedTotal: skipped.total } : {}) };
  } finally {
    await staging.remove();
  }
}

async function readTar(job: ExtractJob, ctx: JobContext, staging: Staging, b: Budget, skipped: SkipList): Promise<void> {
  const total = job.source.stat?.size ?? 0;
  let compressed = 0;
  ctx.progress(0, total);
  const extract = tarStream.extract();
  const source = (await openArchive(job.source)).createReadStream() as Readable;
  const countIn = new Counter((n) => {
    compressed += n;
    ctx.progress(compressed, total);
  });
  const decompressor = createDecompressor(job.codec);
  // Every unpacked byte counts — headers and the data of entries left out too: a bomb hidden in a
  // FIFO's data would otherwise be decompressed to the end without a limit.
  const countOut = new Counter((n) => b.bytes(n, compressed));
  const stages: NodeJS.ReadWriteStream[] = [countIn, ...(decompressor ? [decompressor] : []), countOut];
  const reading = pipeline([source, ...stages, extract] as unknown as [Readable, ...NodeJS.ReadWriteStream[]], { signal: ctx.signal });
  const entries = (async () => {
    for await (const entry of extract) {
      const h = entry.header;
      b.entry();
      const segments = segmentsOf(h.name);
      if (h.type === 'file' || h.type === 'contiguous-file') {
        if (segments.length === 0) throw new Refused('the archive holds a file without a name');
        job.quota?.take(h.size ?? 0);
        await staging.writeFile(segments, entry as AsyncIterable<Buffer>, h.mtime);
      } else if (h.type === 'directory') {
        await staging.makeDir(segments);
        entry.resume();
      } else {
        skipped.push({ name: h.name, reason: kindOf(h.type ?? 'unknown') });
        entry.resume();
      }
    }
  })();
  await Promise.all([reading, entries]).catch(async (err: unknown) => {
    extract.destroy();
    // The first rejection may be the other side's premature close: a refusal or a full disk says
    // more, and so does the decompressor's own finding (a checksum, the memory an xz needs).
    const reasons = (await Promise.allSettled([entries, reading])).flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    throw translate(telling(reasons, err));
  });
}

function kindOf(type: string): string {
  if (type === 'symlink') return 'links are not extracted';
  if (type === 'link') return 'hard links are not extracted';
  if (type === 'character-device' || type === 'block-device') return 'devices are not extracted';
  if (type === 'fifo') return 'FIFOs are not extracted';
  return `entries of type ${type} are not extracted`;
}

/** The decompressors' errors that name what is wrong (translate). */
const DECOMPRESSOR_FINDINGS = new Set(['Lz4ChecksumError', 'LZMA_MEMLIMIT_ERROR']);

/**
 * Of the reading's and the entries' failures, the one that says most: a refusal or a full disk,
 * then a decompressor's finding, else the first (often only the other side's premature close).
 */
export function telling(reasons: readonly unknown[], first: unknown): unknown {
  return (
    reasons.find((r) => r instanceof BadRequest || r instanceof InsufficientStorage || diskFull(r)) ??
    reasons.find((r) => DECOMPRESSOR_FINDINGS.has((r as Error | undefined)?.name ?? '')) ??
    first
  );
}

/** A damaged archive's low-level error → a Refused the user can read; Refused and aborts pass. */
function translate(err: unknown): unknown {
  if (err instanceof BadRequest || err instanceof InsufficientStorage || (err as Error).name === 'AbortError' || diskFull(err)) return err;
  if ((err as Error).name === 'Lz4ChecksumError') return new Refused((err as Error).message);
  if ((err as Error).name === 'LZMA_MEMLIMIT_ERROR') return new Refused(`the archive needs more than ${XZ_MEMLIMIT / 2 ** 20} MiB of memory to unpack (its xz dictionary)`);
  return new Refused('the archive is damaged or not in the format its name says');
}

const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;

/** Entries up to these sizes (stored, unpacked) are unpacked and written in batches by workers (Staging.writeSmall). */
const SMALL_STORED = 256 * 1024;
const SMALL_UNPACKED = 1024 * 1024;
/** A batch is sent once it holds SMALL_BATCH_MAX files or this many stored bytes. */
const BATCH_BYTES = 1024 * 1024;

/** yauzl reading through the archive's windows (fs/extract.ts openArchiveReader). */
class WindowedZipReader extends yauzl.RandomAccessReader {
  constructor(private readonly archive: ArchiveReader) {
    super();
  }
  override _readStreamForRange(start: number, end: number): Readable {
    return this.archive.stream(start, end);
  }
  override read(buffer: Buffer, offset: number, length: number, position: number, callback: (err: Error | null) => void): void {
    const done = callback as (err: Error | null, bytesRead?: number) => void;
    this.archive.read(position, length).then(
      (bytes) => {
        bytes.copy(buffer, offset);
        done(null, bytes.length);
      },
      (err: Error) => done(err),
    );
  }
}

const LOCAL_HEADER = 0x04034b50;

/** The stored bytes of a zip entry: after its local header (whose name and extra field lengths are its own). */
async function storedBody(archive: ArchiveReader, entry: yauzl.Entry): Promise<Buffer> {
  const at = entry.relativeOffsetOfLocalHeader;
  const head = await archive.read(at, 30);
  if (head.length < 30 || head.readUInt32LE(0) !== LOCAL_HEADER) throw new Error('bad local file header');
  const body = await archive.read(at + 30 + head.readUInt16LE(26) + head.readUInt16LE(28), entry.compressedSize);
  if (body.length !== entry.compressedSize) throw new Error('unexpected end of the archive');
  return body;
}

async function readZip(job: ExtractJob, ctx: JobContext, staging: Staging, b: Budget, skipped: SkipList): Promise<void> {
  const archive = await openArchiveReader(job.source);
  try {
    const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => {
      // yauzl refuses absolute names, `..` and backslashes itself (decodeStrings), and checks each
      // entry's size against its header (validateEntrySizes).
      yauzl.fromRandomAccessReader(new WindowedZipReader(archive), archive.size, { autoClose: false, lazyEntries: true, decodeStrings: true, validateEntrySizes: true }, (err, z) => (err ? reject(err) : resolve(z)));
    }).catch((err: unknown) => {
      throw translateZip(err);
    });
    if (zip.entryCount > job.limits.maxEntries) throw new Refused(`the archive holds more than ${job.limits.maxEntries} entries (--extract-max-entries)`);
    const total = Number(zip.fileSize);
    let compressedDone = 0;
    ctx.progress(0, total);
    // Small files waiting for a batch, and the batches (at most two) being written.
    let batch: SmallFile[] = [];
    let batchBytes = 0;
    const writing: Promise<void>[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const sent = staging.writeSmall(batch);
      // Settled at once as far as Node is concerned; the error is taken where it is awaited.
      sent.catch(() => undefined);
      writing.push(sent);
      batch = [];
      batchBytes = 0;
      if (writing.length >= 2) await writing.shift();
    };
    await new Promise<void>((resolve, reject) => {
      // The archive is closed below; yauzl holds no other resource.
      const fail = (err: unknown) => reject(translateZip(err));
      const onAbort = () => fail(ctx.signal.reason);
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      zip.on('error', fail);
      zip.on('end', () => {
        ctx.signal.removeEventListener('abort', onAbort);
        flush()
          .then(() => Promise.all(writing.splice(0)))
          .then(() => resolve(), fail);
      });
      zip.on('entry', (entry: yauzl.Entry) => {
        handleZipEntry(entry).then(
          () => {
            compressedDone += entry.compressedSize;
            ctx.progress(Math.min(total, compressedDone), total);
            zip.readEntry();
          },
          fail,
        );
      });
      async function handleZipEntry(entry: yauzl.Entry): Promise<void> {
        ctx.signal.throwIfAborted();
        b.entry();
        const name = entry.fileName;
        const segments = segmentsOf(name);
        const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
        if (name.endsWith('/') || mode === S_IFDIR) {
          await staging.makeDir(segments);
          return;
        }
        if (mode !== 0 && mode !== S_IFREG) {
          skipped.push({ name, reason: mode === 0o120000 ? 'links are not extracted' : 'special files are not extracted' });
          return;
        }
        if (segments.length === 0) throw new Refused('the archive holds a file without a name');
        // Declared sizes first: a bomb is refused before a byte is written.
        if (entry.uncompressedSize > RATIO_FLOOR && entry.uncompressedSize / Math.max(1, entry.compressedSize) > job.limits.maxRatio) {
          throw new Refused(`the archive is compressed more than ${job.limits.maxRatio} to 1, like an archive bomb (--extract-max-ratio)`);
        }
        job.quota?.take(entry.uncompressedSize);
        const method = entry.compressionMethod;
        if ((method === 0 || method === 8) && !entry.isEncrypted() && entry.compressedSize <= SMALL_STORED && entry.uncompressedSize <= SMALL_UNPACKED) {
          // The worker unpacks at most the declared size and checks it and the CRC-32: the
          // declared size is what counts against the limits.
          b.bytes(entry.uncompressedSize, compressedDone + entry.compressedSize);
          batch.push({ segments, method, size: entry.uncompressedSize, crc: entry.crc32, mtime: entry.getLastModDate(), body: await storedBody(archive, entry) });
          batchBytes += entry.compressedSize;
          if (batch.length >= SMALL_BATCH_MAX || batchBytes >= BATCH_BYTES) await flush();
          return;
        }
        const stream = await new Promise<Readable>((res, rej) => zip.openReadStream(entry, (err, s) => (err ? rej(err) : res(s))));
        let entryOut = 0;
        const counted = stream.pipe(
          new Counter((n) => {
            entryOut += n;
            b.bytes(n, compressedDone + entry.compressedSize);
            if (entryOut > RATIO_FLOOR && entryOut / Math.max(1, entry.compressedSize) > job.limits.maxRatio) {
              throw new Refused(`the archive is compressed more than ${job.limits.maxRatio} to 1, like an archive bomb (--extract-max-ratio)`);
            }
          }),
        );
        stream.on('error', (err) => counted.destroy(err));
        await staging.writeFile(segments, counted, entry.getLastModDate());
      }
      zip.readEntry();
    }).finally(() => Promise.allSettled(writing));
  } finally {
    await archive.close();
  }
}

function translateZip(err: unknown): unknown {
  if (err instanceof BadRequest || err instanceof InsufficientStorage || (err as Error).name === 'AbortError' || diskFull(err)) return err;
  const message = (err as Error).message ?? '';
  if (/invalid relative path|absolute path|invalid characters in fileName/.test(message)) {
    return new Refused(`the archive holds an entry name that could land outside the folder (${message.replace(/:.*/, '')})`);
  }
  return new Refused('the archive is damaged or not a zip file');
}
