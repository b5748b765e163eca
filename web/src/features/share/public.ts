/** The public share page's plain rules (docs/client.md §2 "Public share page", §8; docs/api.md §15). */
import { isApiError } from '../../api/errors';
import { encodePath } from '../../lib/paths';
import { errorCodeOf, type ErrorCode } from '../errors/errorKind';

/** `/share/{hash}/{sub...}`: the first segment is the hash, the rest a path inside the share. */
export function parseShareSplat(splat: string | undefined): { hash: string; path: string } {
  const [hash = '', ...rest] = (splat ?? '').split('/');
  return { hash, path: `/${rest.join('/')}`.replace(/\/{2,}/g, '/') };
}

/** The client route of an item of a share (a folder's route ends in `/`). */
export function shareRoute(hash: string, item: { path: string; isDir: boolean }): string {
  const path = item.path.startsWith('/') ? item.path : `/${item.path}`;
  const dir = item.isDir && !path.endsWith('/') ? `${path}/` : path;
  return `/share/${encodeURIComponent(hash)}${encodePath(dir === '/' ? '/' : dir)}`;
}

export type PageState =
  | { kind: 'ready' }
  | { kind: 'password'; wrong: boolean; retryAfter: number | null }
  | { kind: 'error'; code: ErrorCode };

/**
 * What a failed load shows (docs/client.md §8 "Share page"): 401 asks for the password — saying it was wrong
 * once one was typed —, too many wrong passwords say how long to wait, anything else is the
 * error page.
 */
export function pageState(error: unknown, typedPassword: boolean): PageState {
  if (!error) return { kind: 'ready' };
  if (isApiError(error) && error.status === 401)
    return { kind: 'password', wrong: typedPassword, retryAfter: null };
  if (isApiError(error) && error.status === 429)
    return { kind: 'password', wrong: false, retryAfter: Math.max(1, error.retryAfter ?? 1) };
  return { kind: 'error', code: errorCodeOf(error) };
}

/** Previewable on the page: images, audio and video (docs/client.md §2; docs/api.md §15.4). */
export type PreviewKind = 'image' | 'audio' | 'video';

export function previewKind(item: { isDir: boolean; type: string }): PreviewKind | null {
  if (item.isDir) return null;
  return item.type === 'image' || item.type === 'audio' || item.type === 'video' ? item.type : null;
}
