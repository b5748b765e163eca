/**
 * tus 1.0.0 wire details (docs/api.md §13, S50): header names, strict integer parsing, the headers
 * every answer carries.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { BadRequest, HttpError } from '../../http/errors.js';

export const TUS_VERSION = '1.0.0';
export const TUS_EXTENSIONS = 'creation,termination';
export const PATCH_CONTENT_TYPE = 'application/offset+octet-stream';
/** docs/api.md §13.4: a refused PATCH body is read and thrown away up to this much, else the connection closes. */
export const DISCARD_LIMIT = 32 * 1024 * 1024;

const DECIMAL = /^[0-9]+$/;

export type ParsedInt = { ok: true; value: number } | { ok: false; reason: 'missing' | 'malformed' | 'too-large' };

/**
 * A tus integer header: decimal digits only (no sign, exponent, spaces or empty value), at most
 * Number.MAX_SAFE_INTEGER. Repeated headers are refused.
 */
export function parseTusInt(raw: string | string[] | undefined): ParsedInt {
  if (raw === undefined) return { ok: false, reason: 'missing' };
  if (Array.isArray(raw) || !DECIMAL.test(raw)) return { ok: false, reason: 'malformed' };
  const digits = raw.replace(/^0+(?=.)/, '');
  if (digits.length > 16) return { ok: false, reason: 'too-large' };
  const value = Number(digits);
  if (!Number.isSafeInteger(value)) return { ok: false, reason: 'too-large' };
  return { ok: true, value };
}

/** One header value, or undefined when absent; a repeated header counts as malformed input. */
export function single(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  if (Array.isArray(v)) throw new BadRequest(`repeated ${name}`);
  return v;
}

/** `Tus-Resumable` other than 1.0.0 → 412 (a request without it is accepted, as in File Browser). */
export function checkVersion(headers: IncomingHttpHeaders): void {
  const v = headers['tus-resumable'];
  if (v === undefined || v === TUS_VERSION) return;
  throw new HttpError(412, '', { headers: { 'Tus-Version': TUS_VERSION } });
}

/** `Content-Type` of a PATCH: exactly application/offset+octet-stream (parameters are not allowed). */
export function isPatchContentType(v: string | undefined): boolean {
  return typeof v === 'string' && v.trim().toLowerCase() === PATCH_CONTENT_TYPE;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const META_KEY = /^[!-+\--~]+$/; // printable ASCII, no space or comma

/**
 * `Upload-Metadata` (tus 1.0 creation): comma-separated `key base64value` pairs. Strict: a key
 * twice, a key out of printable ASCII, padding or letters base64 does not have, or a value that
 * is not UTF-8 → 400.
 */
export function parseUploadMetadata(raw: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (raw === undefined || raw.trim() === '') return out;
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  for (const pair of raw.split(',')) {
    const [key, value = '', ...rest] = pair.trim().split(' ');
    if (!key || !META_KEY.test(key) || rest.length > 0 || out.has(key) || !BASE64.test(value)) throw new BadRequest('invalid Upload-Metadata');
    try {
      out.set(key, utf8.decode(Buffer.from(value, 'base64')));
    } catch {
      throw new BadRequest('invalid Upload-Metadata');
    }
  }
  return out;
}

/** Reads and throws away what is left of a refused body, up to the limit; false if more remains. */
export async function discard(it: AsyncIterator<Buffer>, limit: number): Promise<boolean> {
  let seen = 0;
  try {
    for (;;) {
      const next = await it.next();
      if (next.done) return true;
      seen += next.value.length;
      if (seen > limit) return false;
    }
  } catch {
    return false;
  }
}
