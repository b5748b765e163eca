/** When a resumable upload tries again (docs/client.md §4 "Resumable upload", §9 retry delays). */
import { RETRY_BASE_MS, RETRY_CAP_MS } from '../../lib/limits';

/** docs/client.md §9: 0, then 1000 ms doubling, capped at 20000 ms, `retryCount` entries; none below 1. */
export function retryDelays(retryCount: number): number[] {
  const count = Number.isFinite(retryCount) ? Math.floor(retryCount) : 0;
  const delays: number[] = [];
  for (let i = 0; i < count; i++)
    delays.push(i === 0 ? 0 : Math.min(RETRY_BASE_MS * 2 ** (i - 1), RETRY_CAP_MS));
  return delays;
}

/**
 * docs/client.md §4: retried on network and server errors and on 423, never on 409 (our offset is stale: the same
 * request can never succeed) nor on other 4xx. 507 (disk full) is not retried either: nothing
 * frees space within the retry delays, and the user should read the reason at once.
 */
export function shouldRetry(status: number): boolean {
  if (status === 0 || status === 423) return true;
  return status >= 500 && status !== 507;
}
