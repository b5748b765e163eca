import { spawn } from 'node:child_process';
import type { Permissions, Sorting } from '@coffer/protocol';
import { PERMISSION_NAMES } from '@coffer/protocol';
import type { FastifyBaseLogger } from 'fastify';
import { checkPasswordPolicy, hashPassword, verifyPassword } from '../../../auth/passwords.js';
import type { ServerConfig } from '../../../config/schema.js';
import { canonicalPath } from '../../../fs/canonical.js';
import type { AutherConfig, SettingsRepository } from '../../settings/repository.js';
import type { UserRecord, UserRepository } from '../../users/repository.js';
import { homeScope, validateUsername } from '../home.js';
import { assertAvailable, provisionedUser, storeProvisioned } from '../provision.js';
import type { Credentials } from './credentials.js';
import { checkStoredPassword, upgradeHash } from './json.js';

export const HOOK_TIMEOUT_MS = 10_000;
const MAX_HOOK_OUTPUT = 64 * 1024;

/** The user fields a hook may print (docs/api.md §2.5). */
export interface HookValues {
  scope?: string;
  locale?: string;
  viewMode?: string;
  singleClick?: boolean;
  redirectAfterCopyMove?: boolean;
  sorting: Partial<Sorting>;
  commands?: string[];
  hideDotfiles?: boolean;
  perm: Partial<Permissions>;
}

export interface HookOutput {
  action: string;
  values: HookValues;
  /** How many recognised `user.*` keys were printed. */
  fields: number;
}

const BOOL = (v: string) => v === 'true';

/** Parses `key=value` lines: CRLF accepted, key and value trimmed, unknown keys and other lines ignored. */
export function parseHookOutput(stdout: string): HookOutput {
  const out: HookOutput = { action: '', values: { sorting: {}, perm: {} }, fields: 0 };
  const v = out.values;
  for (const line of stdout.split(/\r?\n/)) {
    const eq = line.indexOf('=');
    if (eq < 0) continue;
    const key = line.slice(0, eq).trim();
    const value = line.slice(eq + 1).trim();
    if (key === 'hook.action') {
      out.action = value;
      continue;
    }
    let known = true;
    switch (key) {
      case 'user.scope': v.scope = value; break;
      case 'user.locale': v.locale = value; break;
      case 'user.viewMode': v.viewMode = value; break;
      case 'user.singleClick': v.singleClick = BOOL(value); break;
      case 'user.redirectAfterCopyMove': v.redirectAfterCopyMove = BOOL(value); break;
      case 'user.sorting.by': v.sorting.by = value; break;
      case 'user.sorting.asc': v.sorting.asc = BOOL(value); break;
      case 'user.commands': v.commands = value.split(' ').filter((c) => c !== ''); break;
      case 'user.hideDotfiles': v.hideDotfiles = BOOL(value); break;
      default: {
        const perm = /^user\.perm\.(\w+)$/.exec(key)?.[1];
        if (perm && (PERMISSION_NAMES as readonly string[]).includes(perm)) v.perm[perm as keyof Permissions] = BOOL(value);
        else known = false;
      }
    }
    if (known) out.fields++;
  }
  return out;
}

/**
 * Runs the configured command as argv, split on single spaces, without a shell (S72). The
 * credentials travel only in the environment (USERNAME, PASSWORD). Non-zero exit, a start
 * failure, or HOOK_TIMEOUT_MS without exiting (the process group is killed) → Error (500).
 */
export function runHookCommand(command: string, creds: Pick<Credentials, 'username' | 'password'>, timeoutMs = HOOK_TIMEOUT_MS): Promise<string> {
  const [program, ...args] = command.split(' ');
  if (!program) return Promise.reject(new Error('hook auth: no command configured'));
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      shell: false,
      detached: true, // its own process group, so a timeout kills what it started too
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, USERNAME: creds.username, PASSWORD: creds.password },
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const kill = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const finish = (err: Error | null, text?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(text ?? '');
    };
    const timer = setTimeout(() => {
      kill();
      finish(new Error(`hook auth: command did not finish within ${timeoutMs} ms`));
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_HOOK_OUTPUT) {
        kill();
        finish(new Error('hook auth: command printed too much'));
        return;
      }
      chunks.push(chunk);
    });
    child.on('error', (err) => finish(new Error('hook auth: command could not start', { cause: err })));
    child.on('close', (code, signal) => {
      if (code === 0) finish(null, Buffer.concat(chunks).toString('utf8'));
      else finish(new Error(`hook auth: command exited with ${code ?? signal}`));
    });
  });
}

/** Hook values over a base record; perm.admin=true implies every permission. */
function applyValues<T extends Omit<UserRecord, 'id' | 'updatedAt'>>(base: T, v: HookValues): T {
  const out = structuredClone(base);
  if (v.locale !== undefined) out.locale = v.locale;
  if (v.viewMode !== undefined) out.viewMode = v.viewMode;
  if (v.singleClick !== undefined) out.singleClick = v.singleClick;
  if (v.redirectAfterCopyMove !== undefined) out.redirectAfterCopyMove = v.redirectAfterCopyMove;
  if (v.sorting.by !== undefined) out.sorting.by = v.sorting.by;
  if (v.sorting.asc !== undefined) out.sorting.asc = v.sorting.asc;
  if (v.commands !== undefined) out.commands = v.commands;
  if (v.hideDotfiles !== undefined) out.hideDotfiles = v.hideDotfiles;
  out.perm = { ...out.perm, ...v.perm };
  if (out.perm.admin) for (const p of PERMISSION_NAMES) out.perm[p] = true;
  if (v.scope !== undefined) out.scope = canonicalPath(v.scope).path;
  return out;
}

export interface HookEnv {
  users: UserRepository;
  settings: SettingsRepository;
  config: Pick<ServerConfig, 'root'>;
  /** Ends a user's sessions when the hook changed its password. */
  revokeUser(userId: number): Promise<void>;
}

/**
 * docs/api.md §2.5 hook method. `auth` accepts (creating or rewriting the user), `pass` falls back to
 * the stored password, `block` refuses; null means "bad credentials" (403, counted by S30).
 * A created user starts from the S73 defaults (no admin, no execute, no commands, own home);
 * only values the operator's hook prints explicitly grant more.
 */
export async function hookLogin(env: HookEnv, auther: AutherConfig, creds: Credentials, log: FastifyBaseLogger): Promise<UserRecord | null> {
  const out = parseHookOutput(await runHookCommand(auther.command, creds));
  switch (out.action) {
    case 'block':
      return null;
    case 'pass': {
      const user = await checkStoredPassword(env.users, creds);
      return user && upgradeHash(env.users, user, creds.password, log);
    }
    case 'auth':
      break;
    default:
      throw new Error('hook auth: unknown hook.action');
  }

  const existing = await env.users.byUsername(creds.username);
  if (existing) {
    const samePassword = await verifyPassword(existing.passwordHash, creds.password);
    if (samePassword && out.fields === 0) return existing;
    const rewritten = applyValues(existing, out.values);
    rewritten.lockPassword = true;
    if (!samePassword) rewritten.passwordHash = await hashPassword(creds.password);
    await env.users.update(rewritten);
    if (!samePassword) await env.revokeUser(existing.id);
    log.info({ event: 'user_updated', how: 'hook', userId: existing.id, passwordChanged: !samePassword }, 'user updated from the auth hook');
    return (await env.users.byId(existing.id)) ?? null;
  }

  validateUsername(creds.username);
  const settings = await env.settings.settings();
  try {
    checkPasswordPolicy(creds.password, settings.minimumPasswordLength);
  } catch (err) {
    throw new Error('hook auth: the password of a new user fails the password rules', { cause: err });
  }
  const derived = out.values.scope === undefined;
  const scope = derived ? homeScope(settings.userHomeBasePath, creds.username) : '/';
  const base = provisionedUser(settings, { username: creds.username, passwordHash: await hashPassword(creds.password), scope, lockPassword: true });
  const user = applyValues(base, out.values);
  await assertAvailable(env.users, user.username, derived ? user.scope : null);
  return storeProvisioned(env, user, log, 'hook');
}
