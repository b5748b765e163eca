/**
 * Which screen opens a file (docs/client.md §2: text files open in an editor, other files in a preview) and
 * the URLs the preview loads (docs/client.md §7 "Downloads and media"; docs/api.md §8–§10).
 */
import type { Resource } from '../../api/resources';
import { apiUrl } from '../../config';
import { encodePath } from '../../lib/paths';

export type FileScreen =
  | { kind: 'editor'; readOnly: boolean }
  | { kind: 'preview' };

interface Perms {
  modify: boolean;
}

/**
 * The editor needs the text: the server sends `content` for text files of at most 10 MiB to users
 * with the download permission, and leaves it out when the file is empty (docs/api.md §7.3, S81). A text
 * file without content (too large, or no download permission) gets the preview card.
 */
export function fileScreen(file: Resource, perm: Perms | undefined): FileScreen {
  const text = file.type === 'text' || file.type === 'textImmutable';
  if (!text || (file.content === undefined && file.size > 0)) return { kind: 'preview' };
  return { kind: 'editor', readOnly: file.type === 'textImmutable' || !perm?.modify };
}

/** An image fitted inside 1080×1080; the modification time keys the browser cache. */
export function bigPreviewUrl(virtualPath: string, modified: string): string {
  return apiUrl(`/preview/big${encodePath(virtualPath)}?inline=true&key=${Date.parse(modified)}`);
}

/** A subtitle file as WebVTT (the server converts .srt and .ass/.ssa). */
export function subtitleUrl(virtualPath: string): string {
  return apiUrl(`/subtitle${encodePath(virtualPath)}?inline=true`);
}
