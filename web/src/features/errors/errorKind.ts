import { isApiError } from '../../api/errors';

/** Which error page a failed load shows (docs/client.md §8 "Files page load"): 0, 403, 404, else 500. */
export type ErrorCode = 0 | 403 | 404 | 500;

export function errorCodeOf(err: unknown): ErrorCode {
  if (!isApiError(err)) return 500;
  if (err.status === 0 || err.status === 403 || err.status === 404) return err.status;
  return 500;
}
