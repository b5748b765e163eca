import type { FastifyInstance } from 'fastify';
import { Forbidden } from './errors.js';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** S27: a state-changing request from another origin is refused before anything runs. */
export function registerOriginCheck(app: FastifyInstance): void {
  app.addHook('onRequest', async (req) => {
    if (SAFE.has(req.method)) return;
    if (req.headers['sec-fetch-site'] === 'cross-site') throw new Forbidden();
    const origin = req.headers.origin;
    if (origin === undefined) return;
    if (!sameOrigin(origin, `${req.protocol}://${req.host}`)) throw new Forbidden();
  });
}

export function sameOrigin(origin: string, self: string): boolean {
  try {
    const a = new URL(origin);
    const b = new URL(self);
    return a.protocol === b.protocol && a.host === b.host;
  } catch {
    return false;
  }
}
