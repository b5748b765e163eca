/** What every API call throws (architecture.md §7): the status, the server's text, and whether we aborted it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly canceled = false,
    /** Seconds from a `Retry-After` header (E6), when the server sent one. */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export function isApiError(err: unknown): err is ApiError {
  return err instanceof ApiError;
}
