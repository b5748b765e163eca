import { STATUS_CODES } from 'node:http';

/** An error that knows its HTTP status. `detail` is appended to a 400 body as " (detail)" (api.md §1). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail = '',
    options?: ErrorOptions & { headers?: Record<string, string>; emptyBody?: boolean },
  ) {
    super(detail || STATUS_CODES[status] || String(status), options);
    this.headers = options?.headers ?? {};
    this.emptyBody = options?.emptyBody ?? false;
  }
  readonly headers: Record<string, string>;
  readonly emptyBody: boolean;
}
export class BadRequest extends HttpError {
  constructor(detail = '', o?: ErrorOptions) {
    super(400, detail, o);
  }
}
export class Unauthorized extends HttpError {
  constructor(o?: ErrorOptions) {
    super(401, '', o);
  }
}
export class Forbidden extends HttpError {
  constructor(detail = '', o?: ErrorOptions) {
    super(403, detail, o);
  }
}
export class NotFound extends HttpError {
  constructor(detail = '', o?: ErrorOptions) {
    super(404, detail, o);
  }
}
export class MethodNotAllowed extends HttpError {
  constructor() {
    super(405);
  }
}
export class Conflict extends HttpError {
  constructor(detail = '', o?: ErrorOptions) {
    super(409, detail, o);
  }
}
export class PayloadTooLarge extends HttpError {
  constructor(detail = '') {
    super(413, detail);
  }
}
export class TooManyRequests extends HttpError {
  constructor(retryAfterSeconds: number) {
    super(429, '', { headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) }, emptyBody: true });
  }
}

const ERRNO_STATUS: Record<string, number> = {
  ENOENT: 404,
  ENOTDIR: 404,
  EEXIST: 409,
  ENOTEMPTY: 409,
  EACCES: 403,
  EPERM: 403,
  EISDIR: 400,
  ENAMETOOLONG: 400,
  EINVAL: 400,
  ELOOP: 403,
  ENOSPC: 507,
  EFBIG: 507,
  EDQUOT: 507,
  EXDEV: 500,
};

export function isErrno(err: unknown): err is NodeJS.ErrnoException {
  return typeof err === 'object' && err !== null && typeof (err as { code?: unknown }).code === 'string' && 'syscall' in err;
}

/** The one place that turns an error into a status. */
export function statusOf(err: unknown): number {
  if (err instanceof HttpError) return err.status;
  const e = err as { validation?: unknown; statusCode?: number; code?: string };
  if (e && e.validation) return 400;
  if (e && typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) return e.statusCode;
  if (isErrno(err)) return ERRNO_STATUS[err.code!] ?? 500;
  return 500;
}

/** File Browser's status body: "403 Forbidden\n", with " (detail)" on a 400 with a known cause. */
export function statusBody(status: number, detail = ''): string {
  const reason = STATUS_CODES[status] ?? 'Error';
  return detail && status !== 500 ? `${status} ${reason} (${detail})\n` : `${status} ${reason}\n`;
}
