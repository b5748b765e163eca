/**
 * Login, renewal, signup and logout (docs/api.md §2, S20–S34). Routes hand in the parsed body and a
 * small request context; the service never sees the request or the reply.
 */
import type { FastifyBaseLogger } from 'fastify';
import { checkPasswordPolicy, hashPassword, MAX_PASSWORD_BYTES } from '../../auth/passwords.js';
import { createLoginThrottle, createSignupThrottle, SIGNUP_WINDOW_MS, type ThrottleStore } from '../../auth/throttle.js';
import { secondFactorRequired } from '../../auth/second-factor.js';
import type { Session, SessionOrigin, SignedInWith } from '../../auth/tokens.js';
import type { RelyingParty } from '../../auth/passkeys.js';
import type { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { BadRequest, Forbidden, HttpError, NotFound, PayloadTooLarge, Unauthorized } from '../../http/errors.js';
import type { Deps } from '../../services.js';
import type { UserRecord } from '../users/repository.js';
import { homeScope, validateUsername } from './home.js';
import { parseCredentials, type Credentials } from './methods/credentials.js';
import { hookLogin } from './methods/hook.js';
import { jsonLogin } from './methods/json.js';
import { noauthLogin } from './methods/noauth.js';
import { proxyLogin, trustedPeer, type ProxyRequest } from './methods/proxy.js';
import { assertAvailable, provisionedUser, storeProvisioned } from './provision.js';
import { recaptchaEnabled } from './recaptcha.js';

export interface SigninContext extends ProxyRequest {
  /** The client address (req.ip: X-Forwarded-For only behind a trusted proxy, S30). */
  address: string;
  log: FastifyBaseLogger;
  /** Where passkeys must be used from (docs/api.md §2.13); asked only when a passkey is. */
  rp?: () => RelyingParty;
}

/** Failed-login log lines carry the name as typed, bounded so a 64 KiB name cannot flood the log. */
function typed(username: string): string {
  return username.length > 256 ? `${username.slice(0, 256)}…` : username;
}

function originOf(ctx: SigninContext, signedInWith?: SignedInWith): SessionOrigin {
  return { userAgent: ctx.header('user-agent') ?? '', address: ctx.address, signedInWith };
}

/** How /api/login signed in under each auth method (recorded with the session, docs/api.md §2.11). */
const LOGIN_SIGNED_IN_WITH: Record<string, SignedInWith> = {
  json: 'password',
  oidc: 'password',
  hook: 'hook',
  proxy: 'proxy',
  noauth: 'noauth',
};

/**
 * docs/api.md §2.12, §2.13: the password was right; send it again with `otp` or `passkey`. The
 * header names what the user has: `totp`, `passkey` or `totp, passkey`.
 */
export class SecondFactorRequired extends HttpError {
  constructor(methods = 'totp') {
    super(401, '', { headers: { 'X-Second-Factor': methods } });
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createSigninService(
  deps: Pick<Deps, 'config' | 'users' | 'settings' | 'tokens' | 'options' | 'appPasswords'> &
    Partial<Pick<Deps, 'metrics' | 'loginThrottle' | 'secondFactor' | 'passkeys' | 'shared'>>,
  throttles: { login?: ThrottleStore; signup?: ThrottleStore } = {},
) {
  const { users, settings, tokens, config, options } = deps;
  // The instance's one login throttle (HTTP Basic counts in it too), unless a test hands in a store.
  const loginThrottle = throttles.login || !deps.loginThrottle ? createLoginThrottle(throttles.login) : deps.loginThrottle;
  const signupThrottle = createSignupThrottle(throttles.signup ?? deps.shared?.throttleStore('signup', SIGNUP_WINDOW_MS));
  const isTrusted = trustedPeer(config.trustedProxies);

  /**
   * The second step (docs/api.md §2.12) for a user whose password was right: nothing to do without
   * a second factor; 'missing' when none was sent; else the code's check.
   */
  async function secondStep(
    user: UserRecord,
    creds: Credentials,
    noSession: boolean,
    ctx: SigninContext,
  ): Promise<'ok' | 'missing' | 'wrong'> {
    if (!deps.secondFactor) return 'ok';
    if (!(await deps.secondFactor.enabled(user.id))) {
      // --require-second-factor: the sign-in form gives a session that can only enrol (authenticate
      // sees to it); WebDAV, which has no such session, is refused.
      return noSession && secondFactorRequired(config.requireSecondFactor, user) ? 'missing' : 'ok';
    }
    if (creds.passkey && deps.passkeys && ctx.rp) {
      await loginThrottle.codeAdmit(user.id);
      const ok = await deps.passkeys.verifySecondFactor(user.id, ctx.rp(), creds.passkey, ctx.log);
      if (!ok) await loginThrottle.codeFailed(user.id);
      return ok ? 'ok' : 'wrong';
    }
    if (!creds.otp) return 'missing';
    await loginThrottle.codeAdmit(user.id);
    const step = await deps.secondFactor.verify(user.id, creds.otp);
    if (step === 'wrong') await loginThrottle.codeFailed(user.id);
    return step;
  }

  /**
   * docs/api.md §2.13 "Passkeys and reCAPTCHA": the final /api/login of the passkey step does not
   * ask for the captcha again — Google's answers are single-use, and the one the user solved went
   * to POST /api/login/passkey-options. That route hands out a challenge only after the captcha
   * and the password were checked, and the challenge is kept for that user alone (purpose
   * 'second'). So an assertion that verifies against one of this user's passkeys shows that this
   * user passed the captcha for this attempt, within the challenge's lifetime, once (the challenge
   * is used up). Returns that user, or null: no such user, no passkey, or it did not verify.
   * A refusal here is not counted as a wrong code of the user (codeFailed): nothing — no captcha,
   * no password — was checked before it, so anyone knowing the name could otherwise use up the
   * user's code limit and lock the real user out of the second step; it counts as a failed login
   * of the address and name (throttled). A challenge of the sign-in without a name (purpose
   * 'login') never answers here.
   */
  async function captchaProvenByPasskey(creds: Credentials, ctx: SigninContext): Promise<UserRecord | null> {
    if (!creds.passkey || !deps.passkeys || !ctx.rp) return null;
    const user = await users.byUsername(creds.username);
    if (!user) return null;
    await loginThrottle.codeAdmit(user.id);
    const ok = await deps.passkeys.verifySecondFactor(user.id, ctx.rp(), creds.passkey, ctx.log);
    return ok ? user : null;
  }

  /** What the user can answer the second step with, for X-Second-Factor. */
  async function secondFactorMethods(userId: number): Promise<string> {
    const methods: string[] = [];
    if (!deps.secondFactor || (await deps.secondFactor.totpEnabled(userId))) methods.push('totp');
    if (deps.passkeys && (await deps.passkeys.count(userId)) > 0) methods.push('passkey');
    return methods.join(', ') || 'totp';
  }

  /**
   * S30 around a password check: 429 before checking anything when the address (or this name
   * from this address) is over the limit; a failure is counted, logged (E8), delayed and 403.
   * With a second factor a right password alone is 401 with `X-Second-Factor: totp` (not a
   * failure); a wrong code is a failure like a wrong password (docs/api.md §2.12).
   */
  async function throttled(
    creds: Credentials,
    ctx: SigninContext,
    check: () => Promise<UserRecord | null>,
    noSession = false,
    /** Check the password only (the passkey options of the second step). */
    passwordOnly = false,
    /** The passkey step under reCAPTCHA: the passkey first, then `check` (which skips the captcha). */
    passkeyFirst = false,
  ): Promise<UserRecord> {
    let release: () => void;
    try {
      release = await loginThrottle.begin(ctx.address, creds.username);
    } catch (err) {
      deps.metrics?.throttled.inc({ kind: 'login' });
      ctx.log.warn({ event: 'login_throttled', username: typed(creds.username), address: ctx.address }, 'login throttled');
      throw err;
    }
    let user: UserRecord | null;
    let step: 'ok' | 'missing' | 'wrong' = 'ok';
    try {
      if (passkeyFirst) {
        // The passkey before the password: `check` skips the captcha, so it runs only once this
        // user's passkey has verified (see captchaProvenByPasskey).
        const proven = await captchaProvenByPasskey(creds, ctx);
        user = proven ? await check() : null;
        if (user && user.id !== proven?.id) user = null;
      } else {
        user = await check();
        if (user && !passwordOnly) step = await secondStep(user, creds, noSession, ctx);
      }
      if (!user || step === 'wrong') await loginThrottle.failed(ctx.address, creds.username);
    } finally {
      release();
    }
    if (user && step === 'missing') throw new SecondFactorRequired(await secondFactorMethods(user.id));
    if (user && step === 'ok') return user;
    deps.metrics?.loginFailures.inc();
    ctx.log.warn({ event: 'login_failed', username: typed(creds.username), address: ctx.address }, 'login failed');
    if (options.failureDelayMs > 0) await sleep(options.failureDelayMs);
    throw new Forbidden();
  }

  // A new password from the hook ends the user's sessions and app passwords (S21, docs/api.md §2.10).
  const hookEnv = {
    users,
    settings,
    config,
    revokeUser: async (id: number) => {
      await tokens.revokeUser(id);
      await deps.appPasswords.revokeUser(id);
    },
  };

  async function authenticate(body: unknown, ctx: SigninContext, passwordOnly = false): Promise<UserRecord> {
    const auther = await settings.auther();
    switch (auther.method) {
      case 'noauth':
        return noauthLogin(users);
      case 'proxy':
        return proxyLogin({ users, settings, config, isTrusted }, auther, ctx, ctx.log);
      case 'oidc':
        // docs/api.md §2.13: the password form beside the provider's button, unless turned off.
        if (!(auther.oidc?.passwordLogin ?? true)) throw new Forbidden();
      // falls through
      case 'json': {
        const creds = parseCredentials(body);
        if (creds.passkey && !passwordOnly && recaptchaEnabled(auther.recaptcha)) {
          // The captcha was checked when the passkey options were asked for (captchaProvenByPasskey).
          const noCaptcha = { ...auther, recaptcha: null };
          return throttled(creds, ctx, () => jsonLogin({ users, options }, noCaptcha, creds, ctx.log), false, false, true);
        }
        return throttled(creds, ctx, () => jsonLogin({ users, options }, auther, creds, ctx.log), false, passwordOnly);
      }
      case 'hook': {
        const creds = parseCredentials(body);
        return throttled(creds, ctx, () => hookLogin(hookEnv, auther, creds, ctx.log), false, passwordOnly);
      }
      default:
        throw new Error(`unknown auth method ${String(auther.method)}`);
    }
  }

  return {
    /**
     * A sign-in without a session (WebDAV's HTTP Basic): the configured auth method as for
     * /api/login, behind the same S30 throttle (429 when over; 403 for a wrong password), without
     * reCAPTCHA, which a WebDAV client cannot solve. `creds` is null when the client sent none;
     * the noauth and proxy methods do not need any (401 from proxy without its header).
     */
    async signInWithPassword(creds: Pick<Credentials, 'username' | 'password'> | null, ctx: SigninContext): Promise<UserRecord> {
      const auther = await settings.auther();
      if (auther.method === 'noauth') return noauthLogin(users);
      if (auther.method === 'proxy') return proxyLogin({ users, settings, config, isTrusted }, auther, ctx, ctx.log);
      if (!creds) throw new Unauthorized();
      if (auther.method === 'oidc' && !(auther.oidc?.passwordLogin ?? true)) throw new Forbidden();
      // No `otp`: a user with a second factor gets 401 here and uses an app password (docs/api.md §2.12).
      const full: Credentials = { ...creds, recaptcha: '', otp: '' };
      if (auther.method === 'hook') return throttled(full, ctx, () => hookLogin(hookEnv, auther, full, ctx.log), true);
      return throttled(full, ctx, () => jsonLogin({ users, options }, { ...auther, recaptcha: null }, full, ctx.log), true);
    },

    /**
     * POST /api/login/passkey-options (docs/api.md §2.13): after the name and password were
     * checked as for /api/login, options for the second step with one of the user's passkeys.
     */
    async passkeyOptions(body: unknown, ctx: SigninContext): Promise<PublicKeyCredentialRequestOptionsJSON> {
      const auther = await settings.auther();
      // oidc with its password form too (authenticate refuses passwords when that is off): a user
      // whose second factor is a passkey could not sign in with the password at all.
      const takesPasswords = auther.method === 'json' || auther.method === 'hook' || auther.method === 'oidc';
      if (!takesPasswords || !deps.passkeys || !ctx.rp) throw new Forbidden();
      const user = await authenticate(body, ctx, true);
      const found = await deps.passkeys.secondFactorOptions(user.id, ctx.rp());
      if (!found) throw new NotFound('no passkey');
      return found;
    },

    /**
     * POST /api/passkeys/login (docs/api.md §2.13): a sign-in with a passkey and no name, with the
     * json auth method. A refused passkey counts in the login
     * throttle like a wrong password (per address, and per credential id in place of a name).
     */
    async passkeyLogin(response: AuthenticationResponseJSON, ctx: SigninContext): Promise<string> {
      // Only where Coffer itself decides who may sign in: under hook the command decides at every
      // sign-in (an account it blocks must not get in by a passkey), so there the passkey is only
      // the second step.
      if ((await settings.auther()).method !== 'json' || !deps.passkeys || !ctx.rp) throw new Forbidden();
      const target = `passkey:${response.id}`;
      const release = await loginThrottle.begin(ctx.address, target);
      let user: UserRecord | undefined;
      try {
        const userId = await deps.passkeys.verifyLogin(ctx.rp(), response, ctx.log);
        user = userId === null ? undefined : await users.byId(userId);
        if (!user) await loginThrottle.failed(ctx.address, target);
      } finally {
        release();
      }
      if (!user) {
        deps.metrics?.loginFailures.inc();
        ctx.log.warn({ event: 'login_failed', how: 'passkey', address: ctx.address }, 'login failed');
        if (options.failureDelayMs > 0) await sleep(options.failureDelayMs);
        throw new Forbidden();
      }
      ctx.log.info({ event: 'login', how: 'passkey', userId: user.id, address: ctx.address }, 'login succeeded');
      return tokens.issue(user, originOf(ctx, 'passkey'));
    },

    /** POST /api/login: the new token. */
    async login(body: unknown, ctx: SigninContext): Promise<string> {
      const method = (await settings.auther()).method;
      const user = await authenticate(body, ctx);
      ctx.log.info({ event: 'login', userId: user.id, address: ctx.address }, 'login succeeded');
      return tokens.issue(user, originOf(ctx, LOGIN_SIGNED_IN_WITH[method]));
    },

    /**
     * POST /api/renew (S23): a new session from the current record; the old one lives to its exp.
     * The new token continues the session's family (one line in the sessions list, docs/api.md §2.11).
     */
    renew(user: UserRecord, session: Session, ctx: SigninContext): Promise<string> {
      return tokens.issue(user, { ...originOf(ctx), family: session.family });
    },

    /** POST /api/logout (S24): every token of this sign-in ends, renewed ones included. */
    async logout(session: Session, ctx: SigninContext): Promise<void> {
      await tokens.revokeFamily(session.userId, session.family);
      ctx.log.info({ event: 'logout', userId: session.userId }, 'session ended');
    },

    /** Signup is off (405) unless settings.signup; then S33's per-address limit applies. */
    async admitSignup(address: string): Promise<boolean> {
      if (!(await settings.settings()).signup) return false;
      await signupThrottle.admit(address);
      return true;
    },

    /** POST /api/signup (docs/api.md §2.8 steps, S32, S33). */
    async signup(body: unknown, ctx: SigninContext): Promise<UserRecord> {
      if (body === undefined || body === null) throw new BadRequest('empty request');
      if (typeof body !== 'object' || Array.isArray(body)) throw new BadRequest('body must be an object');
      const { username, password } = body as Record<string, unknown>;
      if (typeof username !== 'string') throw new BadRequest('username must be a string');
      if (typeof password !== 'string') throw new BadRequest('password must be a string');
      if (Buffer.byteLength(password) > MAX_PASSWORD_BYTES) throw new PayloadTooLarge();
      validateUsername(username);
      const s = await settings.settings();
      checkPasswordPolicy(password, s.minimumPasswordLength);
      const scope = homeScope(s.userHomeBasePath, username); // S33: always the own home, never "/"
      await assertAvailable(users, username, scope);
      const user = provisionedUser(s, { username, passwordHash: await hashPassword(password), scope, lockPassword: false });
      return storeProvisioned({ users, config }, user, ctx.log, 'signup');
    },
  };
}
export type SigninService = ReturnType<typeof createSigninService>;

