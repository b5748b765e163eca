/**
 * Range and conditional-request logic for file answers (docs/api.md §8.1: RFC 7232/7233 as Go's
 * http.ServeContent applies them). Pure functions; send-file.ts turns their verdicts into answers.
 */

export interface ByteRange {
  start: number;
  /** Inclusive. */
  end: number;
}

export type RangeVerdict =
  { kind: 'full' } | { kind: 'unsatisfiable' } | { kind: 'partial'; ranges: ByteRange[] };

const DIGITS = /^\d+$/;

/**
 * Parses a `Range` header against a file of `size` bytes. A malformed header and a header whose
 * ranges all start past the end are unsatisfiable (416); ranges whose sum exceeds the file (an
 * overlap attack) are ignored and the whole file is sent.
 */
export function parseRange(header: string | undefined, size: number): RangeVerdict {
  if (header === undefined || header === '') return { kind: 'full' };
  if (!header.startsWith('bytes=')) return { kind: 'unsatisfiable' };
  const ranges: ByteRange[] = [];
  let noOverlap = false;
  for (const raw of header.slice(6).split(',')) {
    const spec = raw.trim();
    if (spec === '') continue;
    const dash = spec.indexOf('-');
    if (dash < 0) return { kind: 'unsatisfiable' };
    const a = spec.slice(0, dash).trim();
    const b = spec.slice(dash + 1).trim();
    if (a === '') {
      // Suffix range: the last N bytes.
      if (!DIGITS.test(b)) return { kind: 'unsatisfiable' };
      const n = Math.min(Number(b), size);
      if (n === 0) {
        noOverlap = true;
        continue;
      }
      ranges.push({ start: size - n, end: size - 1 });
      continue;
    }
    if (!DIGITS.test(a)) return { kind: 'unsatisfiable' };
    const start = Number(a);
    if (b !== '' && !DIGITS.test(b)) return { kind: 'unsatisfiable' };
    if (b !== '' && Number(b) < start) return { kind: 'unsatisfiable' };
    if (start >= size) {
      noOverlap = true;
      continue;
    }
    const end = b === '' ? size - 1 : Math.min(Number(b), size - 1);
    ranges.push({ start, end });
  }
  if (ranges.length === 0) return noOverlap ? { kind: 'unsatisfiable' } : { kind: 'full' };
  const total = ranges.reduce((n, r) => n + r.end - r.start + 1, 0);
  if (total > size) return { kind: 'full' };
  return { kind: 'partial', ranges };
}

export interface Validators {
  /** Modification time in milliseconds. */
  mtimeMs: number;
  etag: string;
}

export interface ConditionalHeaders {
  ifMatch?: string;
  ifNoneMatch?: string;
  ifModifiedSince?: string;
  ifUnmodifiedSince?: string;
  ifRange?: string;
}

/** HTTP dates carry whole seconds: compare at that precision. */
function seconds(ms: number): number {
  return Math.floor(ms / 1000);
}

function parseDate(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const t = Date.parse(text);
  return Number.isNaN(t) ? undefined : seconds(t);
}

function etagListMatches(list: string, etag: string, weak: boolean): boolean {
  const norm = (t: string) => (weak ? t.replace(/^W\//, '') : t);
  for (const item of list.split(',')) {
    const t = item.trim();
    if (t === '*') return true;
    if (!weak && t.startsWith('W/')) continue;
    if (norm(t) === norm(etag)) return true;
  }
  return false;
}

/**
 * RFC 7232 §6 precondition order: If-Match, If-Unmodified-Since (412), If-None-Match,
 * If-Modified-Since (304 on GET/HEAD).
 */
export function checkPreconditions(
  h: ConditionalHeaders,
  v: Validators,
  method: string,
): 'ok' | 'not-modified' | 'failed' {
  const mtime = seconds(v.mtimeMs);
  if (h.ifMatch !== undefined) {
    if (!etagListMatches(h.ifMatch, v.etag, false)) return 'failed';
  } else {
    const ius = parseDate(h.ifUnmodifiedSince);
    if (ius !== undefined && mtime > ius) return 'failed';
  }
  const safe = method === 'GET' || method === 'HEAD';
  if (h.ifNoneMatch !== undefined) {
    if (etagListMatches(h.ifNoneMatch, v.etag, true)) return safe ? 'not-modified' : 'failed';
  } else if (safe) {
    const ims = parseDate(h.ifModifiedSince);
    if (ims !== undefined && mtime <= ims) return 'not-modified';
  }
  return 'ok';
}

/** If-Range: ranges apply only when the validator still matches (strong ETag or exact date). */
export function ifRangeAllows(ifRange: string | undefined, v: Validators): boolean {
  if (ifRange === undefined || ifRange === '') return true;
  const t = ifRange.trim();
  if (t.startsWith('"') || t.startsWith('W/')) return !t.startsWith('W/') && t === v.etag;
  const d = parseDate(t);
  return d !== undefined && d === seconds(v.mtimeMs);
}
