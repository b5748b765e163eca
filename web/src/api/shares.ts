/** Share links and public access (docs/client.md §7 "Shares"; docs/api.md §14, §15). */
import type { PublicResource as PublicResourceJson, PublicUploadShare, Share } from '@coffer/protocol';
import { apiUrl, config } from '../config';
import { encodePath, request, requestJson } from './client';
import type { Resource } from './resources';

export type { PublicUploadShare, Share };

export type ShareUnit = 'seconds' | 'minutes' | 'hours' | 'days';

/** GET /api/shares: the caller's links (every user's for an admin). */
export function listShares(signal?: AbortSignal): Promise<Share[]> {
  return requestJson<Share[]>('/shares', { signal });
}

/** GET /api/share{path}: the links of one item (a folder path ends in `/`). */
export function listItemShares(virtualPath: string, signal?: AbortSignal): Promise<Share[]> {
  return requestJson<Share[]>(`/share${encodePath(virtualPath)}`, { signal });
}

export interface NewShare {
  /** 0 = permanent. */
  duration: number;
  unit: ShareUnit;
  /** Already trimmed; empty = none. */
  password: string;
  /** An upload-only share of a folder (docs/api.md §23.1); limits 0 = none. */
  upload?: { message: string; maxFileSize: number; maxFiles: number; maxBytes: number };
}

/**
 * POST /api/share{path}: `{}` for a permanent link without password; an expiry travels as a
 * decimal string, and in the query as well (docs/api.md §14.4).
 */
export function createShare(virtualPath: string, input: NewShare): Promise<Share> {
  const body: { expires?: string; unit?: ShareUnit; password?: string; kind?: 'upload'; message?: string; maxFileSize?: number; maxFiles?: number; maxBytes?: number } = {};
  let query = '';
  if (input.duration > 0) {
    body.expires = String(input.duration);
    body.unit = input.unit;
    query = `?${new URLSearchParams({ expires: body.expires, unit: input.unit }).toString()}`;
  }
  if (input.password) body.password = input.password;
  if (input.upload) Object.assign(body, { kind: 'upload', ...input.upload });
  return requestJson<Share>(`/share${encodePath(virtualPath)}${query}`, { method: 'POST', json: body });
}

export async function deleteShare(hash: string): Promise<void> {
  await request(`/share/${encodeURIComponent(hash)}`, { method: 'DELETE' });
}

/** The link people open: `{origin}{baseURL}/share/{hash}` (docs/api.md §15.5). */
export function shareLink(hash: string): string {
  return `${window.location.origin}${config.BaseURL}/share/${encodeURIComponent(hash)}`;
}

/** A shared item as GET /api/public/share answers it; `token` only for protected links. */
export interface PublicResource extends Resource, Pick<PublicResourceJson, 'token'> {}

/**
 * GET /api/public/share/{hash}{path}: anonymous, whoever is signed in (no X-Auth), with the
 * password percent-encoded in X-SHARE-PASSWORD, empty when none was typed (docs/api.md §15.3).
 */
export function getPublicShare(
  hash: string,
  virtualPath: string,
  password: string,
  signal?: AbortSignal,
): Promise<PublicResource> {
  return requestJson<PublicResource>(`/public/share/${encodeURIComponent(hash)}${encodePath(virtualPath)}`, {
    signal,
    token: false,
    headers: { 'X-SHARE-PASSWORD': encodeURIComponent(password) },
  });
}

function withToken(params: URLSearchParams, token: string | undefined): string {
  if (token) params.set('token', token);
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** One shared file (or a folder as zip), as an attachment or `inline` for the page to show. */
export function publicDownloadUrl(
  hash: string,
  virtualPath: string,
  token: string | undefined,
  inline = false,
): string {
  const params = new URLSearchParams(inline ? { inline: 'true' } : {});
  return apiUrl(
    `/public/dl/${encodeURIComponent(hash)}${encodePath(virtualPath)}${withToken(params, token)}`,
  );
}

/** Several items of a shared folder as one archive (names relative to `folder`). */
export function publicArchiveUrl(
  hash: string,
  folder: string,
  names: string[],
  algo: string,
  token: string | undefined,
): string {
  const params = new URLSearchParams({ algo });
  if (names.length > 0) params.set('files', names.map((n) => encodeURIComponent(n)).join(','));
  return apiUrl(`/public/dl/${encodeURIComponent(hash)}${encodePath(folder)}${withToken(params, token)}`);
}

/** GET /api/public/upload/{hash}: an upload share's message and room left (docs/api.md §23.2). */
export function getUploadShare(hash: string, password: string, signal?: AbortSignal): Promise<PublicUploadShare> {
  return requestJson<PublicUploadShare>(`/public/upload/${encodeURIComponent(hash)}`, {
    signal,
    token: false,
    headers: { 'X-SHARE-PASSWORD': encodeURIComponent(password) },
  });
}

/** Where a visitor's tus uploads start (docs/api.md §23.3); absolute, as tus-js-client wants it. */
export function uploadShareEndpoint(hash: string): string {
  return new URL(apiUrl(`/public/tus/${encodeURIComponent(hash)}`), window.location.href).href;
}
