import type { SearchHit } from '@coffer/protocol';
import { encodePath, request } from './client';
import { forEachJsonLine } from './lines';

/** One hit: `path` is relative to the searched folder, no leading `/`. */
export type SearchResult = SearchHit;

/**
 * GET /api/search{dir}/?query= (docs/api.md §12): newline-delimited JSON, streamed; each result is
 * handed to `onResult` as it arrives. Empty keep-alive lines are skipped.
 */
export async function search(
  dir: string,
  query: string,
  onResult: (r: SearchResult) => void,
  signal?: AbortSignal,
): Promise<void> {
  const folder = dir.endsWith('/') ? dir : `${dir}/`;
  const res = await request(`/search${encodePath(folder)}?query=${encodeURIComponent(query)}`, { signal });
  await forEachJsonLine(res, onResult);
}
