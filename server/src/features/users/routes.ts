import { Type } from 'typebox';
import { User, UserDeleteRequest, UserModifyRequest } from '@coffer/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireAdmin, requireSignedIn } from '../../auth/guard.js';
import { Forbidden, NotFound, statusBody } from '../../http/errors.js';
import { errors, rawParam, SESSION, SESSION_OR_COOKIE, statusLine } from '../../http/schemas.js';
import { presentUser } from './present.js';
import { createUsersService, type Actor } from './service.js';

const IdParams = Type.Object({ id: Type.String({ description: 'decimal digits; anything else is 404' }) });
const DIGITS = /^[0-9]{1,15}$/;

/** docs/api.md §3.3: user ids are decimal digits; anything else matches no route → 404 (before auth, as in FB). */
async function requireNumericId(req: FastifyRequest): Promise<void> {
  if (!DIGITS.test(rawParam(req, 'id') ?? '')) throw new NotFound();
}

/**
 * Admin, or the caller's own id (docs/api.md §3.3, §6.1); another id as non-admin → 403 (S14).
 * An app password reads its own user but never changes or deletes it (docs/api.md §2.10).
 */
async function requireSelfOrAdmin(req: FastifyRequest): Promise<void> {
  const self = Number(rawParam(req, 'id')) === req.user.id;
  if (!req.user.perm.admin && !self) throw new Forbidden();
  if (self && req.method !== 'GET' && req.method !== 'HEAD') await requireSignedIn(req);
}

function actorOf(req: FastifyRequest): Actor {
  return { user: req.user, session: req.session, address: req.ip, log: req.log };
}

function sendStatus(reply: FastifyReply, status: 200 | 201) {
  return reply.code(status).type('text/plain; charset=utf-8').send(statusBody(status));
}

const tags = ['users'];

/**
 * Users API (docs/api.md §3). Authentication and the admin/self checks run in onRequest, before the
 * body is read: no token → 401, no permission → 403, then body errors → 400/413.
 */
export async function usersRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { users, settings, tokens, appPasswords, config, loginThrottle } = app.deps;
  const service = createUsersService({ users, settings, tokens, appPasswords, serverRoot: config.root, loginThrottle });
  const adminOnly = [app.authenticate, requireAdmin];
  const selfOrAdmin = [requireNumericId, app.authenticate, requireSelfOrAdmin];

  app.get(
    '/api/users',
    {
      onRequest: adminOnly,
      schema: {
        tags,
        summary: 'Every user, sorted by id (admins only)',
        security: SESSION_OR_COOKIE,
        response: { 200: Type.Array(User), ...errors(401, 403) },
      },
    },
    async (req) => (await service.list()).map((u) => presentUser(u, req.user)),
  );

  app.get(
    '/api/users/:id',
    {
      onRequest: selfOrAdmin,
      schema: {
        tags,
        summary: 'One user (an admin, or the user itself)',
        security: SESSION_OR_COOKIE,
        params: IdParams,
        response: { 200: User, ...errors(401, 403, 404) },
      },
    },
    async (req) => presentUser(await service.get(Number(req.params.id)), req.user),
  );

  app.post(
    '/api/users',
    {
      onRequest: adminOnly,
      schema: {
        tags,
        summary: 'Create a user (admins only)',
        security: SESSION,
        body: UserModifyRequest,
        response: {
          201: statusLine(201, 'created', {
            Location: Type.String({ description: '/settings/users/{id}, never with the base URL' }),
          }),
          ...errors(400, 401, 403, 409, 413),
        },
      },
    },
    async (req, reply) => {
      const created = await service.create(actorOf(req), req.body);
      // docs/api.md §1.1: the client route, never prefixed with the base URL.
      void reply.header('Location', `/settings/users/${created.id}`);
      return sendStatus(reply, 201);
    },
  );

  app.put(
    '/api/users/:id',
    {
      onRequest: selfOrAdmin,
      schema: {
        tags,
        summary: 'Change a user: the fields named in `which` (docs/api.md §3.5)',
        security: SESSION,
        params: IdParams,
        body: UserModifyRequest,
        response: { 200: statusLine(200, 'changed'), ...errors(400, 401, 403, 404, 409, 413) },
      },
    },
    async (req, reply) => {
      await service.update(actorOf(req), Number(req.params.id), req.body);
      app.deps.shared.invalidation.publish('users', String(req.params.id)); // features/cluster: caches on every instance
      return sendStatus(reply, 200);
    },
  );

  app.delete(
    '/api/users/:id',
    {
      onRequest: selfOrAdmin,
      schema: {
        tags,
        summary: 'Delete a user; its sessions end and its share links stop working',
        security: SESSION,
        params: IdParams,
        body: UserDeleteRequest,
        response: { 200: statusLine(200, 'deleted'), ...errors(400, 401, 403, 404, 413) },
      },
    },
    async (req, reply) => {
      await service.remove(actorOf(req), Number(req.params.id), req.body);
      app.deps.shared.invalidation.publish('users', String(req.params.id)); // features/cluster: caches on every instance
      return sendStatus(reply, 200);
    },
  );
}
