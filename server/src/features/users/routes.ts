import { Type } from 'typebox';
import { User, UserDeleteRequest, UserModifyRequest } from '@coffer/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requireAdmin } from '../../auth/guard.js';
import { Forbidden, NotFound, statusBody } from '../../http/errors.js';
import { presentUser } from './present.js';
import { createUsersService, type Actor } from './service.js';

const IdParams = Type.Object({ id: Type.String() });
const DIGITS = /^[0-9]{1,15}$/;

type WithId = FastifyRequest<{ Params: { id: string } }>;

/** api.md §1: user ids are decimal digits; anything else matches no route → 404 (before auth, as in FB). */
async function requireNumericId(req: FastifyRequest): Promise<void> {
  if (!DIGITS.test((req as WithId).params.id)) throw new NotFound();
}

/** Admin, or the caller's own id (api.md §3, §7); another id as non-admin → 403 (S14). */
async function requireSelfOrAdmin(req: FastifyRequest): Promise<void> {
  if (!req.user.perm.admin && Number((req as WithId).params.id) !== req.user.id) throw new Forbidden();
}

function actorOf(req: FastifyRequest): Actor {
  return { user: req.user, session: req.session, log: req.log };
}

function sendStatus(reply: FastifyReply, status: 200 | 201) {
  return reply.code(status).type('text/plain; charset=utf-8').send(statusBody(status));
}

/**
 * Users API (api.md §3). Authentication and the admin/self checks run in onRequest, before the
 * body is read: no token → 401, no permission → 403, then body errors → 400/413.
 */
export async function usersRoutes(app: FastifyInstance): Promise<void> {
  const { users, settings, tokens, config } = app.deps;
  const service = createUsersService({ users, settings, tokens, serverRoot: config.root });
  const adminOnly = [app.authenticate, requireAdmin];
  const selfOrAdmin = [requireNumericId, app.authenticate, requireSelfOrAdmin];

  app.get('/api/users', { onRequest: adminOnly, schema: { response: { 200: Type.Array(User) } } }, async (req) => {
    return (await service.list()).map((u) => presentUser(u, req.user));
  });

  app.get('/api/users/:id', { onRequest: selfOrAdmin, schema: { params: IdParams, response: { 200: User } } }, async (req) => {
    const { id } = req.params as { id: string };
    return presentUser(await service.get(Number(id)), req.user);
  });

  app.post('/api/users', { onRequest: adminOnly, schema: { body: UserModifyRequest } }, async (req, reply) => {
    const created = await service.create(actorOf(req), req.body as UserModifyRequest | undefined);
    // api.md §1: the client route, never prefixed with the base URL.
    void reply.header('Location', `/settings/users/${created.id}`);
    return sendStatus(reply, 201);
  });

  app.put('/api/users/:id', { onRequest: selfOrAdmin, schema: { params: IdParams, body: UserModifyRequest } }, async (req, reply) => {
    const { id } = req.params as { id: string };
    await service.update(actorOf(req), Number(id), req.body as UserModifyRequest | undefined);
    return sendStatus(reply, 200);
  });

  app.delete('/api/users/:id', { onRequest: selfOrAdmin, schema: { params: IdParams, body: UserDeleteRequest } }, async (req, reply) => {
    const { id } = req.params as { id: string };
    await service.remove(actorOf(req), Number(id), req.body as UserDeleteRequest | undefined);
    return sendStatus(reply, 200);
  });
}
