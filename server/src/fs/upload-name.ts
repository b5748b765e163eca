/**
 * Names of files sent by visitors of an upload share (docs/api.md §23.3). A visitor chooses only
 * a name, never a place: whatever it holds is reduced to one plain segment for the shared folder.
 */
import { isTempName } from './names.js';

/** Linux's NAME_MAX, in bytes. */
const NAME_MAX_BYTES = 255;
/** Bytes kept free for a " (n)" suffix added when the name is taken. */
const SUFFIX_ROOM = 12;
/** The name given when nothing usable is left. */
export const FALLBACK_NAME = 'upload';
/** Names Windows reserves for devices (with or without an extension): a share's folder may be synced to Windows. */
const DEVICE = /^(?:con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])\s*(?:\..*)?$/i;
/**
 * Controls (C0, C1, DEL), line and paragraph separators, and every format character: the marks
 * that reorder or hide text (bidi marks, overrides and isolates, the Arabic letter mark),
 * zero-width spaces and joiners, soft hyphens, tags, the BOM — none belongs in a file name, and
 * any of them would let two names that look alike, or a name that looks like a dotfile, differ.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;
/** Dots and spaces (any Unicode space) at either end, removed together until none is left. */
const LEADING = /^[.\s]+/u;
const TRAILING = /[.\s]+$/u;

/** Cuts `s` to at most `max` UTF-8 bytes without splitting a character. */
function cutBytes(s: string, max: number): string {
  if (Buffer.byteLength(s) <= max) return s;
  let out = '';
  for (const ch of s) {
    if (Buffer.byteLength(out + ch) > max) break;
    out += ch;
  }
  return out;
}

/** `name` split into base and extension (".tar.gz" counts as ".gz"; a leading dot is no extension). */
function splitExt(name: string): [string, string] {
  const i = name.lastIndexOf('.');
  return i <= 0 ? [name, ''] : [name.slice(0, i), name.slice(i)];
}

/**
 * One safe file name from what a visitor sent: the last segment after any `/` or `\`, without
 * control and invisible characters, leading dots (no hidden files), surrounding spaces and
 * trailing dots; never `.`/`..`, a Windows device name or a name Coffer keeps for itself; at
 * most 255 bytes with room for a suffix (the extension is kept). Empty → "upload".
 */
export function cleanUploadName(raw: string): string {
  let name = raw.normalize('NFC').replace(INVISIBLE, '');
  name = name.split(/[/\\]/).pop() ?? '';
  // Together: removing dots first and spaces after would leave ". .htaccess" a hidden file.
  name = name.replace(LEADING, '').replace(TRAILING, '');
  if (name === '') return FALLBACK_NAME;
  if (DEVICE.test(name) || isTempName(name)) name = `_${name}`;
  const max = NAME_MAX_BYTES - SUFFIX_ROOM;
  if (Buffer.byteLength(name) > max) {
    const [base, ext] = splitExt(name);
    const keptExt = Buffer.byteLength(ext) <= 32 ? ext : '';
    name = cutBytes(base, max - Buffer.byteLength(keptExt)).trim() + keptExt;
  }
  return name;
}

/** The n-th name tried when `name` is taken: "report (1).pdf", "report (2).pdf"… (n ≥ 1). */
export function suffixedName(name: string, n: number): string {
  const [base, ext] = splitExt(name);
  return `${base} (${n})${ext}`;
}
