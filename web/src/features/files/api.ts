/** The resource calls the file browser makes (docs/client.md §7 "Resources", "Downloads and media"; docs/api.md §7–§9). */
import { request, requestJson } from '../../api/client';
import { apiUrl } from '../../config';
import { encodePath } from '../../lib/paths';
import type { ChecksumAlgorithm } from './info';

/** POST: a path ending in `/` creates a folder, otherwise an empty file. Never overwrites (409). */
export async function createResource(virtualPath: string): Promise<void> {
  await request(`/resources${encodePath(virtualPath)}?override=false`, { method: 'POST' });
}

export async function deleteResource(virtualPath: string): Promise<void> {
  await request(`/resources${encodePath(virtualPath)}`, { method: 'DELETE' });
}

/** PATCH ?action=rename|copy, never overwriting. */
export async function patchResource(
  action: 'rename' | 'copy',
  from: string,
  to: string,
  options: { override?: boolean; rename?: boolean } = {},
): Promise<void> {
  const q = new URLSearchParams({
    action,
    destination: encodePath(to),
    override: String(options.override ?? false),
    rename: String(options.rename ?? false),
  });
  await request(`/resources${encodePath(from)}?${q.toString()}`, { method: 'PATCH' });
}

/** docs/api.md §8.2: the `algo` names, each with the file extension the prompt shows. */
export const ARCHIVE_FORMATS = {
  zip: '.zip',
  tar: '.tar',
  targz: '.tar.gz',
  tarbz2: '.tar.bz2',
  tarxz: '.tar.xz',
  tarlz4: '.tar.lz4',
  tarsz: '.tar.sz',
  tarbr: '.tar.br',
  tarzst: '.tar.zst',
} as const;
export type ArchiveFormat = keyof typeof ARCHIVE_FORMATS;

/** A single file, downloaded as an attachment (the auth cookie authenticates browser GETs). */
export function rawUrl(virtualPath: string): string {
  return apiUrl(`/raw${encodePath(virtualPath)}`);
}

/**
 * Several items of `folder` as one archive (docs/api.md §8.2: names relative to the folder, each
 * encoded, then the comma list encoded once more).
 */
export function archiveUrl(folder: string, names: string[], algo: ArchiveFormat): string {
  const files = encodeURIComponent(names.map((n) => encodeURIComponent(n)).join(','));
  return apiUrl(`/raw${encodePath(folder)}?files=${files}&algo=${algo}`);
}

/** A 256×256 thumbnail; the modification time keys the browser cache. */
export function thumbUrl(virtualPath: string, modified: string): string {
  return apiUrl(`/preview/thumb${encodePath(virtualPath)}?inline=true&key=${Date.parse(modified)}`);
}

/** A file for the browser to show (images, media): `inline=true` keeps its own content type. */
export function inlineUrl(virtualPath: string): string {
  return apiUrl(`/raw${encodePath(virtualPath)}?inline=true`);
}

/** GET /api/resources{path}?checksum= (docs/api.md §7.3): the lowercase hex digest. Needs download. */
export async function getChecksum(
  virtualPath: string,
  algo: ChecksumAlgorithm,
  signal?: AbortSignal,
): Promise<string> {
  const res = await requestJson<{ checksums?: Record<string, string> }>(
    `/resources${encodePath(virtualPath)}?checksum=${algo}`,
    { signal },
  );
  const digest = res.checksums?.[algo];
  if (!digest) throw new Error(`no ${algo} checksum`);
  return digest;
}
