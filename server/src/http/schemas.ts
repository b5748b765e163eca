/**
 * Pieces of route schemas that every area shares: the wildcard path parameter, File Browser's
 * plain-text status lines, error answers, bodies that are not JSON, and the auth requirement of each
 * route for the OpenAPI document (docs/api.md §1, §2.2). The JSON shapes themselves live in
 * packages/protocol.
 *
 * Response schemas describe what is sent today, exactly. Fastify serializes an answer with its
 * schema only when the handler hands it an object; strings, buffers and streams go out as they are.
 * Routes whose answer is written as text or a stream use `DOCUMENTED_ONLY`, so their schemas are
 * documentation and never reach a serializer.
 */
import { STATUS_CODES } from 'node:http';
import { Type, type TSchema } from 'typebox';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The request body as the OpenAPI document shows it, where the route does not validate it with a
     * schema: uploads read as a stream, and sign-in bodies whose reading depends on the auth method
     * (docs/api.md §2.5) and keeps its own error texts.
     */
    documentedBody?: TSchema | { content: Record<string, { schema: TSchema }> };
  }
}

/**
 * The tail of `/api/…/*` routes: a scope path, each segment percent-encoded (docs/api.md §1.4).
 * Optional, so that the bare prefix (`/api/raw`, the scope root) shares the schema and the handler;
 * the document names it `{path}` and leaves it out where the URL has none (openapi.ts).
 */
export const PathParams = Type.Object({
  '*': Type.Optional(
    Type.String({ description: 'path inside the scope, each segment percent-encoded (docs/api.md §1.4)' }),
  ),
});

/**
 * A URL parameter as a hook sees it: hooks before validation (onRequest) get the raw, unchecked
 * strings; `undefined` when the route has no such parameter.
 */
export function rawParam(req: { params: unknown }, name: string): string | undefined {
  const params = req.params;
  if (typeof params !== 'object' || params === null || !(name in params)) return undefined;
  const value: unknown = (params as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

/** A request body of raw bytes (uploads), for `documentedBody`. */
export function bytesRequest(description: string, mediaType = 'application/octet-stream') {
  return {
    description,
    content: { [mediaType]: { schema: Type.String({ format: 'binary', description }) } },
  };
}

/** A response with no body (204, 301, 304, HEAD answers). */
export function noBody(description: string, headers?: Record<string, TSchema>) {
  return Type.Unsafe<undefined>({ type: 'null', description, ...(headers ? { headers } : {}) });
}

/** A `text/plain` answer whose body is described, not serialized (a status line, a token, a stream). */
export function textBody(description: string, headers?: Record<string, TSchema>, mediaType = 'text/plain') {
  return {
    description,
    ...(headers ? { headers } : {}),
    content: { [mediaType]: { schema: Type.String() } },
  };
}

/**
 * A schema that documents an answer the handler writes itself (a stream, a buffer, pre-built JSON
 * text): the same JSON Schema, typed `unknown` so that the handler may send what it writes.
 */
export function documented(schema: TSchema) {
  return Type.Unsafe<unknown>(schema);
}

/** Bytes of any type (a file, an archive, an image). */
export function bytesBody(
  description: string,
  headers?: Record<string, TSchema>,
  mediaTypes = ['application/octet-stream'],
) {
  const schema = documented(Type.String({ format: 'binary' }));
  return {
    description,
    ...(headers ? { headers } : {}),
    content: Object.fromEntries(mediaTypes.map((m) => [m, { schema }])),
  };
}

const FILE_HEADERS = {
  'Content-Disposition': Type.String({ description: 'attachment, or inline with inline=true (S61)' }),
  ETag: Type.String(),
  'Last-Modified': Type.String(),
  'Accept-Ranges': Type.Literal('bytes'),
  'Content-Security-Policy': Type.String({ description: 'the file policy of S60' }),
};

/**
 * The answers of a route that sends a file's bytes as /api/raw does (docs/api.md §8.1): validators,
 * conditional requests and ranges. `mediaTypes` are the types the 200 may carry.
 */
export function fileAnswers(description: string, mediaTypes = ['application/octet-stream', '*/*']) {
  return {
    200: bytesBody(description, FILE_HEADERS, mediaTypes),
    206: bytesBody('one range (Content-Range), or several as multipart/byteranges', FILE_HEADERS, [
      '*/*',
      'multipart/byteranges',
    ]),
    304: noBody('not modified (If-None-Match, If-Modified-Since)'),
  };
}

/**
 * The answers of a download that is a file's bytes or, for a folder, an archive (docs/api.md §8):
 * /api/raw and a share's /api/public/dl. The error statuses are the routes' own.
 */
export function downloadAnswers(description: string) {
  return fileAnswers(description, [
    'application/octet-stream',
    'application/zip',
    'application/x-gzip',
    '*/*',
  ]);
}

/** A JSON answer written as text by the handler (streamed or pre-serialized): documented only. */
export function jsonText(description: string, schema: TSchema, headers?: Record<string, TSchema>) {
  return {
    description,
    ...(headers ? { headers } : {}),
    content: { 'application/json': { schema: documented(schema) } },
  };
}

/** File Browser's status line: `"<code> <reason>\n"`, `" (detail)"` added on a 400 with a known cause (docs/api.md §1.2). */
export function statusLine(
  status: number,
  description = STATUS_CODES[status] ?? String(status),
  headers?: Record<string, TSchema>,
) {
  return textBody(`${description} — body "${status} ${STATUS_CODES[status] ?? ''}\\n"`, headers);
}

/** The body of every 500 (docs/api.md §1.2, E4). */
export const InternalError = Type.Object({
  error: Type.Unsafe<'internal'>({ type: 'string', enum: ['internal'] }),
  requestId: Type.String(),
});

const ERROR_TEXT: Record<number, string> = {
  400: 'malformed input; a known cause is appended in parentheses',
  401: 'no valid session',
  403: 'not allowed: permission, rule, escaping path or another origin',
  404: 'not there, or not visible to the caller',
  405: 'method not allowed here',
  409: 'the name is taken, or the resource is busy',
  412: 'a precondition failed',
  413: 'too large',
  415: 'unsupported media type',
  416: 'range not satisfiable',
  502: 'WebDAV: the Destination is on another server or outside the mount',
  423: 'locked: retry later',
  501: 'not implemented for this resource',
  503: 'busy: too much work waiting; retry after the seconds of the Retry-After header',
  507: 'the disk is full',
};

/**
 * The error answers of a route: status lines for the given codes, and always 500. 429 has an empty
 * body and a Retry-After header (E6).
 */
export function errors(...codes: number[]) {
  const out: Record<string, unknown> = {};
  for (const code of codes) {
    if (code === 429)
      out[code] = noBody('throttled: empty body (E6)', {
        'Retry-After': Type.String({ description: 'seconds' }),
      });
    else if (code === 503) out[code] = statusLine(code, ERROR_TEXT[code], { 'Retry-After': Type.String({ description: 'seconds' }) });
    else out[code] = statusLine(code, ERROR_TEXT[code]);
  }
  out[500] = {
    description: 'a failure of the server, logged with the request id (E4)',
    content: { 'application/json': { schema: InternalError } },
  };
  return out;
}

/**
 * Auth requirements for the document (docs/api.md §2.2): the token in `X-Auth` always; the `auth`
 * cookie only for GET and HEAD. Scheme names are declared in openapi.ts.
 */
export type Security = { [scheme: string]: string[] }[];
export const SESSION: Security = [{ XAuth: [] }];
export const SESSION_OR_COOKIE: Security = [{ XAuth: [] }, { AuthCookie: [] }];
export const PUBLIC: Security = [];
/** WebDAV (docs/api.md §21): HTTP Basic with the user's password, never the token or the cookie. */
export const BASIC: Security = [{ DavBasic: [] }];

/**
 * For routes that write their answer as text or a stream: the response schemas document it and no
 * serializer is built from them. An object reaching the serializer anyway (the 500 body) is written
 * by JSON.stringify, as without a schema.
 */
export const DOCUMENTED_ONLY = {
  serializerCompiler: () => (data: unknown) => JSON.stringify(data),
};
