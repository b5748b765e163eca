import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

// docs/api.md §1.3 and S62/S64 defaults; page, static and file-bytes handlers override what they need.
const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

export function applySecurityHeaders(req: FastifyRequest, reply: FastifyReply): void {
  void reply.header('X-Request-Id', req.id);
  void reply.header('X-Content-Type-Options', 'nosniff');
  void reply.header('Referrer-Policy', 'same-origin');
  void reply.header('X-Frame-Options', 'SAMEORIGIN');
  void reply.header('Cache-Control', 'no-cache, no-store, must-revalidate');
  void reply.header('Content-Security-Policy', API_CSP);
  if (req.protocol === 'https') void reply.header('Strict-Transport-Security', 'max-age=31536000');
}

export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', async (req, reply) => applySecurityHeaders(req, reply));
}
