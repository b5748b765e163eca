/**
 * Compressed JSON answers for big bodies (folder listings): a listing of 100,000 entries is
 * ~18 MB of JSON but ~0.5 MB as brotli, compressed in ~20 ms off the event loop. Only when the
 * client asks for it (`Accept-Encoding`); clients that send none — curl, most scripts — get the
 * plain bytes as before. Only for bodies without secrets: a compressed secret beside text an
 * attacker chose leaks through the size (BREACH). Public share answers carry a token: never here.
 */
import { Readable, pipeline, type Transform } from 'node:stream';
import { constants, createBrotliCompress, createGzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Below this, compressing gains nothing worth it: the answer goes as one body with its length. */
export const COMPRESS_MIN_BYTES = 32 * 1024;

export type Encoding = 'br' | 'gzip';

/**
 * The coding to use for an `Accept-Encoding` value: brotli when accepted (it also decodes several
 * times faster than gzip), else gzip, else none. `q=0` refuses a coding, `*` stands for any coding
 * not named.
 */
export function chooseEncoding(accept: string | string[] | undefined): Encoding | null {
  const header = Array.isArray(accept) ? accept.join(',') : (accept ?? '');
  const q = new Map<string, number>();
  for (const part of header.split(',')) {
    const [token, ...params] = part.trim().toLowerCase().split(';');
    if (!token) continue;
    let weight = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(p);
      if (m) weight = Number(m[1]);
    }
    if (Number.isFinite(weight)) q.set(token.trim(), weight);
  }
  const weightOf = (coding: Encoding) => q.get(coding) ?? q.get('*') ?? 0;
  const br = weightOf('br');
  const gzipWeight = Math.max(weightOf('gzip'), q.get('x-gzip') ?? 0);
  if (br > 0 && br >= gzipWeight) return 'br';
  if (gzipWeight > 0) return 'gzip';
  return null;
}

/** A fast compressor (brotli quality 1, gzip level 1): ~20 ms for 18 MB of listing JSON. */
export function compressor(encoding: Encoding): Transform {
  if (encoding === 'gzip') return createGzip({ level: 1 });
  return createBrotliCompress({
    params: { [constants.BROTLI_PARAM_QUALITY]: 1, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT },
  });
}

/**
 * Sends JSON given in pieces of UTF-8. A small answer goes as one body with its length, as before; a
 * big one is streamed as the pieces are made (the reader starts receiving while the rest is being
 * written), compressed when the client accepts a coding.
 */
export async function sendJsonPieces(req: FastifyRequest, reply: FastifyReply, pieces: AsyncIterable<Buffer>): Promise<FastifyReply> {
  reply.type('application/json; charset=utf-8');
  const it = pieces[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let length = 0;
  while (length < COMPRESS_MIN_BYTES) {
    const next = await it.next();
    if (next.done) return reply.send(Buffer.concat(head));
    head.push(next.value);
    length += next.value.length;
  }
  async function* all(): AsyncGenerator<Buffer> {
    yield* head;
    for (let next = await it.next(); !next.done; next = await it.next()) yield next.value;
  }
  const body = Readable.from(all(), { objectMode: false });
  reply.header('Vary', 'Accept-Encoding');
  const encoding = chooseEncoding(req.headers['accept-encoding']);
  if (!encoding) return reply.send(body);
  // pipeline destroys both streams when either fails or the client goes away.
  return reply.header('Content-Encoding', encoding).send(pipeline(body, compressor(encoding), () => undefined));
}
