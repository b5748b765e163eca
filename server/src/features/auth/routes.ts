import type { FastifyInstance, FastifyRequest } from 'fastify';
import { MethodNotAllowed, statusBody } from '../../http/errors.js';
import { createAuthService, type AuthContext } from './service.js';

/** S32: login and signup bodies are small; renew and logout need none. */
export const AUTH_BODY_LIMIT = 64 * 1024;

function context(req: FastifyRequest): AuthContext {
  return {
    address: req.ip,
    peer: req.socket.remoteAddress,
    header(name) {
      const v = req.headers[name.toLowerCase()];
      return Array.isArray(v) ? v[0] : v;
    },
    log: req.log,
  };
}

/** POST /api/login, /api/renew, /api/signup, /api/logout (api.md §2, S20–S34, E5). */
export async function authRoutes(app: FastifyInstance): Promise<void> {
  const auth = createAuthService(app.deps);

  app.post('/api/login', { bodyLimit: AUTH_BODY_LIMIT }, async (req, reply) => {
    const token = await auth.login(req.body, context(req));
    return reply.type('text/plain').send(token);
  });

  app.post('/api/renew', { bodyLimit: AUTH_BODY_LIMIT, preHandler: app.authenticate }, async (req, reply) => {
    const token = await auth.renew(req.user);
    return reply.header('X-Renew-Token', 'false').type('text/plain').send(token);
  });

  app.post(
    '/api/signup',
    {
      bodyLimit: AUTH_BODY_LIMIT,
      // Before the body is read: 405 while signup is off, 429 over S33's limit.
      onRequest: async (req) => {
        if (!(await auth.admitSignup(req.ip))) throw new MethodNotAllowed();
      },
    },
    async (req, reply) => {
      await auth.signup(req.body, context(req));
      return reply.type('text/plain; charset=utf-8').send(statusBody(200));
    },
  );

  app.post('/api/logout', { bodyLimit: AUTH_BODY_LIMIT, preHandler: app.authenticate }, async (req, reply) => {
    await auth.logout(req.session, context(req));
    return reply.code(204).header('Set-Cookie', 'auth=; Path=/; Max-Age=0; SameSite=Strict').send();
  });
}
