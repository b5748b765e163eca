/**
 * Integration-test harness: the real app on 127.0.0.1:0 with a temp root and a temp SQLite file,
 * or a fresh PostgreSQL database when COFFER_TEST_PG_URL is set (one database per server).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { buildApp, type App } from '../src/app.js';
import { defaults, resolveConfig } from '../src/config/load.js';
import type { ServerConfig } from '../src/config/schema.js';
import { createDeps, type AppOptions, type Deps } from '../src/services.js';
import type { NewUser, UserRecord } from '../src/features/users/repository.js';
import { hashPassword } from '../src/auth/passwords.js';
import { defaultUserDefaults } from '../src/features/settings/defaults.js';

export const ADMIN = { username: 'admin', password: 'admin-password-for-tests' };

export interface TestServer {
  url: string;
  app: App;
  deps: Deps;
  root: string;
  config: ServerConfig;
  /** fetch relative to the server (base URL included). */
  fetch(path: string, init?: RequestInit & { token?: string; json?: unknown }): Promise<Response>;
  login(username?: string, password?: string): Promise<string>;
  /** Creates a user directly in the store (bypassing the API) and returns it. */
  createUser(over?: Partial<NewUser> & { password?: string }): Promise<UserRecord & { password: string }>;
  close(): Promise<void>;
}

async function freshDatabase(dir: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = process.env.COFFER_TEST_PG_URL;
  if (!admin) return { url: path.join(dir, 'coffer.db'), drop: async () => undefined };
  const name = `coffer_t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  const u = new URL(admin);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/**
 * Tests write their files straight to disk and search or list at once; the file index follows
 * such outside changes within 2 s (its watcher), so it is off unless a test asks for it
 * (`{ disableIndex: false }`, server/test/index-*.test.ts).
 */
export async function startServer(
  over: Partial<ServerConfig> = {},
  options: Partial<AppOptions> = {},
): Promise<TestServer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'coffer-test-'));
  const root = path.join(dir, 'root');
  const db = await freshDatabase(dir);
  const config = resolveConfig(
    { ...defaults(), disableIndex: true, root, database: db.url, port: 0, log: '', username: ADMIN.username, password: ADMIN.password, ...over },
    {},
  );
  const { deps } = await createDeps(config, { failureDelayMs: 0, ...options });
  const app = await buildApp(deps, { logger: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  if (!addr || typeof addr === 'string') throw new Error('no address');
  const url = `http://127.0.0.1:${addr.port}${config.baseURL}`;
  let seq = 0;

  const server: TestServer = {
    url,
    app,
    deps,
    root,
    config,
    fetch(p, init = {}) {
      const headers = new Headers(init.headers);
      if (init.token) headers.set('X-Auth', init.token);
      let body = init.body;
      if (init.json !== undefined) {
        body = typeof init.json === 'string' ? init.json : JSON.stringify(init.json);
        if (!headers.has('content-type')) headers.set('content-type', 'application/json');
      }
      return fetch(url + p, { ...init, headers, body, redirect: 'manual' });
    },
    async login(username = ADMIN.username, password = ADMIN.password) {
      const res = await server.fetch('/api/login', { method: 'POST', json: { username, password, recaptcha: '' } });
      if (res.status !== 200) throw new Error(`login as ${username} failed: ${res.status} ${await res.text()}`);
      return res.text();
    },
    async createUser(o = {}) {
      const password = o.password ?? `password-${randomBytes(6).toString('hex')}`;
      const d = defaultUserDefaults();
      const user = await deps.users.insert({
        username: o.username ?? `user${++seq}-${randomBytes(3).toString('hex')}`,
        passwordHash: o.passwordHash ?? (await hashPassword(password)),
        scope: o.scope ?? '/',
        locale: o.locale ?? d.locale,
        lockPassword: o.lockPassword ?? false,
        viewMode: o.viewMode ?? d.viewMode,
        singleClick: o.singleClick ?? false,
        redirectAfterCopyMove: o.redirectAfterCopyMove ?? true,
        perm: { ...d.perm, ...(o.perm ?? {}) },
        commands: o.commands ?? [],
        sorting: o.sorting ?? { by: 'name', asc: true },
        rules: o.rules ?? [],
        hideDotfiles: o.hideDotfiles ?? false,
        dateFormat: o.dateFormat ?? false,
        aceEditorTheme: o.aceEditorTheme ?? '',
        quota: o.quota ?? 0,
      });
      return { ...user, password };
    },
    async close() {
      await app.close();
      await deps.shared.close();
      await deps.db.close();
      await db.drop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return server;
}

/** One server for a describe block: started before, closed after. */
export function useServer(over: Partial<ServerConfig> = {}, options: Partial<AppOptions> = {}): { get(): TestServer } & TestServer {
  let srv: TestServer | undefined;
  beforeAll(async () => {
    srv = await startServer(over, options);
  });
  afterAll(async () => {
    await srv?.close();
  });
  const get = () => {
    if (!srv) throw new Error('server not started');
    return srv;
  };
  return new Proxy({ get } as { get(): TestServer } & TestServer, {
    get(target, prop) {
      if (prop === 'get') return get;
      const s = get();
      const v = (s as unknown as Record<string | symbol, unknown>)[prop];
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(s) : v;
    },
  });
}
