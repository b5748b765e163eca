import { AppPasswordCreated, AppPasswordCreateRequest, AppPasswordInfo, SessionInfo, SignInConfirmation } from '@coffer/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { MAX_APP_PASSWORDS } from '../../auth/app-passwords.js';
import { requireAdmin, requireSignedIn } from '../../auth/guard.js';
import { isWellFormedText } from '../../lib/json-text.js';
import { BadRequest, Conflict, NotFound } from '../../http/errors.js';
import { errors, noBody, rawParam, SESSION } from '../../http/schemas.js';
import { confirmationFor, RECENT_SIGN_IN_SECONDS } from '../signin/methods/confirm.js';
import { createSignInChecks } from './current-password.js';
import { presentAppPassword, presentSession } from './present.js';

const tags = ['auth'];
const CLEAR_COOKIE = 'auth=; Path=/; Max-Age=0; SameSite=Strict';
const SessionParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
/** Session ids are base64url (tokens.ts); anything else matches none (and NUL cannot reach PostgreSQL). */
const SESSION_ID = /^[A-Za-z0-9_-]+$/;
/** Control characters in a name: NUL cannot be stored in PostgreSQL, the others are no name. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** The name of an app password or a passkey, trimmed: 400 when empty, with control characters or broken text. */
export function credentialName(raw: string): string {
  const name = raw.trim();
  if (!name) throw new BadRequest('name is empty');
  if (CONTROL.test(name) || !isWellFormedText(name)) throw new BadRequest('name has control characters or broken text');
  return name;
}

export const NumericParams = Type.Object({
  id: Type.String({ description: 'decimal digits; anything else is 404' }),
});
const DIGITS = /^[0-9]{1,15}$/;

/** Ids are decimal digits; anything else matches nothing: 404 before auth (as docs/api.md §3.3). */
export async function requireNumericId(req: FastifyRequest): Promise<void> {
  if (!DIGITS.test(rawParam(req, 'id') ?? '')) throw new NotFound();
}

/**
 * Sessions and app passwords (docs/api.md §2.10, §2.11). Everything here needs a signed-in session,
 * not an app password (`requireSignedIn`), checked in onRequest before any body is read.
 */
export async function sessionsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { tokens, appPasswords } = app.deps;
  const signedIn = [app.authenticate, requireSignedIn];
  const { checkCurrentPassword } = createSignInChecks(fastify);

  app.get(
    '/api/sessions',
    {
      onRequest: signedIn,
      schema: {
        tags,
        summary: 'My sessions: one per signed-in browser or device, the most recently used first',
        security: SESSION,
        response: { 200: Type.Array(SessionInfo), ...errors(401, 403) },
      },
    },
    async (req) => (await tokens.list(req.user.id)).map((s) => presentSession(s, req.session.family)),
  );

  app.get(
    '/api/sessions/confirmation',
    {
      onRequest: signedIn,
      schema: {
        tags,
        summary: 'What confirms a change to my sign-in from this session: my password, a recent sign-in, or nothing',
        security: SESSION,
        response: { 200: SignInConfirmation, ...errors(401, 403) },
      },
    },
    async (req) => {
      const confirm = confirmationFor(await app.deps.settings.auther(), req.user, req.session);
      const until = confirm === 'recent-sign-in' ? req.session.createdAt + RECENT_SIGN_IN_SECONDS : 0;
      return { confirm, signedInWith: req.session.signedInWith, until };
    },
  );

  app.delete(
    '/api/sessions/:id',
    {
      onRequest: signedIn,
      schema: {
        tags,
        summary: 'End one of my sessions (my own: a logout)',
        security: SESSION,
        params: SessionParams,
        response: { 204: noBody('ended'), ...errors(400, 401, 403, 404) },
      },
    },
    async (req, reply) => {
      if (!SESSION_ID.test(req.params.id) || !(await tokens.revokeFamily(req.user.id, req.params.id))) throw new NotFound();
      req.log.info(
        { event: 'session_ended', userId: req.user.id, own: req.params.id === req.session.family },
        'session ended',
      );
      if (req.params.id === req.session.family) void reply.header('Set-Cookie', CLEAR_COOKIE);
      return reply.code(204).send();
    },
  );

  app.delete(
    '/api/sessions',
    {
      onRequest: signedIn,
      schema: {
        tags,
        summary: 'End all my sessions but this one',
        security: SESSION,
        response: { 204: noBody('ended'), ...errors(401, 403) },
      },
    },
    async (req, reply) => {
      await tokens.revokeOtherFamilies(req.user.id, req.session.family);
      req.log.info({ event: 'sessions_ended', userId: req.user.id }, 'other sessions ended');
      return reply.code(204).send();
    },
  );

  app.delete(
    '/api/users/:id/sessions',
    {
      onRequest: [requireNumericId, app.authenticate, requireSignedIn, requireAdmin],
      schema: {
        tags: ['users'],
        summary: "End all of a user's sessions and revoke its app passwords (admins only; their own included when it is them)",
        security: SESSION,
        params: NumericParams,
        response: { 204: noBody('ended'), ...errors(401, 403, 404) },
      },
    },
    async (req, reply) => {
      const id = Number(req.params.id);
      if (!(await app.deps.users.byId(id))) throw new NotFound();
      // Everything that signs the user in without its password goes: a stolen account's app
      // passwords would outlive the sessions an admin ends for it.
      await tokens.revokeUser(id);
      await appPasswords.revokeUser(id);
      req.log.info({ event: 'sessions_ended', actor: req.user.id, userId: id, appPasswords: 'revoked' }, "user's sessions ended and app passwords revoked");
      if (id === req.user.id) void reply.header('Set-Cookie', CLEAR_COOKIE);
      return reply.code(204).send();
    },
  );

  app.get(
    '/api/app-passwords',
    {
      onRequest: signedIn,
      schema: {
        tags,
        summary: 'My app passwords (never their secrets), the newest first',
        security: SESSION,
        response: { 200: Type.Array(AppPasswordInfo), ...errors(401, 403) },
      },
    },
    async (req) => (await appPasswords.list(req.user.id)).map(presentAppPassword),
  );

  app.post(
    '/api/app-passwords',
    {
      onRequest: signedIn,
      schema: {
        tags,
        summary: 'A new app password for WebDAV or a script: its secret is in this answer only',
        security: SESSION,
        body: AppPasswordCreateRequest,
        response: { 201: AppPasswordCreated, ...errors(400, 401, 403, 409, 413, 429) },
      },
    },
    async (req, reply) => {
      const name = credentialName(req.body.name);
      // A stolen session must not mint a credential that outlives it and skips the second factor.
      await checkCurrentPassword(req, req.body.current_password);
      const expiresAt = req.body.expiresInDays ? appPasswords.now() + req.body.expiresInDays * 86400 : 0;
      const created = await appPasswords.create(req.user.id, {
        name,
        readOnly: req.body.readOnly,
        expiresAt,
      });
      if (!created) throw new Conflict(`at most ${MAX_APP_PASSWORDS} app passwords`);
      req.log.info(
        {
          event: 'app_password_created',
          userId: req.user.id,
          appPassword: created.appPassword.id,
          readOnly: req.body.readOnly,
        },
        'app password created',
      );
      return reply.code(201).send({ ...presentAppPassword(created.appPassword), secret: created.secret });
    },
  );

  app.delete(
    '/api/app-passwords/:id',
    {
      onRequest: [requireNumericId, ...signedIn],
      schema: {
        tags,
        summary: 'Revoke one of my app passwords: it stops working at once',
        security: SESSION,
        params: NumericParams,
        response: { 204: noBody('revoked'), ...errors(401, 403, 404) },
      },
    },
    async (req, reply) => {
      if (!(await appPasswords.revoke(req.user.id, Number(req.params.id)))) throw new NotFound();
      req.log.info(
        { event: 'app_password_revoked', userId: req.user.id, appPassword: Number(req.params.id) },
        'app password revoked',
      );
      return reply.code(204).send();
    },
  );
}
