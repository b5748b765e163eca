import { BadRequest, Forbidden } from '../http/errors.js';

export interface CanonicalPath {
  /** Always starts with "/", no empty, "." or ".." segment; "/" for the root of the area. */
  path: string;
  /** The request ended in "/" ("folder" for POST and listings); never used for rule matching. */
  trailingSlash: boolean;
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * S1, the one canonical path function: decode once (when asked), refuse control characters and
 * bad escapes/UTF-8 (400), split on "/" only, drop "" and ".", resolve ".." lexically, and answer
 * 403 when ".." would climb above the root of the area.
 */
export function canonicalPath(raw: string, opts: { decode?: boolean } = {}): CanonicalPath {
  let text = raw;
  if (opts.decode) text = percentDecode(raw);
  if (CONTROL.test(text)) throw new BadRequest('invalid character in path');
  if (text.includes('\ufffd') && !raw.includes('\ufffd')) throw new BadRequest('invalid UTF-8 in path');
  const out: string[] = [];
  for (const seg of text.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length === 0) throw new Forbidden('path escapes its area');
      out.pop();
      continue;
    }
    out.push(seg);
  }
  return { path: '/' + out.join('/'), trailingSlash: text.length > 1 && text.endsWith('/') };
}

/** Percent-decodes exactly once; invalid escapes or invalid UTF-8 (overlong forms too) → 400. */
export function percentDecode(raw: string): string {
  if (!raw.includes('%')) return raw;
  const bytes: number[] = [];
  const src = Buffer.from(raw, 'utf8');
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (c === 0x25) {
      const hex = src.subarray(i + 1, i + 3).toString('latin1');
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) throw new BadRequest('invalid percent escape in path');
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else bytes.push(c);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes));
  } catch {
    throw new BadRequest('invalid UTF-8 in path');
  }
}

/** Joins a canonical area root (e.g. a scope "/users/a") and a canonical path inside it. */
export function joinVirtual(base: string, inner: string): string {
  if (base === '/' || base === '') return inner;
  return inner === '/' ? base : base + inner;
}
