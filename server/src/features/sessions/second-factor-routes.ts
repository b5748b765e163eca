import {
  CurrentPasswordRequest,
  RecoveryCodes,
  SecondFactorStatus,
  TotpConfirmRequest,
  TotpEnrolment,
} from '@coffer/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireAdmin, requireSignedIn } from '../../auth/guard.js';
import { secondFactorRequired } from '../../auth/second-factor.js';
import { Conflict, Forbidden, NotFound } from '../../http/errors.js';
import { errors, noBody, SESSION } from '../../http/schemas.js';
import { createSignInChecks } from './current-password.js';
import { NumericParams, requireNumericId } from './routes.js';

const tags = ['auth'];

/**
 * Two-factor sign-in (docs/api.md §2.12): the caller's status, TOTP enrolment and its
 * confirmation, new recovery codes, turning it off; an admin's reset of a user's second factor.
 * Codes and passwords typed here count in the login throttle (S30) like those of the sign-in form.
 */
export async function secondFactorRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { secondFactor, tokens, appPasswords } = app.deps;
  const signedIn = [app.authenticate, requireSignedIn];

  const { guarded, checkCurrentPassword } = createSignInChecks(fastify);

  /**
   * Changing the second factor ends the caller's other sessions and its app passwords, as a new
   * password does (S21, docs/api.md §2.10, §2.12): what a thief signed in with before does not
   * outlive the change.
   */
  async function endOtherSessions(req: FastifyRequest): Promise<void> {
    await tokens.revokeOtherFamilies(req.user.id, req.session.family);
    await appPasswords.revokeUser(req.user.id);
  }

  app.get(
    '/api/second-factor',
    {
      onRequest: signedIn,
      schema: {
        tags,
        summary: 'Whether sign-in asks me for a second factor, and my recovery codes left',
        security: SESSION,
        response: { 200: SecondFactorStatus, ...errors(401, 403) },
      },
    },
    async (req) => ({
      ...(await secondFactor.status(req.user.id)),
      required: secondFactorRequired(app.deps.config.requireSecondFactor, req.user),
    }),
  );

  app.post(
    '/api/second-factor/totp',
    {
      onRequest: signedIn,
      schema: {
        tags,
        summary: 'Start TOTP enrolment: a new secret, confirmed next with a code from it',
        security: SESSION,
        response: { 200: TotpEnrolment, ...errors(401, 403, 409) },
      },
    },
    async (req) => {
      const started = await secondFactor.begin(req.user.id, req.user.username);
      if (!started) throw new Conflict('two-factor sign-in is already on');
      return started;
    },
  );

  app.post(
    '/api/second-factor/totp/confirm',
    {
      onRequest: signedIn,
      schema: {
        tags,
        summary: 'Finish TOTP enrolment with a code: the ten recovery codes, shown once',
        security: SESSION,
        body: TotpConfirmRequest,
        response: { 200: RecoveryCodes, ...errors(400, 401, 403, 413, 429) },
      },
    },
    async (req) => {
      // A stolen session must not put its own secret on the account and end the owner's sessions.
      await checkCurrentPassword(req, req.body.current_password);
      let codes: string[] | null = null;
      const ok = await guarded(
        req,
        async () => (codes = await secondFactor.confirm(req.user.id, req.body.code)) !== null,
      );
      if (!ok || !codes) throw new Forbidden();
      await endOtherSessions(req);
      req.log.info({ event: 'second_factor_enabled', userId: req.user.id }, 'two-factor sign-in turned on');
      return { recoveryCodes: codes };
    },
  );

  app.post(
    '/api/second-factor/recovery-codes',
    {
      onRequest: signedIn,
      schema: {
        tags,
        summary: 'Ten new recovery codes (the old ones stop working), shown once',
        security: SESSION,
        body: CurrentPasswordRequest,
        response: { 200: RecoveryCodes, ...errors(400, 401, 403, 409, 413, 429) },
      },
    },
    async (req) => {
      await checkCurrentPassword(req, req.body.current_password);
      if (!(await secondFactor.totpEnabled(req.user.id))) throw new Conflict('two-factor sign-in is off');
      const recoveryCodes = await secondFactor.regenerateRecoveryCodes(req.user.id);
      req.log.info({ event: 'recovery_codes_renewed', userId: req.user.id }, 'recovery codes renewed');
      return { recoveryCodes };
    },
  );

  app.delete(
    '/api/second-factor',
    {
      onRequest: signedIn,
      schema: {
        tags,
        summary: 'Turn two-factor sign-in off (ends my other sessions and my app passwords)',
        security: SESSION,
        body: CurrentPasswordRequest,
        response: { 204: noBody('off'), ...errors(400, 401, 403, 404, 413, 429) },
      },
    },
    async (req, reply) => {
      // Under --require-second-factor it stays on (an admin may still reset it).
      if (secondFactorRequired(app.deps.config.requireSecondFactor, req.user)) throw new Forbidden();
      await checkCurrentPassword(req, req.body.current_password);
      if (!(await secondFactor.remove(req.user.id))) throw new NotFound();
      await endOtherSessions(req);
      req.log.info({ event: 'second_factor_disabled', userId: req.user.id }, 'two-factor sign-in turned off');
      return reply.code(204).send();
    },
  );

  app.delete(
    '/api/users/:id/second-factor',
    {
      onRequest: [requireNumericId, app.authenticate, requireSignedIn, requireAdmin],
      schema: {
        tags: ['users'],
        summary: "Reset a user's second factor (admins): TOTP off, recovery codes and passkeys gone, their sessions and app passwords ended",
        security: SESSION,
        params: NumericParams,
        response: { 204: noBody('reset'), ...errors(401, 403, 404) },
      },
    },
    async (req, reply) => {
      const id = Number(req.params.id);
      if (!(await app.deps.users.byId(id))) throw new NotFound();
      await secondFactor.remove(id);
      await app.deps.passkeys.removeUser(id);
      if (id === req.user.id) await endOtherSessions(req);
      else {
        await tokens.revokeUser(id);
        await appPasswords.revokeUser(id);
      }
      req.log.info({ event: 'second_factor_reset', actor: req.user.id, userId: id }, 'second factor reset');
      return reply.code(204).send();
    },
  );
}
