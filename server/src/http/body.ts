import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BadRequest, PayloadTooLarge } from './errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Leave the request body unread for the handler to stream (uploads). */
    streamBody?: boolean;
  }
}

/**
 * One body parser for every content type: JSON is parsed as JSON whatever the declared type
 * (File Browser's client sends text/plain, S27), bounded by the route's body limit (S80);
 * routes marked `streamBody` get the untouched stream.
 */
export function registerBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', function parse(req: FastifyRequest, payload, done) {
    if (req.routeOptions.config?.streamBody) {
      done(null, undefined);
      return;
    }
    const limit = req.routeOptions.bodyLimit ?? 1024 * 1024;
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      done(new PayloadTooLarge(), undefined);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let finished = false;
    const finish = (err: Error | null, value?: unknown) => {
      if (finished) return;
      finished = true;
      done(err, value);
    };
    payload.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        payload.removeAllListeners('data');
        payload.resume();
        finish(new PayloadTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    payload.on('error', (err) => finish(err));
    payload.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.trim() === '') return finish(null, undefined);
      try {
        finish(null, JSON.parse(text));
      } catch {
        finish(new BadRequest('invalid JSON'));
      }
    });
  });
}
