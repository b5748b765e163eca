/**
 * The one fetch wrapper (docs/client.md §7): base URL, X-Auth, renewal on `X-Renew-Token`, a 401
 * ends the session, errors become ApiError (docs/client.md §8). It only throws; callers decide what to show.
 */
import { apiUrl } from '../config';
import { currentToken } from '../stores/session';
import { ApiError } from './errors';

type Hook = () => void;
let renewHook: Hook = () => undefined;
let unauthorizedHook: Hook = () => undefined;

/** Wired once by the app: what to do when the server asks for renewal, and when it says 401. */
export function configureClient(hooks: { onRenew: Hook; onUnauthorized: Hook }): void {
  renewHook = hooks.onRenew;
  unauthorizedHook = hooks.onUnauthorized;
}

/**
 * Renewal and the end of the session for answers that did not come through `request` (uploads sent
 * with XMLHttpRequest or tus-js-client), when they carried the session's token.
 */
export function noteAuthAnswer(status: number, renewHeader: string | null): void {
  if (renewHeader === 'true') renewHook();
  if (status === 401) unauthorizedHook();
}

export interface RequestOptions extends Omit<RequestInit, 'body'> {
  /** Sent as JSON. */
  json?: unknown;
  body?: BodyInit | null;
  /** Use this token instead of the session's (renewal of a stored token). `false` sends none. */
  token?: string | false;
}

export async function request(path: string, options: RequestOptions = {}): Promise<Response> {
  const { json, token, headers: extra, ...init } = options;
  const headers = new Headers(extra);
  const auth = token === false ? null : (token ?? currentToken());
  if (auth) headers.set('X-Auth', auth);
  let body = init.body;
  if (json !== undefined) {
    headers.set('Content-Type', 'application/json');
    body = JSON.stringify(json);
  }
  return answered(fetch(apiUrl(path), { ...init, headers, body, credentials: 'same-origin' }), auth, token !== undefined);
}

/**
 * An answer as `request` hands it on: renewal, the end of the session on a 401 (only for the
 * session's own token, not an `explicit` one), errors as ApiError.
 */
async function answered(sent: Promise<Response>, auth: string | null, explicit: boolean): Promise<Response> {
  let res: Response;
  try {
    res = await sent;
  } catch (err) {
    const canceled = err instanceof DOMException && err.name === 'AbortError';
    throw new ApiError(0, '000 No connection', canceled);
  }
  if (auth && res.headers.get('X-Renew-Token') === 'true') renewHook();
  if (res.status === 401 && auth && !explicit) unauthorizedHook();
  if (!res.ok) {
    const text = (await res.text().catch(() => '')).trim();
    const retry = Number.parseInt(res.headers.get('Retry-After') ?? '', 10);
    throw new ApiError(
      res.status,
      text || `${res.status} ${res.statusText}`.trim(),
      false,
      Number.isFinite(retry) ? retry : null,
      res.headers.get('X-Second-Factor'),
    );
  }
  return res;
}

/** The answer to a GET the page sent before this module ran (early.ts), with `token` as `request` would. */
export function answerOf(sent: Promise<Response>, token: string): Promise<Response> {
  return answered(sent, token, true);
}

export async function requestJson<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const res = await request(path, options);
  return (await res.json()) as T;
}

export { encodePath } from '../lib/paths';
