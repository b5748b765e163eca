/**
 * docs/api.md §2.13 OIDC sign-in: the authorization code flow with PKCE (SHA-256), state and nonce,
 * through openid-client. The ID token's signature is checked against the provider's keys
 * (non-repudiation checks on), its issuer, audience (the client id), expiry and nonce by the
 * library. The flow's state travels in an encrypted, authenticated, ten-minute cookie (see
 * oidc-state.ts), so any instance behind the load balancer can finish a flow another one began.
 */
import type { FastifyBaseLogger } from 'fastify';
import * as client from 'openid-client';
import { PERMISSION_NAMES } from '@coffer/protocol';
import { BACK_CHANNEL_ENDPOINTS, plainEndpoint } from '@coffer/protocol/oidc-checks';
import { NO_LOCAL_PASSWORD } from '../../../auth/passwords.js';
import type { ServerConfig } from '../../../config/schema.js';
import { HttpError } from '../../../http/errors.js';
import type { OidcConfig, SettingsRepository } from '../../settings/repository.js';
import type { Db } from '../../../db/index.js';
import type { UserRecord, UserRepository } from '../../users/repository.js';
import { homeScope, validateUsername } from '../home.js';
import { assertAvailable, provisionedUser, storeProvisioned } from '../provision.js';

/** What the flow keeps between the redirect to the provider and the callback. */
export interface OidcPending {
  state: string;
  nonce: string;
  verifier: string;
  /** A path on this site (localPath), where the browser goes once signed in. */
  back: string;
}

/** Why a callback was refused: `refused` is the provider's user not being let in; `failed` is everything else. */
export class OidcRefused extends HttpError {
  constructor(
    readonly kind: 'refused' | 'failed',
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(kind === 'refused' ? 403 : 400, '', options);
  }
}

/**
 * The return path as a path on this site, or '/': only a single leading slash, no scheme or host,
 * no backslash (browsers read `/\host` as `//host`), no control characters.
 */
export function localPath(raw: unknown): string {
  if (typeof raw !== 'string' || raw.length > 2048 || !raw.startsWith('/')) return '/';
  if (raw.startsWith('//') || raw.includes('\\')) return '/';
  if ([...raw].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) return '/';
  try {
    const u = new URL(raw, 'http://coffer.invalid');
    if (u.origin !== 'http://coffer.invalid') return '/';
    // Dot segments fold away in the parse: `/.//host` and `/a/..//host` come out as `//host`.
    if (u.pathname.startsWith('//')) return '/';
    return `${u.pathname}${u.search}${u.hash}`;
  } catch {
    return '/';
  }
}

/** PKCE with SHA-256 (RFC 7636 §4.2), spelled so that the doc-reference check does not read a rule id. */
export const PKCE_METHOD = `S${256}`;

/** A discovered provider, kept for ten minutes per issuer and client (a failed discovery is not kept). */
const DISCOVERY_TTL_MS = 10 * 60_000;

/** Who a Coffer user is at a provider: (issuer, sub) → user id (migration 015). */
function createIdentities(db: Db, now: () => number) {
  const k = db.kysely;
  return {
    async userOf(issuer: string, subject: string): Promise<number | null> {
      const row = await k.selectFrom('oidc_identities').select('user_id').where('issuer', '=', issuer).where('subject', '=', subject).executeTakeFirst();
      return row ? Number(row.user_id) : null;
    },
    /** Whether the user is linked to some user of this provider already. */
    async linked(userId: number, issuer: string): Promise<boolean> {
      const row = await k.selectFrom('oidc_identities').select('subject').where('user_id', '=', userId).where('issuer', '=', issuer).executeTakeFirst();
      return row !== undefined;
    },
    /** Links; false when the (issuer, subject) is taken (a concurrent first sign-in). */
    async link(issuer: string, subject: string, userId: number): Promise<boolean> {
      try {
        await k.insertInto('oidc_identities').values({ issuer, subject, user_id: userId, created_at: Math.floor(now() / 1000) }).execute();
        return true;
      } catch {
        return (await this.userOf(issuer, subject)) === userId;
      }
    },
  };
}

export function createOidcClient(deps: {
  db: Db;
  users: UserRepository;
  settings: SettingsRepository;
  config: Pick<ServerConfig, 'root'>;
  now?: () => number;
}) {
  const now = deps.now ?? Date.now;
  const identities = createIdentities(deps.db, now);
  let cached: { key: string; at: number; config: Promise<client.Configuration> } | null = null;

  function provider(o: OidcConfig): Promise<client.Configuration> {
    const key = JSON.stringify([o.issuer, o.clientId, o.clientSecret]);
    if (cached && cached.key === key && now() - cached.at < DISCOVERY_TTL_MS) return cached.config;
    const issuer = new URL(o.issuer);
    const found = client
      .discovery(issuer, o.clientId, { client_secret: o.clientSecret }, client.ClientSecretBasic(o.clientSecret), {
        // An http issuer is the operator's choice (a provider on the same host or network); https is advised.
        execute: [client.enableNonRepudiationChecks, ...(issuer.protocol === 'http:' ? [client.allowInsecureRequests] : [])],
        timeout: 10,
      })
      .then((config) => {
        // The secret and tokens never go over plain http to another host than an http issuer's own.
        const m = config.serverMetadata() as Record<string, unknown>;
        for (const field of BACK_CHANNEL_ENDPOINTS) {
          if (typeof m[field] === 'string' && plainEndpoint(o.issuer, m[field])) {
            throw new Error(`the provider's ${field} is plain http on another host`);
          }
        }
        return config;
      });
    const entry = { key, at: now(), config: found };
    cached = entry;
    found.catch(() => {
      if (cached === entry) cached = null;
    });
    return found;
  }

  /** The admin mapping: the claim equals the value, or is a list holding it. */
  function isAdmin(o: OidcConfig, claims: Record<string, unknown>): boolean {
    const v = claims[o.adminClaim];
    return Array.isArray(v) ? v.includes(o.adminValue) : v === o.adminValue;
  }

  /** Grants or takes away admin when a mapping is configured: the provider's groups are the truth. */
  async function syncAdmin(o: OidcConfig, user: UserRecord, claims: Record<string, unknown>, log: FastifyBaseLogger): Promise<UserRecord> {
    if (!o.adminClaim || !o.adminValue) return user;
    const admin = isAdmin(o, claims);
    if (admin === user.perm.admin) return user;
    const perm = { ...user.perm, admin };
    if (admin) for (const p of PERMISSION_NAMES) perm[p] = true;
    // Taken out of the group: back to what a new user gets (as provisionedUser), not the admin's
    // every permission less the flag — execute and the rest stayed with the former admin.
    else Object.assign(perm, (await deps.settings.settings()).defaults.perm, { admin: false, execute: false });
    const changed = { ...user, perm };
    await deps.users.update(changed);
    log.info({ event: 'user_updated', how: 'oidc', userId: user.id, admin }, 'admin permission set from the OIDC claim');
    return (await deps.users.byId(user.id)) ?? changed;
  }

  return {
    /** The provider's authorization URL and what the callback must find again. */
    async begin(o: OidcConfig, back: string): Promise<{ url: string; pending: OidcPending }> {
      const config = await provider(o);
      const pending: OidcPending = {
        state: client.randomState(),
        nonce: client.randomNonce(),
        verifier: client.randomPKCECodeVerifier(),
        back: localPath(back),
      };
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: o.redirectUrl,
        scope: o.scopes,
        response_type: 'code',
        code_challenge: await client.calculatePKCECodeChallenge(pending.verifier),
        code_challenge_method: PKCE_METHOD,
        state: pending.state,
        nonce: pending.nonce,
      });
      return { url: url.href, pending };
    },

    /**
     * The callback: the code exchanged (PKCE verifier, state, nonce, ID token checked), the claims
     * of the ID token over those of the userinfo endpoint, then the Coffer user. `query` is the
     * callback's query string; the URL it is read against is the configured redirect URL, never
     * the request's Host.
     */
    async finish(o: OidcConfig, pending: OidcPending, query: string, log: FastifyBaseLogger): Promise<UserRecord> {
      const config = await provider(o);
      const current = new URL(o.redirectUrl);
      current.search = query;
      let claims: Record<string, unknown>;
      let issuer: string;
      let subject: string;
      try {
        const tokens = await client.authorizationCodeGrant(config, current, {
          pkceCodeVerifier: pending.verifier,
          expectedState: pending.state,
          expectedNonce: pending.nonce,
          idTokenExpected: true,
        });
        const idClaims = tokens.claims();
        if (!idClaims) throw new Error('no ID token');
        const info = await client.fetchUserInfo(config, tokens.access_token, idClaims.sub);
        claims = { ...info, ...idClaims };
        // Checked by the library: `iss` is the provider's, `sub` is present.
        issuer = String(idClaims.iss);
        subject = String(idClaims.sub);
      } catch (err) {
        throw new OidcRefused('failed', err instanceof Error ? err.message : 'the provider answer was refused', { cause: err });
      }
      const name = claims[o.usernameClaim];
      if (typeof name !== 'string' || name === '') throw new OidcRefused('refused', `no ${o.usernameClaim} claim`);
      // An address the provider does not say it verified is anyone's to type in (OpenID Connect Core: no
      // email_verified is no claim of it), and the name is matched against Coffer's users.
      if (o.usernameClaim === 'email' && claims.email_verified !== true && claims.email_verified !== 'true') {
        throw new OidcRefused('refused', 'the email address is not verified');
      }
      // The provider's `sub` says who it is (docs/oidc.md "Who is who"): a user renamed at the
      // provider keeps its account, and a name alone never takes one.
      const linkedId = await identities.userOf(issuer, subject);
      const linkedUser = linkedId === null ? undefined : await deps.users.byId(linkedId);
      if (linkedUser) return syncAdmin(o, linkedUser, claims, log);
      const existing = await deps.users.byUsername(name);
      if (existing) {
        if (!o.linkExisting) throw new OidcRefused('refused', 'a Coffer account has this name and linking existing accounts is off');
        if (await identities.linked(existing.id, issuer)) throw new OidcRefused('refused', 'the account of this name belongs to another user of the provider');
        if (!(await identities.link(issuer, subject, existing.id))) throw new OidcRefused('refused', 'the provider user was linked to another account meanwhile');
        log.info({ event: 'oidc_linked', userId: existing.id, how: 'name' }, 'existing account linked to its provider user');
        return syncAdmin(o, existing, claims, log);
      }
      if (!o.createUsers) throw new OidcRefused('refused', 'unknown user and user creation is off');
      try {
        validateUsername(name);
      } catch (err) {
        throw new OidcRefused('refused', 'the name is not a valid user name', { cause: err });
      }
      const settings = await deps.settings.settings();
      const scope = homeScope(settings.userHomeBasePath, name);
      const user = provisionedUser(settings, {
        username: name,
        // No local password: the user signs in elsewhere (confirm.ts asks a recent sign-in instead).
        passwordHash: NO_LOCAL_PASSWORD,
        scope,
        lockPassword: true,
      });
      let stored: UserRecord;
      try {
        await assertAvailable(deps.users, name, scope);
        stored = await storeProvisioned(deps, user, log, 'oidc');
      } catch (err) {
        // Two first sign-ins of the same new user at once: the other one created it.
        // Only the same provider user's concurrent first sign-in may take the row it made.
        const raced = await deps.users.byUsername(name);
        if (!raced || (await identities.userOf(issuer, subject)) !== raced.id) {
          throw new OidcRefused('refused', 'the name or its home folder is taken', { cause: err });
        }
        stored = raced;
      }
      if (!(await identities.link(issuer, subject, stored.id))) throw new OidcRefused('refused', 'the provider user was linked to another account meanwhile');
      return syncAdmin(o, stored, claims, log);
    },
  };
}
export type OidcClient = ReturnType<typeof createOidcClient>;
