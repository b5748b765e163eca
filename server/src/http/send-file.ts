/**
 * Answers that carry file bytes (raw, preview, subtitle, public downloads; archives reuse the
 * headers): the S60/S61/S64 headers, conditional requests (304/412), single and multiple ranges
 * (206, 416), HEAD without a body.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { openFileStream, pumpFile, readRange } from '../fs/read.js';
import type { ScopedPath } from '../fs/resolve.js';
import { inlineContentType } from './content-type.js';
import { contentDisposition } from './disposition.js';
import { HttpError } from './errors.js';
import { checkPreconditions, ifRangeAllows, parseRange, type ByteRange } from './range.js';

/** S60: every answer with file bytes. `sandbox` is added for active content shown inline. */
export const FILE_CSP = "script-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'";

/**
 * S60's passive list: images other than SVG, audio, video, PDF, plain text and text/vtt. Anything
 * else (HTML, XHTML, SVG, XML, JavaScript, unknown) is active.
 */
export function isPassive(contentType: string): boolean {
  const t = contentType.split(';')[0]!.trim().toLowerCase();
  if (t.startsWith('image/')) return t !== 'image/svg+xml' && !t.includes('xml');
  if (t.startsWith('audio/') || t.startsWith('video/')) return true;
  return t === 'application/pdf' || t === 'text/plain' || t === 'text/vtt';
}

/**
 * Answers (or single ranges) up to this many bytes are read into one buffer and sent with their
 * headers in one write, when the body can `read`: for a few KiB a stream costs more than the I/O.
 */
export const SMALL_BODY = 64 * 1024;

export interface FileBody {
  size: number;
  mtimeMs: number;
  etag: string;
  /** The bytes [start, end], or all of them. */
  open(range?: ByteRange): Readable;
  /** The same bytes in one buffer; used instead of `open` for parts up to SMALL_BODY bytes. */
  read?(range: ByteRange): Promise<Buffer>;
  /** The same bytes handed to `write` through reused buffers (fs/read.ts `pumpFile`); used instead of `open` for larger parts. */
  pump?(range: ByteRange, write: (piece: Buffer) => Promise<void>, signal: AbortSignal): Promise<void>;
}

/** A FileBody over a resolved regular file (`p.stat` set), read through fs/. */
export function fileBodyOf(p: ScopedPath): FileBody {
  const st = p.stat!;
  return {
    size: st.size,
    mtimeMs: st.mtimeMs,
    etag: etagFor(st.size, st.mtimeMs),
    open: (r) => openFileStream(p, r),
    read: (r) => readRange(p, r),
    pump: (r, write, signal) => pumpFile(p, r, write, signal),
  };
}

/** A FileBody over bytes already in memory (converted subtitles, generated previews). */
export function bufferBody(data: Buffer, mtimeMs: number, etag: string): FileBody {
  const slice = (r?: ByteRange) => (r ? data.subarray(r.start, r.end + 1) : data);
  return {
    size: data.length,
    mtimeMs,
    etag,
    open: (r) => Readable.from([slice(r)]),
    read: (r) => Promise.resolve(slice(r)),
  };
}

/** The bytes of `r` as one buffer when small enough and the body can, else a stream. */
async function bytesOf(body: FileBody, r: ByteRange): Promise<Buffer | Readable> {
  return body.read && r.end - r.start < SMALL_BODY ? body.read(r) : body.open(r);
}

/**
 * Sends `status` with the headers gathered so far and the bytes of `r` written by the body's pump
 * straight to the socket (a large file: no buffer per read, see fs/read.ts `pumpFile`). The
 * answer's length is already set; a failure after the head cuts the connection, so a short body
 * never looks complete. Fastify's onResponse hooks (access line, metrics) still run at the end.
 */
async function pumpAnswer(req: FastifyRequest, reply: FastifyReply, status: number, body: FileBody, r: ByteRange): Promise<FastifyReply> {
  reply.hijack();
  const res = reply.raw;
  const abort = new AbortController();
  const onClose = () => abort.abort(new Error('the client went away'));
  res.once('close', onClose);
  // Errors of the socket are handled by the pump's write below, not as an uncaught event.
  res.on('error', () => undefined);
  const write = (piece: Buffer) =>
    new Promise<void>((resolve, reject) => {
      if (abort.signal.aborted) return reject(abort.signal.reason as Error);
      const onGone = () => reject(abort.signal.reason as Error);
      abort.signal.addEventListener('abort', onGone, { once: true });
      res.write(piece, (err) => {
        abort.signal.removeEventListener('abort', onGone);
        if (err) reject(err);
        else resolve();
      });
    });
  try {
    res.writeHead(status, reply.getHeaders() as Record<string, string>);
    await body.pump!(r, write, abort.signal);
    res.end();
  } catch (err) {
    if (!abort.signal.aborted) req.log.warn({ err }, 'file answer failed after its head');
    res.destroy();
  } finally {
    res.off('close', onClose);
  }
  return reply;
}

/** A part large enough, from a body that can pump, goes through `pumpAnswer`. */
function pumps(body: FileBody, r: ByteRange): boolean {
  return body.pump !== undefined && r.end - r.start >= SMALL_BODY;
}

export interface SendOptions {
  /** Name for Content-Disposition. */
  name: string;
  /** `inline=true` was asked: the disposition is inline and the content type is the file's own. */
  inline: boolean;
  /** The file's own type (used inline only). */
  contentType: string;
}

/** A strong validator from what stat gives: size and modification time. */
export function etagFor(size: number, mtimeMs: number): string {
  return `"${etagText(size, mtimeMs)}"`;
}

/** etagFor without its quotes (a WebDAV listing writes 100,000 of them). */
export function etagText(size: number, mtimeMs: number): string {
  return `${hexOf(Math.round(mtimeMs * 1000))}-${hexOf(size)}`;
}

const BYTE_HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * `n.toString(16)`, made from bytes for the integers of 2^30 to 2^53 (a modification time in
 * microseconds is one): V8 converts such a number, which is not a small integer, digit by digit as
 * a double, ~1 µs each. Anything else (negative, fractional, larger) takes the plain way.
 */
export function hexOf(n: number): string {
  if (n >= 0 && n < 0x40000000 && Number.isInteger(n)) return n.toString(16);
  if (!(n >= 0 && n <= Number.MAX_SAFE_INTEGER && Number.isInteger(n))) return n.toString(16);
  const hi = Math.floor(n / 0x100000000);
  const lo = n - hi * 0x100000000;
  const low = BYTE_HEX[lo >>> 24]! + BYTE_HEX[(lo >>> 16) & 255]! + BYTE_HEX[(lo >>> 8) & 255]! + BYTE_HEX[lo & 255]!;
  // n ≥ 2^30, so with hi 0 the low word's leading zeros are at most one.
  return hi === 0 ? (low[0] === '0' ? low.slice(1) : low) : hi.toString(16) + low;
}

/** S60/S61/S64 headers on an answer that carries (or describes) file bytes. */
export function fileHeaders(reply: FastifyReply, opts: SendOptions): string {
  const type = opts.inline ? opts.contentType : 'application/octet-stream';
  void reply.header(
    'Content-Disposition',
    contentDisposition(opts.inline ? 'inline' : 'attachment', opts.name),
  );
  void reply.header('Content-Type', type);
  void reply.header('X-Content-Type-Options', 'nosniff');
  void reply.header(
    'Content-Security-Policy',
    opts.inline && !isPassive(type) ? `${FILE_CSP}; sandbox` : FILE_CSP,
  );
  void reply.header('Cache-Control', 'private');
  return type;
}

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Ends a HEAD answer with the headers gathered so far. Fastify would rewrite Content-Length of an
 * empty HEAD answer to 0; the length must describe the GET body.
 */
export function endHead(reply: FastifyReply, status: number): FastifyReply {
  reply.hijack();
  reply.raw.writeHead(status, reply.getHeaders() as Record<string, string>);
  reply.raw.end();
  return reply;
}

export async function sendFileBody(
  req: FastifyRequest,
  reply: FastifyReply,
  body: FileBody,
  opts: SendOptions,
): Promise<FastifyReply> {
  const type = fileHeaders(reply, opts);
  const validators = { mtimeMs: body.mtimeMs, etag: body.etag };
  void reply.header('Last-Modified', new Date(body.mtimeMs).toUTCString());
  void reply.header('ETag', body.etag);
  void reply.header('Accept-Ranges', 'bytes');
  const verdict = checkPreconditions(
    {
      ifMatch: header(req, 'if-match'),
      ifNoneMatch: header(req, 'if-none-match'),
      ifModifiedSince: header(req, 'if-modified-since'),
      ifUnmodifiedSince: header(req, 'if-unmodified-since'),
    },
    validators,
    req.method,
  );
  if (verdict === 'failed') throw new HttpError(412);
  if (verdict === 'not-modified') {
    reply.removeHeader('Content-Type');
    return reply.code(304).send();
  }
  const head = req.method === 'HEAD';
  const rangeHeader = ifRangeAllows(header(req, 'if-range'), validators) ? header(req, 'range') : undefined;
  const range = parseRange(rangeHeader, body.size);
  if (range.kind === 'unsatisfiable') {
    throw new HttpError(416, '', { headers: { 'Content-Range': `bytes */${body.size}` } });
  }
  if (range.kind === 'full') {
    void reply.header('Content-Length', String(body.size));
    if (head) return endHead(reply, 200);
    if (body.size === 0) return reply.code(200).send();
    const all = { start: 0, end: body.size - 1 };
    if (pumps(body, all)) return pumpAnswer(req, reply, 200, body, all);
    return reply.code(200).send(await bytesOf(body, all));
  }
  if (range.ranges.length === 1) {
    const r = range.ranges[0]!;
    void reply.header('Content-Range', `bytes ${r.start}-${r.end}/${body.size}`);
    void reply.header('Content-Length', String(r.end - r.start + 1));
    if (head) return endHead(reply, 206);
    if (pumps(body, r)) return pumpAnswer(req, reply, 206, body, r);
    return reply.code(206).send(await bytesOf(body, r));
  }
  // Several ranges: multipart/byteranges, each part with its own type and range.
  const boundary = randomBytes(12).toString('hex');
  const partHead = (r: ByteRange, first: boolean) =>
    Buffer.from(
      `${first ? '' : '\r\n'}--${boundary}\r\nContent-Type: ${type}\r\nContent-Range: bytes ${r.start}-${r.end}/${body.size}\r\n\r\n`,
    );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  let length = tail.length;
  range.ranges.forEach((r, i) => (length += partHead(r, i === 0).length + r.end - r.start + 1));
  void reply.header('Content-Type', `multipart/byteranges; boundary=${boundary}`);
  void reply.header('Content-Length', String(length));
  if (head) return endHead(reply, 206);
  const ranges = range.ranges;
  async function* parts(): AsyncGenerator<Buffer> {
    for (let i = 0; i < ranges.length; i++) {
      yield partHead(ranges[i]!, i === 0);
      for await (const chunk of body.open(ranges[i]!)) yield chunk as Buffer;
    }
    yield tail;
  }
  return reply.code(206).send(Readable.from(parts()));
}

/** Serves one resolved regular file with ranges and validators (raw, previews, public downloads). */
export async function sendResolvedFile(
  req: FastifyRequest,
  reply: FastifyReply,
  p: ScopedPath,
  inline: boolean,
): Promise<FastifyReply> {
  const st = p.stat!;
  const name = path.posix.basename(p.virtual);
  if (!st.isFile()) {
    // docs/api.md §8.1: a named pipe (or any special file) is never opened: only the disposition.
    void reply.header('Content-Disposition', contentDisposition(inline ? 'inline' : 'attachment', name));
    void reply.header('Content-Security-Policy', FILE_CSP);
    void reply.header('Cache-Control', 'private');
    return reply.code(200).type('application/octet-stream').send('');
  }
  const contentType = inline ? await inlineContentType(p, name) : 'application/octet-stream';
  return sendFileBody(req, reply, fileBodyOf(p), { name, inline, contentType });
}
