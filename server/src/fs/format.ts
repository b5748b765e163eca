/** Go-compatible renderings of stat data that File Browser's JSON carries (docs/api.md §7.1). */
import { constants } from 'node:fs';

const S_IFMT = constants.S_IFMT;

// Go os.FileMode type bits.
const MODE_DIR = 2 ** 31;
const MODE_SYMLINK = 2 ** 27;
const MODE_DEVICE = 2 ** 26;
const MODE_NAMED_PIPE = 2 ** 25;
const MODE_SOCKET = 2 ** 24;
const MODE_SETUID = 2 ** 23;
const MODE_SETGID = 2 ** 22;
const MODE_CHAR_DEVICE = 2 ** 21;
const MODE_STICKY = 2 ** 20;

/** POSIX st_mode → Go os.FileMode as an unsigned 32-bit number (a 0644 file is 420, a 0755 folder 2147484141). */
export function goFileMode(stMode: number): number {
  let m = stMode & 0o777;
  switch (stMode & S_IFMT) {
    case constants.S_IFDIR:
      m += MODE_DIR;
      break;
    case constants.S_IFLNK:
      m += MODE_SYMLINK;
      break;
    case constants.S_IFIFO:
      m += MODE_NAMED_PIPE;
      break;
    case constants.S_IFSOCK:
      m += MODE_SOCKET;
      break;
    case constants.S_IFBLK:
      m += MODE_DEVICE;
      break;
    case constants.S_IFCHR:
      m += MODE_DEVICE + MODE_CHAR_DEVICE;
      break;
  }
  if (stMode & 0o4000) m += MODE_SETUID;
  if (stMode & 0o2000) m += MODE_SETGID;
  if (stMode & 0o1000) m += MODE_STICKY;
  return m;
}

export function isRegularMode(stMode: number): boolean {
  return (stMode & S_IFMT) === constants.S_IFREG;
}
export function isDirMode(stMode: number): boolean {
  return (stMode & S_IFMT) === constants.S_IFDIR;
}

const pad2 = (n: number) => (n < 10 ? '0' : '') + n;

/** The whole-second part and the zone suffix of rfc3339Nano, which a listing caches per second. */
function secondParts(sec: number): [string, string] {
  const ms = sec * 1000;
  const offsetMin = -new Date(ms).getTimezoneOffset();
  const d = new Date(ms + offsetMin * 60_000);
  const s =
    String(d.getUTCFullYear()).padStart(4, '0') +
    '-' + pad2(d.getUTCMonth() + 1) +
    '-' + pad2(d.getUTCDate()) +
    'T' + pad2(d.getUTCHours()) +
    ':' + pad2(d.getUTCMinutes()) +
    ':' + pad2(d.getUTCSeconds());
  if (offsetMin === 0) return [s, 'Z'];
  const a = Math.abs(offsetMin);
  return [s, (offsetMin < 0 ? '-' : '+') + pad2(Math.floor(a / 60)) + ':' + pad2(a % 60)];
}

/** ".123" for 123,000,000 ns: nine digits without the trailing zeros; "" for none. */
export function fraction(nsec: number): string {
  if (!(nsec > 0)) return '';
  let digits = 9;
  while (nsec % 10 === 0) {
    nsec /= 10;
    digits--;
  }
  return '.' + String(nsec).padStart(digits, '0');
}

/**
 * Go's RFC 3339 with nanoseconds (time.RFC3339Nano, as in File Browser's JSON): the server's local
 * offset ("Z" for UTC), the fraction present only when non-zero and without trailing zeros.
 */
export function rfc3339Nano(sec: number, nsec: number): string {
  const [whole, zone] = secondParts(sec);
  return whole + fraction(nsec) + zone;
}

/** rfc3339Nano with a per-second cache, for the many entries of one listing (files share seconds). */
export function cachedRfc3339Nano(): (sec: number, nsec: number) => string {
  const cache = new Map<number, [string, string]>();
  return (sec, nsec) => {
    let parts = cache.get(sec);
    if (!parts) {
      if (cache.size > 50_000) cache.clear();
      parts = secondParts(sec);
      cache.set(sec, parts);
    }
    return parts[0] + fraction(nsec) + parts[1];
  };
}

/** mtime of a bigint stat as (seconds, nanoseconds). */
export function splitNs(ns: bigint): { sec: number; nsec: number } {
  let sec = ns / 1_000_000_000n;
  let nsec = ns % 1_000_000_000n;
  if (nsec < 0n) {
    nsec += 1_000_000_000n;
    sec -= 1n;
  }
  return { sec: Number(sec), nsec: Number(nsec) };
}

/** docs/api.md §7.7 POST/PUT: `ETag: "<hex of mtime in ns><hex of size>"`. */
export function etagOf(mtimeNs: bigint, size: number | bigint): string {
  return `"${mtimeNs.toString(16)}${BigInt(size).toString(16)}"`;
}
