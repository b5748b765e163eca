import type { FastifyError, FastifyInstance } from 'fastify';
import { errnoDetail, HttpError, isErrno, statusBody, statusOf } from './errors.js';
import { isPagePath, servePage, urlPath } from './page.js';

function isClientGone(err: unknown): boolean {
  const code = (err as { code?: string })?.code;
  return code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'EPIPE' || code === 'ABORT_ERR';
}

/** Registered once in app.ts: typed errors → status and File Browser's plain-text body. */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | Error, req, reply) => {
    if (isClientGone(err)) {
      req.log.debug({ err }, 'client went away');
      if (!reply.sent) return reply.code(400).send();
      return;
    }
    const status = statusOf(err);
    if (status >= 500) req.log.error({ err }, 'request failed');
    else req.log.info({ status, reason: err.message }, 'request rejected');
    if (reply.sent || reply.raw.headersSent) {
      // Streaming had started: cut the connection so a truncated body never looks complete.
      reply.raw.destroy();
      return;
    }
    if (err instanceof HttpError) for (const [k, v] of Object.entries(err.headers)) void reply.header(k, v);
    if (status === 500) {
      return reply.code(500).type('application/json; charset=utf-8').send({ error: 'internal', requestId: req.id });
    }
    if (err instanceof HttpError && err.emptyBody) return reply.code(status).send('');
    let detail = err instanceof HttpError ? err.detail : errnoDetail(err);
    if (!(err instanceof HttpError) && !isErrno(err) && status === 400) detail = validationMessage(err);
    return reply.code(status).type('text/plain; charset=utf-8').send(statusBody(status, detail));
  });

  // docs/api.md §5.1: an unmatched GET under the base URL is a client route and gets the page; anything
  // else (other methods, /api/…, /static/…, outside the base URL) is a plain 404.
  app.setNotFoundHandler(async (req, reply) => {
    if (req.method === 'GET' && app.hasDecorator('deps') && isPagePath(urlPath(req.url), app.deps.config.baseURL)) {
      return servePage(app.deps, req, reply);
    }
    return reply.code(404).type('text/plain; charset=utf-8').send(statusBody(404));
  });
}

function validationMessage(err: Error): string {
  const e = err as FastifyError;
  if (e.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError) return 'invalid JSON';
  if (e.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return 'empty request';
  // Fastify's validation messages name the field ("body/username must be string"): useful, not internal.
  return err.message.slice(0, 300);
}
