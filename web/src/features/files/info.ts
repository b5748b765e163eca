/** What the info prompt shows, as plain data (docs/client.md §2 prompt "info"). */

/** docs/api.md §7.3: the digests GET /api/resources{path}?checksum= computes. */
export const CHECKSUM_ALGORITHMS = ['md5', 'sha1', 'sha256', 'sha512'] as const;
export type ChecksumAlgorithm = (typeof CHECKSUM_ALGORITHMS)[number];

/** How each algorithm is written; the same in every language. */
export const CHECKSUM_LABEL: Record<ChecksumAlgorithm, string> = {
  md5: 'MD5',
  sha1: 'SHA-1',
  sha256: 'SHA-256',
  sha512: 'SHA-512',
};

export interface Summary {
  count: number;
  dirs: number;
  files: number;
  /** Bytes of the files; a folder's own size is its directory entry, not its content. */
  bytes: number;
}

export function summarize(items: readonly { isDir: boolean; size: number }[]): Summary {
  let dirs = 0;
  let bytes = 0;
  for (const item of items) {
    if (item.isDir) dirs += 1;
    else bytes += Math.max(0, item.size);
  }
  return { count: items.length, dirs, files: items.length - dirs, bytes };
}

export const TYPE_KEYS = [
  'image',
  'video',
  'audio',
  'pdf',
  'text',
  'textImmutable',
  'blob',
  'invalid_link',
] as const;
export type TypeKey = (typeof TYPE_KEYS)[number];

/** The label key of a resource's `type` (docs/api.md §7.4); unknown types read as binary. */
export function typeKey(item: { isDir: boolean; type: string }): TypeKey | 'folder' {
  if (item.isDir) return 'folder';
  return (TYPE_KEYS as readonly string[]).includes(item.type) ? (item.type as TypeKey) : 'blob';
}

export interface Resolution {
  width: number;
  height: number;
}

/** A resource's own `resolution` when the server sent a usable one. */
export function resolutionOf(item: { resolution?: unknown }): Resolution | null {
  const r = item.resolution as Partial<Resolution> | undefined;
  if (!r || typeof r !== 'object') return null;
  const { width, height } = r;
  if (typeof width !== 'number' || typeof height !== 'number' || !(width > 0) || !(height > 0)) return null;
  return { width, height };
}
