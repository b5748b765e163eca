/**
 * Looking inside an archive without extracting it (docs/api.md §18 E13). A zip's central
 * directory is read entry by entry (yauzl, lazily); a tar is read as a stream through the same
 * decompressors as extraction (their memory limits hold), the data of every entry skipped. Names
 * are reported as the archive holds them — hostile ones too: nothing is written, and the client
 * shows them as text — so refusals do not apply; the extraction limits on entry count, unpacked
 * size and compression ratio do, on every unpacked byte (a bomb is not read to its end).
 */
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tarStream, { type Header as TarHeader } from 'tar-stream';
import yauzl from 'yauzl';
import { openArchive } from '../../fs/extract.js';
import type { ScopedPath } from '../../fs/resolve.js';
import { BadRequest, NotFound } from '../../http/errors.js';
import type { Codec } from '../archive/formats.js';
import { createDecompressor } from './decompress.js';
import { budget, Counter, type ExtractLimits } from './service.js';

export interface ListedEntry {
  name: string;
  size: number;
  /** ISO 8601. */
  modified: string;
  isDir: boolean;
}

export interface ArchiveSource {
  source: ScopedPath;
  container: 'zip' | 'tar';
  codec: Codec;
  limits: ExtractLimits;
  signal: AbortSignal;
}

const iso = (d: Date) => (Number.isNaN(d.getTime()) ? new Date(0) : d).toISOString();

/** A zip entry's name: UTF-8 when flagged (or valid), else Latin-1 (never refused here). */
function zipName(entry: yauzl.Entry): string {
  const raw = entry.fileName as unknown as Buffer;
  if (!Buffer.isBuffer(raw)) return String(raw);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    return raw.toString('latin1');
  }
}

/** A zip entry is a file unless its Unix mode (when the archive was made on Unix) says otherwise: a link, a folder, a device. */
function isZipFile(entry: yauzl.Entry): boolean {
  const mode = (entry.externalFileAttributes >>> 16) & 0o170000;
  return mode === 0 || mode === 0o100000;
}

/** Opens a zip on its file and hands each entry to `each` until it answers false. */
async function walkZip(src: ArchiveSource, each: (entry: yauzl.Entry, zip: yauzl.ZipFile) => Promise<boolean>): Promise<void> {
  const fh = await openArchive(src.source);
  try {
    const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => {
      yauzl.fromFd(fh.fd, { autoClose: false, lazyEntries: true, decodeStrings: false, validateEntrySizes: true }, (err, z) => (err ? reject(err) : resolve(z)));
    }).catch(() => {
      throw new BadRequest('the archive is damaged or not a zip file');
    });
    if (zip.entryCount > src.limits.maxEntries) throw new BadRequest(`the archive holds more than ${src.limits.maxEntries} entries (--extract-max-entries)`);
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(src.signal.reason as Error);
      src.signal.addEventListener('abort', onAbort, { once: true });
      const end = () => {
        src.signal.removeEventListener('abort', onAbort);
        resolve();
      };
      zip.on('error', () => reject(new BadRequest('the archive is damaged or not a zip file')));
      zip.on('end', end);
      zip.on('entry', (entry: yauzl.Entry) => {
        each(entry, zip).then((more) => (more ? zip.readEntry() : end()), reject);
      });
      zip.readEntry();
    });
  } finally {
    await fh.close();
  }
}

/** Streams a tar's headers to `each` (which may consume the entry's data) until it answers false. */
async function walkTar(src: ArchiveSource, each: (header: TarHeader, entry: Readable) => Promise<boolean>): Promise<void> {
  const extract = tarStream.extract();
  const decompressor = createDecompressor(src.codec);
  // Every unpacked byte counts, as in extraction: zeros after the tar's end are unpacked too.
  const b = budget(src.limits);
  let compressed = 0;
  const countIn = new Counter((n) => (compressed += n));
  const countOut = new Counter((n) => b.bytes(n, compressed));
  const stages = [countIn, ...(decompressor ? [decompressor] : []), countOut];
  const fh = await openArchive(src.source);
  const reading = pipeline([fh.createReadStream() as Readable, ...stages, extract] as unknown as [Readable, NodeJS.WritableStream], { signal: src.signal });
  let stopped = false;
  const walking = (async () => {
    for await (const entry of extract) {
      b.entry();
      if (!(await each(entry.header, entry as unknown as Readable))) {
        stopped = true;
        return;
      }
      entry.resume();
    }
  })();
  const readable = (err: unknown) =>
    err instanceof BadRequest || (err as Error).name === 'AbortError' ? err : new BadRequest('the archive is damaged or not in the format its name says');
  try {
    await walking;
  } catch (err) {
    extract.destroy();
    await reading.catch(() => undefined);
    throw readable(err);
  }
  if (stopped) {
    // The entry was found: the rest is not read.
    extract.destroy();
    await reading.catch(() => undefined);
    return;
  }
  await reading.catch((err: unknown) => {
    throw readable(err);
  });
}

/** Every entry of the archive, in archive order. */
export async function listArchive(src: ArchiveSource, onEntry: (e: ListedEntry) => Promise<void> | void): Promise<void> {
  if (src.container === 'zip') {
    await walkZip(src, async (entry) => {
      const name = zipName(entry);
      const mode = (entry.externalFileAttributes >>> 16) & 0o170000;
      await onEntry({ name, size: entry.uncompressedSize, modified: iso(entry.getLastModDate()), isDir: name.endsWith('/') || mode === 0o040000 });
      return true;
    });
    return;
  }
  await walkTar(src, async (h) => {
    await onEntry({ name: h.name, size: h.type === 'file' || h.type === 'contiguous-file' ? (h.size ?? 0) : 0, modified: iso(h.mtime ?? new Date(0)), isDir: h.type === 'directory' });
    return true;
  });
}

export interface FoundEntry {
  size: number;
  stream: Readable;
  /** Settles when the archive is closed again. */
  done: Promise<void>;
}

/**
 * The data of the file entry named exactly `name` (the first one of that name), or 404. The
 * caller reads `stream` to its end (or destroys it), then awaits `done`.
 */
export async function openEntry(src: ArchiveSource, name: string): Promise<FoundEntry> {
  return new Promise<FoundEntry>((resolve, reject) => {
    let found = false;
    const walking = (src.container === 'zip'
      ? walkZip(src, async (entry, zip) => {
          if (zipName(entry) !== name || name.endsWith('/') || !isZipFile(entry)) return true;
          // The extraction limits on its declared sizes (yauzl holds the entry to them), as in E11:
          // a bomb's entry is not inflated for the client.
          budget(src.limits).bytes(entry.uncompressedSize, entry.compressedSize);
          const stream = await new Promise<Readable>((res, rej) => zip.openReadStream(entry, (err, s) => (err ? rej(err) : res(s)))).catch(() => {
            throw new BadRequest('the entry cannot be read (encrypted, or stored with a method Coffer does not read)');
          });
          found = true;
          const ended = new Promise<void>((res) => stream.once('close', res));
          resolve({ size: entry.uncompressedSize, stream, done: walking.then(() => undefined, () => undefined) });
          await ended;
          return false;
        })
      : walkTar(src, async (h, entry) => {
          if (h.name !== name || (h.type !== 'file' && h.type !== 'contiguous-file')) return true;
          found = true;
          const ended = new Promise<void>((res) => entry.once('close', res).once('end', res));
          resolve({ size: h.size ?? 0, stream: entry, done: walking.then(() => undefined, () => undefined) });
          await ended;
          return false;
        })
    ).then(() => {
      if (!found) reject(new NotFound('no such entry in the archive'));
    }, (err: unknown) => {
      if (!found) reject(err as Error);
    });
  });
}
