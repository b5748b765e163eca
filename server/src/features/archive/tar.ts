/**
 * A streaming tar writer (POSIX ustar, pax extended headers where ustar cannot say it), written
 * by hand so that the headers of many small entries are filled straight into one output buffer:
 * the stream gives out pieces of OUT_CHUNK bytes or more instead of a header, a body and a pad
 * per entry (tar-stream's per-entry writes were most of the event loop's time left in a tar.gz
 * download of 10,000 small files, bench/README.md "Archive").
 *
 * Format (POSIX.1-2001 pax / ustar): per entry a 512-byte header, the data, zeros up to the next
 * multiple of 512; at the end two zero blocks. Numbers are octal ASCII ending in NUL; a size of
 * 8 GiB or more does not fit the 11 digits: it goes into a pax `size` record, and the header's
 * field holds it in base-256 (first byte 0x80), as GNU tar and bsdtar read. A name longer than
 * 100 bytes goes into a pax `path` record (UTF-8), the header keeping a cut copy.
 */
import type { ArchiveEntry } from './entry.js';
import { OUT_CHUNK, Pieces } from './pieces.js';

export { OUT_CHUNK };

const BLOCK = 512;
/** Largest size the 11 octal digits of the ustar size field hold. */
const MAX_OCTAL_SIZE = 0o77777777777;
const TYPE_FILE = 0x30; // '0'
const TYPE_DIR = 0x35; // '5'
const TYPE_PAX = 0x78; // 'x'

/** Writes `value` as zero-padded octal of `width - 1` digits and a NUL at `at`. */
function octal(buf: Buffer, at: number, width: number, value: number): void {
  const s = Math.max(0, Math.floor(value))
    .toString(8)
    .padStart(width - 1, '0');
  buf.write(s, at, width - 1, 'ascii');
  buf[at + width - 1] = 0;
}

/** A size too large for octal: base-256, big-endian, the first byte's top bit set (12-byte field). */
function base256(buf: Buffer, at: number, value: number): void {
  let v = BigInt(value);
  for (let i = 11; i >= 1; i--) {
    buf[at + i] = Number(v & 0xffn);
    v >>= 8n;
  }
  buf[at] = 0x80;
}

/** One pax record: "<len> <key>=<value>\n", where <len> counts the whole record, itself included. */
function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  const bytes = Buffer.byteLength(body);
  let len = bytes + 1;
  while (String(len).length + bytes !== len) len = String(len).length + bytes;
  return `${len}${body}`;
}

/** The first bytes of `name` that fit `max` without cutting a UTF-8 sequence. */
function cutName(name: Buffer, max: number): Buffer {
  if (name.length <= max) return name;
  let end = max;
  while (end > 0 && (name[end]! & 0xc0) === 0x80) end--;
  return name.subarray(0, end);
}

/**
 * Writes one 512-byte header at `at` of `buf` (which must be zeros there): `name` (≤ 100 bytes),
 * permission bits, size, mtime in seconds, type flag. uid/gid 0, no user or group names.
 */
export function writeHeader(
  buf: Buffer,
  at: number,
  h: { name: Buffer; mode: number; size: number; mtime: number; type: number },
): void {
  h.name.copy(buf, at, 0, Math.min(h.name.length, 100));
  octal(buf, at + 100, 8, h.mode & 0o7777);
  octal(buf, at + 108, 8, 0); // uid
  octal(buf, at + 116, 8, 0); // gid
  if (h.size > MAX_OCTAL_SIZE) base256(buf, at + 124, h.size);
  else octal(buf, at + 124, 12, h.size);
  octal(buf, at + 136, 12, Math.min(h.mtime, MAX_OCTAL_SIZE));
  buf[at + 156] = h.type;
  buf.write('ustar\u000000', at + 257, 8, 'latin1'); // magic "ustar\0", version "00"
  // The checksum: the sum of the header's bytes with its own field counted as eight spaces;
  // six octal digits, NUL, space.
  buf.fill(0x20, at + 148, at + 156);
  let sum = 0;
  for (let i = at; i < at + BLOCK; i++) sum += buf[i]!;
  buf.write(sum.toString(8).padStart(6, '0'), at + 148, 6, 'ascii');
  buf[at + 154] = 0;
  buf[at + 155] = 0x20;
}

/** A pax extended header for the entry after it, or null when ustar says it all. */
function paxFor(name: Buffer, nameStr: string, size: number): Buffer | null {
  let records = '';
  if (name.length > 100) records += paxRecord('path', nameStr);
  if (size > MAX_OCTAL_SIZE) records += paxRecord('size', String(size));
  return records ? Buffer.from(records, 'utf8') : null;
}

/**
 * Streams a tar archive of `entries`. A large file's content (`stream`) must be exactly `size`
 * bytes: shorter or longer fails the archive (its header already promised the size).
 */
export async function* tarStream(entries: AsyncIterable<ArchiveEntry>): AsyncGenerator<Buffer> {
  const out = new Pieces();
  const header = (h: Parameters<typeof writeHeader>[2]) => {
    const at = out.reserve(BLOCK); // first: it may move `out.buf`
    writeHeader(out.buf, at, h);
  };
  for await (const e of entries) {
    const nameStr = e.isDir ? e.name + '/' : e.name;
    const name = Buffer.from(nameStr, 'utf8');
    const size = e.isDir ? 0 : e.size;
    const mtime = Math.floor(e.mtime.getTime() / 1000);
    const pax = paxFor(name, nameStr, size);
    if (pax) {
      const paxName = Buffer.concat([Buffer.from('PaxHeader/'), cutName(name, 90)]);
      header({ name: paxName, mode: 0o644, size: pax.length, mtime, type: TYPE_PAX });
      out.put(pax, BLOCK);
    }
    header({ name: cutName(name, 100), mode: e.mode, size, mtime, type: e.isDir ? TYPE_DIR : TYPE_FILE });
    if (e.isDir) {
      // nothing more
    } else if (e.data) {
      if (e.data.length !== size)
        throw new Error(`tar entry ${e.name}: ${e.data.length} bytes where ${size} were announced`);
      if (size >= OUT_CHUNK) {
        // A big body goes out as it is, after what is pending.
        yield out.take()!;
        yield e.data;
        if (size % BLOCK) out.reserve(BLOCK - (size % BLOCK));
      } else out.put(e.data, BLOCK);
    } else if (size > 0) {
      const pending = out.take();
      if (pending) yield pending;
      let written = 0;
      for await (const chunk of e.stream!) {
        written += chunk.length;
        if (written > size) throw new Error(`tar entry ${e.name}: more than the ${size} bytes announced`);
        yield chunk;
      }
      if (written !== size)
        throw new Error(`tar entry ${e.name}: ${written} bytes where ${size} were announced`);
      if (size % BLOCK) out.reserve(BLOCK - (size % BLOCK));
    }
    const piece = out.ready();
    if (piece) yield piece;
  }
  out.reserve(2 * BLOCK);
  const rest = out.take();
  if (rest) yield rest;
}
