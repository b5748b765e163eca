import {
  CurrentPasswordRequest,
  PasskeyCreateRequest,
  PasskeyInfo,
  PasskeyLoginRequest,
  PasskeySecondStepRequest,
  WebAuthnOptions,
} from '@coffer/protocol';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { MAX_PASSKEYS } from '../../auth/passkeys.js';
import { requireSignedIn } from '../../auth/guard.js';
import { createRequestThrottle, LOGIN_WINDOW_MS } from '../../auth/throttle.js';
import { secondFactorRequired } from '../../auth/second-factor.js';
import { Conflict, Forbidden, NotFound } from '../../http/errors.js';
import { errors, noBody, PUBLIC, SESSION, textBody } from '../../http/schemas.js';
import { createSignInChecks } from '../sessions/current-password.js';
import { credentialName, NumericParams, requireNumericId } from '../sessions/routes.js';
import { AUTH_BODY_LIMIT, signinContext } from '../signin/routes.js';
import { createSigninService } from '../signin/service.js';
import { relyingParty } from './relying-party.js';

const tags = ['auth'];
/** Sign-in options one address may ask for in LOGIN_WINDOW_MS (each stores a challenge for three minutes). */
export const LOGIN_OPTIONS_LIMIT = 100;

/**
 * Passkeys (docs/api.md §2.13): the caller's list, registration (options, then the browser's
 * answer with a name and the current password), removal; sign-in with a passkey and no name; the
 * passkey step after a password. Registering and removing need a signed-in session (not an app
 * password, docs/api.md §2.10).
 */
export async function passkeyRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { passkeys, tokens, appPasswords, secondFactor, config } = app.deps;
  const signedIn = [app.authenticate, requireSignedIn];
  const { checkCurrentPassword } = createSignInChecks(fastify);
  const auth = createSigninService(app.deps);
  const rp = (req: FastifyRequest) => relyingParty(req, config.passkeyOrigin);
  const optionsThrottle = createRequestThrottle(app.deps.shared.throttleStore('passkey-options', LOGIN_WINDOW_MS, LOGIN_OPTIONS_LIMIT), {
    name: 'passkey-options',
    limit: LOGIN_OPTIONS_LIMIT,
  });

  app.get(
    '/api/passkeys',
    {
      onRequest: signedIn,
      schema: {
        tags,
        summary: 'My passkeys, the oldest first',
        security: SESSION,
        response: { 200: Type.Array(PasskeyInfo), ...errors(401, 403) },
      },
    },
    async (req) => passkeys.list(req.user.id),
  );

  app.post(
    '/api/passkeys/options',
    {
      onRequest: signedIn,
      bodyLimit: AUTH_BODY_LIMIT,
      schema: {
        tags,
        summary: 'Start registering a passkey: options for navigator.credentials.create',
        security: SESSION,
        response: { 200: WebAuthnOptions, ...errors(400, 401, 403, 409) },
      },
    },
    async (req) => {
      if ((await passkeys.count(req.user.id)) >= MAX_PASSKEYS) throw new Conflict(`at most ${MAX_PASSKEYS} passkeys`);
      return passkeys.registrationOptions(req.user, rp(req));
    },
  );

  app.post(
    '/api/passkeys',
    {
      onRequest: signedIn,
      bodyLimit: AUTH_BODY_LIMIT,
      schema: {
        tags,
        summary: "Register a passkey: the browser's answer to the options, a name and my current password",
        security: SESSION,
        body: PasskeyCreateRequest,
        response: { 201: PasskeyInfo, ...errors(400, 401, 403, 409, 413, 429) },
      },
    },
    async (req, reply) => {
      const name = credentialName(req.body.name);
      // As for TOTP: a stolen session must not put a passkey of its own on the account.
      await checkCurrentPassword(req, req.body.current_password);
      if ((await passkeys.count(req.user.id)) >= MAX_PASSKEYS) throw new Conflict(`at most ${MAX_PASSKEYS} passkeys`);
      const hadSecondFactor = await secondFactor.enabled(req.user.id);
      const done = await passkeys.register(req.user.id, rp(req), name, req.body.response as unknown as RegistrationResponseJSON, req.log);
      if (!done.ok && done.reason === 'duplicate') throw new Conflict('this passkey is registered already');
      if (!done.ok) throw new Forbidden();
      if (!hadSecondFactor) {
        // The first passkey turns two-factor sign-in on, as confirming TOTP does: what signed in with
        // the password alone ends — else a session that could only enrol (--require-second-factor)
        // became a full one, and app passwords made before outlived it (docs/api.md §2.13).
        await tokens.revokeOtherFamilies(req.user.id, req.session.family);
        await appPasswords.revokeUser(req.user.id);
      }
      req.log.info({ event: 'passkey_added', userId: req.user.id, passkey: done.passkey.id }, 'passkey added');
      return reply.code(201).send(done.passkey);
    },
  );

  app.delete(
    '/api/passkeys/:id',
    {
      onRequest: [requireNumericId, ...signedIn],
      schema: {
        tags,
        summary: 'Remove one of my passkeys (ends my other sessions and my app passwords)',
        security: SESSION,
        params: NumericParams,
        body: CurrentPasswordRequest,
        response: { 204: noBody('removed'), ...errors(400, 401, 403, 404, 413, 429) },
      },
    },
    async (req, reply) => {
      await checkCurrentPassword(req, req.body.current_password);
      const id = Number(req.params.id);
      // Under --require-second-factor the last second factor stays (an admin may still reset it).
      if (
        secondFactorRequired(config.requireSecondFactor, req.user) &&
        !(await secondFactor.totpEnabled(req.user.id)) &&
        (await passkeys.count(req.user.id)) <= 1
      ) {
        throw new Forbidden();
      }
      if (!(await passkeys.remove(req.user.id, id))) throw new NotFound();
      // Removing a passkey changes the second factor: what signed in before ends (issue 21).
      await tokens.revokeOtherFamilies(req.user.id, req.session.family);
      await appPasswords.revokeUser(req.user.id);
      req.log.info({ event: 'passkey_removed', userId: req.user.id, passkey: id }, 'passkey removed');
      return reply.code(204).send();
    },
  );

  app.post(
    '/api/passkeys/login-options',
    {
      bodyLimit: AUTH_BODY_LIMIT,
      schema: {
        tags,
        summary: 'Options for signing in with a passkey and no name (navigator.credentials.get)',
        security: PUBLIC,
        response: { 200: WebAuthnOptions, ...errors(400, 403, 429) },
      },
    },
    async (req) => {
      // As POST /api/passkeys/login: json only (docs/api.md §2.13).
      if ((await app.deps.settings.auther()).method !== 'json') throw new Forbidden();
      // Anyone may ask: a per-address limit keeps the open challenges few.
      await optionsThrottle.admit(req.ip);
      return passkeys.loginOptions(rp(req));
    },
  );

  app.post(
    '/api/passkeys/login',
    {
      bodyLimit: AUTH_BODY_LIMIT,
      schema: {
        tags,
        summary: 'Sign in with a passkey and no name: a new session token',
        security: PUBLIC,
        body: PasskeyLoginRequest,
        response: { 200: textBody('signed in: the bare JWT'), ...errors(400, 403, 413, 429) },
      },
    },
    async (req, reply) => {
      const jwt = await auth.passkeyLogin(req.body.response as unknown as AuthenticationResponseJSON, signinContext(req));
      return reply.type('text/plain').send(jwt);
    },
  );

  app.post(
    '/api/login/passkey-options',
    {
      bodyLimit: AUTH_BODY_LIMIT,
      schema: {
        tags,
        summary: 'After a right name and password: options for the passkey step of signing in',
        security: PUBLIC,
        body: PasskeySecondStepRequest,
        response: { 200: WebAuthnOptions, ...errors(400, 403, 404, 413, 429) },
      },
    },
    async (req) => auth.passkeyOptions(req.body, signinContext(req)),
  );
}
