/**
 * Compressed JSON answers for big bodies (folder listings): a listing of 100,000 entries is
 * ~18 MB of JSON but ~0.5 MB as brotli, compressed in ~20 ms off the event loop. Only when the
 * client asks for it (`Accept-Encoding`); clients that send none — curl, most scripts — get the
 * plain bytes as before. Only for bodies without secrets: a compressed secret beside text an
 * attacker chose leaks through the size (BREACH). Public share answers carry a token: never here.
 */
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Below this, compressing gains nothing worth a thread-pool round trip. */
export const COMPRESS_MIN_BYTES = 32 * 1024;

export type Encoding = 'br' | 'gzip';

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

/**
 * The coding to use for an `Accept-Encoding` value: brotli when accepted (it also decodes several
 * times faster than gzip in the browser), else gzip, else none. `q=0` refuses a coding, `*`
 * stands for any coding not named.
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

export function compress(body: Buffer, encoding: Encoding): Promise<Buffer> {
  if (encoding === 'gzip') return gz(body, { level: 1 });
  return brotli(body, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 1,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
    },
  });
}

/** Sends a JSON body, compressed when it is big and the client accepts a coding. */
export async function sendJson(req: FastifyRequest, reply: FastifyReply, json: Buffer | string): Promise<FastifyReply> {
  const body = typeof json === 'string' ? Buffer.from(json, 'utf8') : json;
  reply.type('application/json; charset=utf-8');
  if (body.length < COMPRESS_MIN_BYTES) return reply.send(body);
  reply.header('Vary', 'Accept-Encoding');
  const encoding = chooseEncoding(req.headers['accept-encoding']);
  if (!encoding) return reply.send(body);
  return reply.header('Content-Encoding', encoding).send(await compress(body, encoding));
}
