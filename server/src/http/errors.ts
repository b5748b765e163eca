import { STATUS_CODES } from 'node:http';

/** An error that knows its HTTP status. `detail` is appended to a 400 body as " (detail)" (docs/api.md §1.2). */
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
/** 507: the disk (or the user's quota on it) is full. The message is written for users, like a 4xx's. */
export class InsufficientStorage extends HttpError {
  constructor(detail = 'the disk is full') {
    super(507, detail);
  }
}
export class TooManyRequests extends HttpError {
  constructor(retryAfterSeconds: number) {
    super(429, '', { headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) }, emptyBody: true });
  }
}

/**
 * Node's filesystem errors by code (docs/api.md §1.5): the status, and the reason a 400 carries
 * (docs/api.md §1.2). Node's own message names absolute paths (`ENAMETOOLONG: name too long,
 * mkdir '/srv/…'`) and never leaves the server. A code not listed is a 500.
 */
const ERRNO: Record<string, { status: number; detail?: string }> = {
  ENOENT: { status: 404 },
  ENOTDIR: { status: 409 }, // a parent is a file
  EISDIR: { status: 409 }, // a folder is in the way
  EEXIST: { status: 409 },
  ENOTEMPTY: { status: 409 },
  EBUSY: { status: 409 },
  EACCES: { status: 403 },
  EPERM: { status: 403 },
  EROFS: { status: 403 },
  ELOOP: { status: 403 },
  ENAMETOOLONG: { status: 400, detail: 'name too long' },
  EINVAL: { status: 400, detail: 'invalid name' },
  ENOSPC: { status: 507 },
  EDQUOT: { status: 507 },
  EFBIG: { status: 507 },
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
  if (isErrno(err)) return ERRNO[err.code!]?.status ?? 500;
  return 500;
}

/** The reason of a filesystem error fit for a client: a fixed text per code, never Node's message. */
export function errnoDetail(err: unknown): string {
  return (isErrno(err) && ERRNO[err.code!]?.detail) || '';
}

/** File Browser's status body: "403 Forbidden\n", with " (detail)" on a 400 with a known cause. */
export function statusBody(status: number, detail = ''): string {
  const reason = STATUS_CODES[status] ?? 'Error';
  return detail && status !== 500 ? `${status} ${reason} (${detail})\n` : `${status} ${reason}\n`;
}
