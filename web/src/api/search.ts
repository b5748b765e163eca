import { encodePath, request } from './client';

export interface SearchResult {
  dir: boolean;
  /** Relative to the searched folder, no leading `/`. */
  path: string;
}

/**
 * GET /api/search{dir}/?query= (api.md §13): newline-delimited JSON, streamed; each result is
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
  if (!res.body) return;
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (value) buffer += value;
    const lines = done ? [buffer] : buffer.split('\n');
    buffer = done ? '' : (lines.pop() ?? '');
    for (const line of lines) {
      if (line.trim()) onResult(JSON.parse(line) as SearchResult);
    }
    if (done) return;
  }
}
