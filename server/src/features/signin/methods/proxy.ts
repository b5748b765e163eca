import proxyaddr from '@fastify/proxy-addr';
import type { FastifyBaseLogger } from 'fastify';
import { NO_LOCAL_PASSWORD } from '../../../auth/passwords.js';
import type { ServerConfig } from '../../../config/schema.js';
import { Unauthorized } from '../../../http/errors.js';
import type { SettingsRepository, AutherConfig } from '../../settings/repository.js';
import type { UserRecord, UserRepository } from '../../users/repository.js';
import { homeScope, validateUsername } from '../home.js';
import { assertAvailable, provisionedUser, storeProvisioned } from '../provision.js';

/** `--trusted-proxies` as a matcher of TCP peer addresses (the same matching Fastify's trustProxy uses). */
export function trustedPeer(trustedProxies: string[]): (peer: string | undefined) => boolean {
  if (trustedProxies.length === 0) return () => false;
  const trust = proxyaddr.compile(trustedProxies);
  return (peer) => typeof peer === 'string' && trust(peer, 0);
}

export interface ProxyRequest {
  /** The TCP peer, never a forwarded address. */
  peer: string | undefined;
  header(name: string): string | undefined;
}

/**
 * docs/api.md §2.5 proxy method with S73: the header counts only from a trusted proxy (else 401, as
 * when it is missing or empty); an unknown name becomes a powerless user with its own home.
 */
export async function proxyLogin(
  env: { users: UserRepository; settings: SettingsRepository; config: Pick<ServerConfig, 'root'>; isTrusted: (peer: string | undefined) => boolean },
  auther: AutherConfig,
  req: ProxyRequest,
  log: FastifyBaseLogger,
): Promise<UserRecord> {
  if (!auther.header) throw new Error('proxy auth: no header configured');
  if (!env.isTrusted(req.peer)) {
    if (req.header(auther.header) !== undefined) log.warn({ event: 'proxy_header_ignored', peer: req.peer }, 'proxy header from an untrusted peer ignored');
    throw new Unauthorized();
  }
  const username = req.header(auther.header);
  if (!username) throw new Unauthorized();
  const existing = await env.users.byUsername(username);
  if (existing) return existing;

  validateUsername(username);
  const settings = await env.settings.settings();
  const scope = homeScope(settings.userHomeBasePath, username);
  const user = provisionedUser(settings, {
    username,
    // No local password: the user signs in elsewhere (confirm.ts asks a recent sign-in instead).
    passwordHash: NO_LOCAL_PASSWORD,
    scope,
    lockPassword: true,
  });
  try {
    await assertAvailable(env.users, username, scope);
    return await storeProvisioned(env, user, log, 'proxy');
  } catch (err) {
    // Two first requests of the same new user at once: the other one created it.
    const raced = await env.users.byUsername(username);
    if (raced) return raced;
    throw err;
  }
}
