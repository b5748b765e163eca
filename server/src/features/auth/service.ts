/**
 * Login, renewal, signup and logout (api.md §2, S20–S34). Routes hand in the parsed body and a
 * small request context; the service never sees the request or the reply.
 */
import type { FastifyBaseLogger } from 'fastify';
import { checkPasswordPolicy, hashPassword, MAX_PASSWORD_BYTES } from '../../auth/passwords.js';
import type { Session } from '../../auth/tokens.js';
import { BadRequest, Forbidden, PayloadTooLarge } from '../../http/errors.js';
import type { Deps } from '../../services.js';
import type { UserRecord } from '../users/repository.js';
import { homeScope, validateUsername } from './home.js';
import { parseCredentials, type Credentials } from './methods/credentials.js';
import { hookLogin } from './methods/hook.js';
import { jsonLogin } from './methods/json.js';
import { noauthLogin } from './methods/noauth.js';
import { proxyLogin, trustedPeer, type ProxyRequest } from './methods/proxy.js';
import { assertAvailable, provisionedUser, storeProvisioned } from './provision.js';
import {
  createLoginThrottle,
  createMemoryThrottle,
  createSignupThrottle,
  LOGIN_WINDOW_MS,
  SIGNUP_WINDOW_MS,
  type Throttle,
} from './throttle.js';

export interface AuthContext extends ProxyRequest {
  /** The client address (req.ip: X-Forwarded-For only behind a trusted proxy, S30). */
  address: string;
  log: FastifyBaseLogger;
}

/** Failed-login log lines carry the name as typed, bounded so a 64 KiB name cannot flood the log. */
function typed(username: string): string {
  return username.length > 256 ? `${username.slice(0, 256)}…` : username;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createAuthService(
  deps: Pick<Deps, 'config' | 'users' | 'settings' | 'tokens' | 'options'> & Partial<Pick<Deps, 'metrics'>>,
  throttles: { login?: Throttle; signup?: Throttle } = {},
) {
  const { users, settings, tokens, config, options } = deps;
  const loginThrottle = createLoginThrottle(throttles.login ?? createMemoryThrottle({ windowMs: LOGIN_WINDOW_MS }));
  const signupThrottle = createSignupThrottle(throttles.signup ?? createMemoryThrottle({ windowMs: SIGNUP_WINDOW_MS }));
  const isTrusted = trustedPeer(config.trustedProxies);

  /**
   * S30 around a password check: 429 before checking anything when the address (or this name
   * from this address) is over the limit; a failure is counted, logged (E8), delayed and 403.
   */
  async function throttled(creds: Credentials, ctx: AuthContext, check: () => Promise<UserRecord | null>): Promise<UserRecord> {
    let release: () => void;
    try {
      release = await loginThrottle.begin(ctx.address, creds.username);
    } catch (err) {
      deps.metrics?.throttled.inc({ kind: 'login' });
      ctx.log.warn({ event: 'login_throttled', username: typed(creds.username), address: ctx.address }, 'login throttled');
      throw err;
    }
    let user: UserRecord | null;
    try {
      user = await check();
      if (!user) await loginThrottle.failed(ctx.address, creds.username);
    } finally {
      release();
    }
    if (user) return user;
    deps.metrics?.loginFailures.inc();
    ctx.log.warn({ event: 'login_failed', username: typed(creds.username), address: ctx.address }, 'login failed');
    if (options.failureDelayMs > 0) await sleep(options.failureDelayMs);
    throw new Forbidden();
  }

  async function authenticate(body: unknown, ctx: AuthContext): Promise<UserRecord> {
    const auther = await settings.auther();
    switch (auther.method) {
      case 'noauth':
        return noauthLogin(users);
      case 'proxy':
        return proxyLogin({ users, settings, config, isTrusted }, auther, ctx, ctx.log);
      case 'json': {
        const creds = parseCredentials(body);
        return throttled(creds, ctx, () => jsonLogin({ users, options }, auther, creds, ctx.log));
      }
      case 'hook': {
        const creds = parseCredentials(body);
        const env = { users, settings, config, revokeUser: (id: number) => tokens.revokeUser(id) };
        return throttled(creds, ctx, () => hookLogin(env, auther, creds, ctx.log));
      }
      default:
        throw new Error(`unknown auth method ${String(auther.method)}`);
    }
  }

  return {
    /** POST /api/login: the new token. */
    async login(body: unknown, ctx: AuthContext): Promise<string> {
      const user = await authenticate(body, ctx);
      ctx.log.info({ event: 'login', userId: user.id, address: ctx.address }, 'login succeeded');
      return tokens.issue(user);
    },

    /** POST /api/renew (S23): a new session from the current record; the old one lives to its exp. */
    renew(user: UserRecord): Promise<string> {
      return tokens.issue(user);
    },

    /** POST /api/logout (S24). */
    async logout(session: Session, ctx: AuthContext): Promise<void> {
      await tokens.revoke(session.jti);
      ctx.log.info({ event: 'logout', userId: session.userId }, 'session ended');
    },

    /** Signup is off (405) unless settings.signup; then S33's per-address limit applies. */
    async admitSignup(address: string): Promise<boolean> {
      if (!(await settings.settings()).signup) return false;
      await signupThrottle.admit(address);
      return true;
    },

    /** POST /api/signup (api.md §2 steps, S32, S33). */
    async signup(body: unknown, ctx: AuthContext): Promise<UserRecord> {
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
export type AuthService = ReturnType<typeof createAuthService>;
