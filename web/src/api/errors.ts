/** What every API call throws (docs/client.md §7): the status, the server's text, and whether we aborted it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly canceled = false,
    /** Seconds from a `Retry-After` header (E6), when the server sent one. */
    readonly retryAfter: number | null = null,
    /** `X-Second-Factor` of a 401 from /api/login: the password was right, a code is needed (docs/api.md §2.12). */
    readonly secondFactor: string | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export function isApiError(err: unknown): err is ApiError {
  return err instanceof ApiError;
}
