import { HEADER_BYTES, extensionOf, isBinary, mimeByExtension, sniffMime } from '../fs/types.js';
import { readHead } from '../fs/read.js';
import type { ScopedPath } from '../fs/resolve.js';

function withCharset(type: string): string {
  return type.startsWith('text/') && !type.includes('charset') ? `${type}; charset=utf-8` : type;
}

/**
 * The type an inline answer carries (docs/api.md §8.1): from the extension, else sniffed from the first
 * 512 bytes (text when they are not binary).
 */
export async function inlineContentType(p: ScopedPath, name: string): Promise<string> {
  const byExt = mimeByExtension(extensionOf(name));
  if (byExt) return withCharset(byExt);
  const size = p.stat?.size ?? 0;
  if (size === 0) return 'text/plain; charset=utf-8';
  const head = await readHead(p, HEADER_BYTES);
  const sniffed = sniffMime(head);
  if (sniffed) return sniffed;
  return isBinary(head, size > head.length) ? 'application/octet-stream' : 'text/plain; charset=utf-8';
}
