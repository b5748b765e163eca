import { LoginRequest, SignupRequest } from '@coffer/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireSignedIn } from '../../auth/guard.js';
import { MethodNotAllowed, statusBody } from '../../http/errors.js';
import { errors, noBody, PUBLIC, SESSION, statusLine, textBody } from '../../http/schemas.js';
import { relyingParty } from '../passkeys/relying-party.js';
import { createSigninService, type SigninContext } from './service.js';

/** S32: login and signup bodies are small; renew and logout need none. */
export const AUTH_BODY_LIMIT = 64 * 1024;

export function signinContext(req: FastifyRequest): SigninContext {
  return {
    rp: () => relyingParty(req, req.server.deps.config.passkeyOrigin),
    address: req.ip,
    peer: req.socket.remoteAddress,
    header(name) {
      const v = req.headers[name.toLowerCase()];
      return Array.isArray(v) ? v[0] : v;
    },
    log: req.log,
  };
}

const tags = ['auth'];
const token = (description: string, headers?: Parameters<typeof textBody>[1]) =>
  textBody(`${description}: the bare JWT`, headers);

/** POST /api/login, /api/renew, /api/signup, /api/logout (docs/api.md §2, S20–S34, E5). */
export async function signinRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const auth = createSigninService(app.deps);

  // The body is read by the auth method (docs/api.md §2.5), with its own 400 texts (S32): documented, not schema-checked.
  app.post(
    '/api/login',
    {
      bodyLimit: AUTH_BODY_LIMIT,
      config: { documentedBody: LoginRequest },
      schema: {
        tags,
        summary: 'Sign in: a new session token (docs/api.md §2.4)',
        security: PUBLIC,
        response: {
          200: token('signed in'),
          ...errors(400, 401, 403, 413, 429),
          401: statusLine(
            401,
            'proxy: no trusted name; or the password was right and a second factor is needed (docs/api.md §2.12, §2.13)',
            {
              'X-Second-Factor': Type.Optional(
                Type.Union([Type.Literal('totp'), Type.Literal('passkey'), Type.Literal('totp, passkey')]),
              ),
            },
          ),
        },
      },
    },
    async (req, reply) => {
      const jwt = await auth.login(req.body, signinContext(req));
      return reply.type('text/plain').send(jwt);
    },
  );

  app.post(
    '/api/renew',
    {
      bodyLimit: AUTH_BODY_LIMIT,
      preHandler: [app.authenticate, requireSignedIn],
      schema: {
        tags,
        summary: 'A new session for the user as it is now (docs/api.md §2.6)',
        security: SESSION,
        response: {
          200: token('renewed', { 'X-Renew-Token': Type.Literal('false') }),
          ...errors(401, 403, 413),
        },
      },
    },
    async (req, reply) => {
      const jwt = await auth.renew(req.user, req.session, signinContext(req));
      return reply.header('X-Renew-Token', 'false').type('text/plain').send(jwt);
    },
  );

  app.post(
    '/api/signup',
    {
      bodyLimit: AUTH_BODY_LIMIT,
      config: { documentedBody: SignupRequest },
      // Before the body is read: 405 while signup is off, 429 over S33's limit.
      onRequest: async (req) => {
        if (!(await auth.admitSignup(req.ip))) throw new MethodNotAllowed();
      },
      schema: {
        tags,
        summary: 'Create an account while signup is on (docs/api.md §2.8)',
        security: PUBLIC,
        response: { 200: statusLine(200, 'created; log in next'), ...errors(400, 405, 409, 413, 429) },
      },
    },
    async (req, reply) => {
      await auth.signup(req.body, signinContext(req));
      return reply.type('text/plain; charset=utf-8').send(statusBody(200));
    },
  );

  app.post(
    '/api/logout',
    {
      bodyLimit: AUTH_BODY_LIMIT,
      preHandler: [app.authenticate, requireSignedIn],
      schema: {
        tags,
        summary: 'End the session and clear the cookie (E5)',
        security: SESSION,
        response: {
          204: noBody('logged out', {
            'Set-Cookie': Type.Literal('auth=; Path=/; Max-Age=0; SameSite=Strict'),
          }),
          ...errors(401, 403, 413),
        },
      },
    },
    async (req, reply) => {
      await auth.logout(req.session, signinContext(req));
      return reply.code(204).header('Set-Cookie', 'auth=; Path=/; Max-Age=0; SameSite=Strict').send();
    },
  );
}
