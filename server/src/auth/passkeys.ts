/**
 * Passkeys (WebAuthn, docs/api.md §2.13) with @simplewebauthn/server: registration, sign-in
 * without a name (discoverable credentials, user verification required) and the second step after
 * a password (user verification not asked).
 *
 * Challenges are random (the library's 32 bytes), stored with their purpose and user and an
 * expiry of CHALLENGE_TTL_S, and consumed by one DELETE when a response names them: a challenge
 * answers once, on any instance. The expected origin and RP ID come from the caller (see
 * `relyingParty` in features/passkeys/routes.ts); a passkey is accepted only for the RP ID it was
 * registered under. The signature counter must grow when the authenticator keeps one: a counter
 * that does not is refused (a cloned authenticator) and logged.
 */
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/index.js';
import { isUniqueViolation } from '../features/tus/repository.js';

/** How long a challenge can be answered (seconds); the browser is told a little less. */
export const CHALLENGE_TTL_S = 180;
const BROWSER_TIMEOUT_MS = 150_000;
/** Passkeys one user may register. */
export const MAX_PASSKEYS = 20;
const RP_NAME = 'Coffer';

export type ChallengePurpose = 'register' | 'login' | 'second';

/** Where the browser must be for a WebAuthn ceremony: its origin and the RP ID (a host name). */
export interface RelyingParty {
  origin: string;
  rpID: string;
}

export interface PasskeyRecord {
  id: number;
  name: string;
  createdAt: number;
  lastUsed: number;
}

export type RegisterResult = { ok: true; passkey: PasskeyRecord } | { ok: false; reason: 'invalid' | 'duplicate' };

export function createPasskeyService(deps: { db: Db; now?: () => number }) {
  const k = deps.db.kysely;
  const now = deps.now ?? (() => Math.floor(Date.now() / 1000));

  /** Stores a new challenge; expired ones go, and the user's older open one of the same purpose. */
  async function remember(challenge: string, purpose: ChallengePurpose, userId: number): Promise<void> {
    const t = now();
    await k.deleteFrom('webauthn_challenges').where('expires_at', '<', t).execute();
    if (userId !== 0) {
      await k.deleteFrom('webauthn_challenges').where('user_id', '=', userId).where('purpose', '=', purpose).execute();
    }
    await k
      .insertInto('webauthn_challenges')
      .values({ challenge, purpose, user_id: userId, expires_at: t + CHALLENGE_TTL_S })
      .execute();
  }

  /** Uses up a challenge: true once, for an open challenge of this purpose and user. */
  function consumer(purpose: ChallengePurpose, userId: number) {
    return async (challenge: string): Promise<boolean> => {
      const r = await k
        .deleteFrom('webauthn_challenges')
        .where('challenge', '=', challenge)
        .where('purpose', '=', purpose)
        .where('user_id', '=', userId)
        .where('expires_at', '>=', now())
        .executeTakeFirst();
      return Number(r.numDeletedRows) === 1;
    };
  }

  async function rowsOf(userId: number) {
    return k.selectFrom('passkeys').selectAll().where('user_id', '=', userId).orderBy('id', 'asc').execute();
  }

  const transportsOf = (text: string) => (text ? (text.split(',') as AuthenticatorTransport[]) : undefined);

  /**
   * Checks an assertion against one stored passkey and records its use; null when anything is off
   * (the library throws for a wrong challenge, origin, RP ID, signature or counter).
   */
  async function checkAssertion(
    rp: RelyingParty,
    response: AuthenticationResponseJSON,
    purpose: ChallengePurpose,
    userId: number,
    log: FastifyBaseLogger,
  ): Promise<{ userId: number; passkeyId: number } | null> {
    const row = await k
      .selectFrom('passkeys')
      .selectAll()
      .where('credential_id', '=', response.id)
      .executeTakeFirst();
    // An unknown credential (or another user's, on the second step, or one whose user handle is
    // not its user's) still uses up the challenge.
    const handle = response.response.userHandle;
    if (
      !row ||
      (userId !== 0 && row.user_id !== userId) ||
      row.rp_id !== rp.rpID ||
      (purpose === 'login' && handle && handle !== userHandle(row.user_id))
    ) {
      await consumer(purpose, userId)(response.response.clientDataJSON ? challengeOf(response) : '');
      return null;
    }
    let verified;
    try {
      verified = await verifyAuthenticationResponse({
        response,
        expectedChallenge: consumer(purpose, userId),
        expectedOrigin: rp.origin,
        expectedRPID: rp.rpID,
        credential: {
          id: row.credential_id,
          publicKey: Buffer.from(row.public_key, 'base64url'),
          counter: Number(row.counter),
          transports: transportsOf(row.transports),
        },
        // Without a name the passkey is both factors: the authenticator must have verified the user.
        requireUserVerification: purpose === 'login',
      });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (/counter/i.test(message)) {
        log.warn({ event: 'passkey_counter', userId: row.user_id, passkey: row.id }, 'passkey signature counter did not grow: a cloned authenticator?');
      } else {
        log.info({ event: 'passkey_refused', userId: row.user_id, passkey: row.id, reason: message.slice(0, 200) }, 'passkey assertion refused');
      }
      return null;
    }
    if (!verified.verified) return null;
    await k
      .updateTable('passkeys')
      .set({ counter: verified.authenticationInfo.newCounter, last_used: now() })
      .where('id', '=', row.id)
      .execute();
    return { userId: row.user_id, passkeyId: row.id };
  }

  return {
    now,

    async list(userId: number): Promise<PasskeyRecord[]> {
      return (await rowsOf(userId)).map((r) => ({
        id: r.id,
        name: r.name,
        createdAt: Number(r.created_at),
        lastUsed: Number(r.last_used),
      }));
    },

    async count(userId: number): Promise<number> {
      const r = await k
        .selectFrom('passkeys')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },

    /** Options for navigator.credentials.create: a discoverable credential, the user's others excluded. */
    async registrationOptions(
      user: { id: number; username: string },
      rp: RelyingParty,
    ): Promise<PublicKeyCredentialCreationOptionsJSON> {
      const options = await generateRegistrationOptions({
        rpName: RP_NAME,
        rpID: rp.rpID,
        userName: user.username,
        userID: Buffer.from(userHandle(user.id), 'base64url'),
        timeout: BROWSER_TIMEOUT_MS,
        attestationType: 'none',
        excludeCredentials: (await rowsOf(user.id)).map((r) => ({ id: r.credential_id, transports: transportsOf(r.transports) })),
        authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
      });
      await remember(options.challenge, 'register', user.id);
      return options;
    },

    /** Verifies the browser's answer to registrationOptions and stores the passkey. */
    async register(
      userId: number,
      rp: RelyingParty,
      name: string,
      response: RegistrationResponseJSON,
      log: FastifyBaseLogger,
    ): Promise<RegisterResult> {
      let verified;
      try {
        verified = await verifyRegistrationResponse({
          response,
          expectedChallenge: consumer('register', userId),
          expectedOrigin: rp.origin,
          expectedRPID: rp.rpID,
          requireUserVerification: false,
        });
      } catch (err) {
        log.info({ event: 'passkey_refused', userId, reason: (err instanceof Error ? err.message : String(err)).slice(0, 200) }, 'passkey registration refused');
        return { ok: false, reason: 'invalid' };
      }
      if (!verified.verified) return { ok: false, reason: 'invalid' };
      const { credential } = verified.registrationInfo;
      const t = now();
      try {
        const row = await k
          .insertInto('passkeys')
          .values({
            user_id: userId,
            credential_id: credential.id,
            public_key: Buffer.from(credential.publicKey).toString('base64url'),
            counter: credential.counter,
            transports: (credential.transports ?? []).join(','),
            rp_id: rp.rpID,
            name,
            created_at: t,
            last_used: 0,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        return { ok: true, passkey: { id: row.id, name, createdAt: t, lastUsed: 0 } };
      } catch (err) {
        if (isUniqueViolation(err)) return { ok: false, reason: 'duplicate' };
        throw err;
      }
    },

    /** Options for navigator.credentials.get without a name: any passkey of this site, verified user. */
    async loginOptions(rp: RelyingParty): Promise<PublicKeyCredentialRequestOptionsJSON> {
      const options = await generateAuthenticationOptions({ rpID: rp.rpID, userVerification: 'required', timeout: BROWSER_TIMEOUT_MS });
      await remember(options.challenge, 'login', 0);
      return options;
    },

    /** The user a passkey sign-in without a name is for, or null. */
    async verifyLogin(rp: RelyingParty, response: AuthenticationResponseJSON, log: FastifyBaseLogger): Promise<number | null> {
      return (await checkAssertion(rp, response, 'login', 0, log))?.userId ?? null;
    },

    /** Options for the second step after a right password: this user's passkeys. Null when it has none. */
    async secondFactorOptions(userId: number, rp: RelyingParty): Promise<PublicKeyCredentialRequestOptionsJSON | null> {
      const rows = (await rowsOf(userId)).filter((r) => r.rp_id === rp.rpID);
      if (rows.length === 0) return null;
      const options = await generateAuthenticationOptions({
        rpID: rp.rpID,
        userVerification: 'discouraged',
        timeout: BROWSER_TIMEOUT_MS,
        allowCredentials: rows.map((r) => ({ id: r.credential_id, transports: transportsOf(r.transports) })),
      });
      await remember(options.challenge, 'second', userId);
      return options;
    },

    /** The second step with a passkey of this user. */
    async verifySecondFactor(
      userId: number,
      rp: RelyingParty,
      response: AuthenticationResponseJSON,
      log: FastifyBaseLogger,
    ): Promise<boolean> {
      return (await checkAssertion(rp, response, 'second', userId, log)) !== null;
    },

    async remove(userId: number, id: number): Promise<boolean> {
      const r = await k.deleteFrom('passkeys').where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },

    /** An admin's reset of the second factor, or the user deleted. */
    async removeUser(userId: number): Promise<void> {
      await k.deleteFrom('passkeys').where('user_id', '=', userId).execute();
      await k.deleteFrom('webauthn_challenges').where('user_id', '=', userId).execute();
    },
  };
}
export type PasskeyService = ReturnType<typeof createPasskeyService>;

/** The WebAuthn user handle of a user: its id as text, base64url. */
export function userHandle(userId: number): string {
  return Buffer.from(String(userId)).toString('base64url');
}

/** The challenge an assertion claims to answer (clientDataJSON), '' when unreadable. */
function challengeOf(response: AuthenticationResponseJSON): string {
  try {
    const data = JSON.parse(Buffer.from(response.response.clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof data.challenge === 'string' ? data.challenge : '';
  } catch {
    return '';
  }
}
