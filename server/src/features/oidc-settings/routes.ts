import { OidcDiscoveryRequest, OidcDiscoveryResult, OidcSettings, OidcSettingsInput, OidcSettingsProblems, type AuthMethod } from '@coffer/protocol';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requireAdmin, requireSignedIn } from '../../auth/guard.js';
import { errors, SESSION } from '../../http/schemas.js';
import { defaultOidc, type AutherConfig, type OidcConfig } from '../settings/repository.js';
import { testDiscovery } from './discovery.js';
import { oidcProblems } from '@coffer/protocol/oidc-checks';

const tags = ['settings'];
/** A settings body is small; anything larger is not one (413). */
const BODY_LIMIT = 32 * 1024;

/** What the screen sees: the stored provider, the secret only as set or not. */
export function presentOidc(auther: AutherConfig): OidcSettings {
  const o: OidcConfig = { ...defaultOidc(), ...(auther.oidc ?? {}) };
  return {
    method: auther.method,
    issuer: o.issuer,
    clientId: o.clientId,
    clientSecretSet: o.clientSecret !== '',
    scopes: o.scopes,
    usernameClaim: o.usernameClaim,
    createUsers: o.createUsers,
    adminClaim: o.adminClaim,
    adminValue: o.adminValue,
    name: o.name,
    redirectUrl: o.redirectUrl,
    passwordLogin: o.passwordLogin,
    linkExisting: o.linkExisting ?? false,
  };
}

/**
 * Settings → Global's OIDC card (docs/api.md §2.14): read and replace the oidc method's settings,
 * switch between the json and oidc methods, and test the issuer's discovery document. Admins only
 * with a signed-in session (not an app password). The auther record is read from the database on
 * every sign-in, so a change counts at once on every instance; the 'settings' invalidation tells
 * the instances to drop what they derived from it (features/cluster).
 */
export async function oidcSettingsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { settings } = app.deps;
  const adminOnly = [app.authenticate, requireSignedIn, requireAdmin];

  app.get(
    '/api/settings/oidc',
    {
      onRequest: adminOnly,
      schema: {
        tags,
        summary: 'The OIDC sign-in settings, without the client secret (admins only)',
        security: SESSION,
        response: { 200: OidcSettings, ...errors(401, 403) },
      },
    },
    async () => presentOidc(await settings.auther()),
  );

  app.put(
    '/api/settings/oidc',
    {
      onRequest: adminOnly,
      bodyLimit: BODY_LIMIT,
      schema: {
        tags,
        summary: 'Replace the OIDC sign-in settings; optionally switch the auth method between json and oidc (admins only)',
        security: SESSION,
        body: OidcSettingsInput,
        response: { 200: OidcSettings, 422: OidcSettingsProblems, ...errors(400, 401, 403, 413) },
      },
    },
    async (req, reply) => {
      const body = req.body;
      const auther = await settings.auther();
      const before: OidcConfig = { ...defaultOidc(), ...(auther.oidc ?? {}) };
      // Omitted or "": keep; null: clear; a text: replace. The stored secret is kept only for the
      // issuer it was made for: a new issuer needs its own, or the old provider's secret would be
      // sent to whatever the new URL names.
      const kept = body.issuer === before.issuer ? before.clientSecret : '';
      const secret = body.clientSecret === null ? '' : body.clientSecret ? body.clientSecret : kept;
      const method: AuthMethod = body.method ?? auther.method;
      const fields = oidcProblems(body, method, secret !== '');
      if (Object.keys(fields).length > 0) return reply.code(422).send({ error: 'invalid' as const, fields });
      const oidc: OidcConfig = {
        issuer: body.issuer,
        clientId: body.clientId.trim(),
        clientSecret: secret,
        scopes: body.scopes.split(' ').filter(Boolean).join(' '),
        usernameClaim: body.usernameClaim.trim(),
        createUsers: body.createUsers,
        adminClaim: body.adminClaim.trim(),
        adminValue: body.adminValue,
        name: body.name.trim(),
        redirectUrl: body.redirectUrl,
        passwordLogin: body.passwordLogin,
        linkExisting: body.linkExisting,
      };
      const next: AutherConfig = { ...auther, method, oidc };
      await settings.saveAuther(next);
      app.deps.shared.invalidation.publish('settings');
      const changed = (Object.keys(oidc) as (keyof OidcConfig)[]).filter((k) => oidc[k] !== before[k]);
      // Field names only: never the secret, nor the values.
      req.log.info({ event: 'oidc_settings_changed', userId: req.user.id, method, changed }, 'OIDC settings changed');
      return presentOidc(next);
    },
  );

  app.post(
    '/api/settings/oidc/discovery',
    {
      onRequest: adminOnly,
      bodyLimit: BODY_LIMIT,
      schema: {
        tags,
        summary: "Fetch an issuer's discovery document and say whether it is usable (admins only)",
        security: SESSION,
        body: OidcDiscoveryRequest,
        response: { 200: OidcDiscoveryResult, ...errors(400, 401, 403, 413) },
      },
    },
    async (req) => {
      const result = await testDiscovery(app.deps.options.fetch, req.body.issuer);
      req.log.info({ event: 'oidc_discovery_test', userId: req.user.id, ok: result.ok, problem: result.problem }, 'OIDC discovery tested');
      return result;
    },
  );
}
