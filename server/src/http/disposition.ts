/**
 * Content-Disposition for file answers (S61): `<kind>; filename="<ascii>"; filename*=utf-8''<pct>`.
 * The header is one line of printable ASCII whatever the name holds, so a name can never inject
 * a header or a parameter.
 */

// RFC 5987 attr-char, minus the few File Browser leaves literal: only unreserved characters stay.
const ATTR_CHAR = /[A-Za-z0-9\-._~]/;

/** RFC 5987 percent-encoding of the UTF-8 bytes of `name` (every byte but A–Z a–z 0–9 - . _ ~). */
export function rfc5987(name: string): string {
  let out = '';
  for (const byte of Buffer.from(name.toWellFormed(), 'utf8')) {
    const ch = String.fromCharCode(byte);
    out += byte < 0x80 && ATTR_CHAR.test(ch) ? ch : '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/** The plain `filename` fallback: non-ASCII, `"`, `\`, `;`, `%` and control characters become `_`. */
export function asciiFallback(name: string): string {
  let out = '';
  for (const ch of name) {
    const c = ch.codePointAt(0)!;
    out += c < 0x20 || c > 0x7e || ch === '"' || ch === '\\' || ch === ';' || ch === '%' ? '_' : ch;
  }
  return out || '_';
}

export function contentDisposition(kind: 'inline' | 'attachment', name: string): string {
  return `${kind}; filename="${asciiFallback(name)}"; filename*=utf-8''${rfc5987(name)}`;
}
