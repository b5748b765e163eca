/**
 * Type detection (docs/api.md §7.4): the MIME type from the extension; header sniffing
 * (first 512 bytes) only for the single-file answer and only when enabled; listings never open a
 * file (S85).
 */
import type { ResourceType } from '@coffer/protocol';
import mime from 'mime';

export type { ResourceType };

/** docs/api.md §7.4: text content and the `text` type stop at 10 MiB (S81). */
export const MAX_TEXT_SIZE = 10 * 1024 * 1024;
/** Bytes read for sniffing and the binary check. */
export const HEADER_BYTES = 512;

/** File Browser's own additions to the platform table (docs/api.md §7.4). */
const EXTRA: Record<string, string> = {
  '.mkv': 'video/x-matroska',
  '.m4v': 'video/mp4',
  '.opus': 'video/ogg',
  '.flac': 'audio/x-flac',
  '.m4a': 'audio/mp4',
  '.webp': 'image/webp',
  '.md': 'text/markdown',
  '.txt': 'text/plain',
  '.conf': 'text/plain',
};

const byExt = new Map<string, string>();

/** Extension including the dot, last dot only; "" without one; `.bashrc` → ".bashrc" (docs/api.md §7.1). */
export function extensionOf(name: string): string {
  const i = name.lastIndexOf('.');
  return i < 0 ? '' : name.slice(i);
}

/** MIME type for an extension ("" when unknown). Cached: a listing asks for many names. */
export function mimeByExtension(ext: string): string {
  if (!ext) return '';
  const key = ext.toLowerCase();
  let m = byExt.get(key);
  if (m === undefined) {
    m = EXTRA[key] ?? mime.getType(key.slice(1)) ?? '';
    if (byExt.size < 10_000) byExt.set(key, m);
  }
  return m;
}

function startsWith(buf: Uint8Array, sig: string, at = 0): boolean {
  if (buf.length < at + sig.length) return false;
  for (let i = 0; i < sig.length; i++) if (buf[at + i] !== sig.charCodeAt(i)) return false;
  return true;
}

/**
 * The binary-signature part of the WHATWG / Go `http.DetectContentType` table: what can change
 * the decision (video, audio, image, pdf). Text is decided by the binary check instead.
 */
export function sniffMime(head: Uint8Array): string {
  if (startsWith(head, '%PDF-')) return 'application/pdf';
  if (startsWith(head, '\x89PNG\r\n\x1a\n')) return 'image/png';
  if (startsWith(head, '\xff\xd8\xff')) return 'image/jpeg';
  if (startsWith(head, 'GIF87a') || startsWith(head, 'GIF89a')) return 'image/gif';
  if (startsWith(head, 'BM')) return 'image/bmp';
  if (startsWith(head, '\x00\x00\x01\x00') || startsWith(head, '\x00\x00\x02\x00')) return 'image/x-icon';
  if (startsWith(head, 'RIFF') && startsWith(head, 'WEBPVP', 8)) return 'image/webp';
  if (startsWith(head, 'RIFF') && startsWith(head, 'AVI ', 8)) return 'video/avi';
  if (startsWith(head, 'RIFF') && startsWith(head, 'WAVE', 8)) return 'audio/wave';
  if (startsWith(head, 'FORM') && startsWith(head, 'AIFF', 8)) return 'audio/aiff';
  if (startsWith(head, 'ID3')) return 'audio/mpeg';
  if (startsWith(head, '.snd')) return 'audio/basic';
  if (startsWith(head, 'MThd\x00\x00\x00\x06')) return 'audio/midi';
  if (startsWith(head, '\x1a\x45\xdf\xa3')) return 'video/webm';
  if (startsWith(head, 'ftyp', 4) && head.length >= 12) {
    const boxSize = ((head[0]! << 24) | (head[1]! << 16) | (head[2]! << 8) | head[3]!) >>> 0;
    if (boxSize % 4 === 0 && boxSize >= 12 && boxSize <= head.length) {
      for (let at = 8; at + 4 <= boxSize; at += 4) {
        if (at === 12) continue; // the minor version, not a brand
        if (startsWith(head, 'mp4', at)) return 'video/mp4';
      }
    }
  }
  return '';
}

/**
 * docs/api.md §7.4: binary = a code point ≤ 8, or invalid UTF-8 that is not just a multi-byte character
 * cut off at the end of the window. An empty buffer is not binary.
 */
export function isBinary(head: Uint8Array, truncated: boolean): boolean {
  for (const b of head) if (b <= 8) return true;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    decoder.decode(head);
    return false;
  } catch {
    if (!truncated) return true;
  }
  // Drop an incomplete trailing sequence (at most 3 bytes) and try again.
  for (let cut = 1; cut <= 3 && cut < head.length; cut++) {
    const b = head[head.length - cut]!;
    if ((b & 0xc0) === 0xc0) {
      try {
        decoder.decode(head.subarray(0, head.length - cut));
        return false;
      } catch {
        return true;
      }
    }
    if ((b & 0xc0) !== 0x80) break;
  }
  return true;
}

export interface DetectInput {
  name: string;
  /** `extensionOf(name)` when the caller has it already. */
  extension?: string;
  size: number;
  /** Not a regular file (pipe, socket, device): never opened, typed `blob`. */
  special: boolean;
  /** First bytes of the file (single-file answer); absent in listings. */
  head?: Uint8Array;
  /** Header sniffing enabled (server flag disableTypeDetectionByHeader off). */
  sniff: boolean;
  /** The user may modify (else text is `textImmutable`). Listings pass true. */
  canModify: boolean;
}

/** Type of a file (folders are `""` and never come here). */
export function detectType(input: DetectInput): ResourceType {
  if (input.special) return 'blob';
  let m = mimeByExtension(input.extension ?? extensionOf(input.name));
  const head = input.head;
  if (!m && head && input.sniff) m = sniffMime(head);
  if (m.startsWith('video')) return 'video';
  if (m.startsWith('audio')) return 'audio';
  if (m.startsWith('image')) return 'image';
  if (m.endsWith('pdf')) return 'pdf';
  // Without the header (listings, S85) a file is text when small enough, as with sniffing off.
  const textual = head ? m.startsWith('text') || !isBinary(head, input.size > head.length) : true;
  if (textual && input.size <= MAX_TEXT_SIZE) return input.canModify ? 'text' : 'textImmutable';
  return 'blob';
}
