import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { ServerConfig } from './config/schema.js';
import { isPostgresUrl, openDb, type Db } from './db/index.js';
import { reservePath } from './fs/reserved.js';
import { chooseDataDir } from './fs/staging.js';
import { hashPassword, randomPassword } from './auth/passwords.js';
import { createTokenService, type TokenService } from './auth/tokens.js';
import { createUserRepository, type UserRepository } from './features/users/repository.js';
import { createSettingsRepository, defaultAuther, type SettingsRepository } from './features/settings/repository.js';
import { defaultSettings } from './features/settings/defaults.js';
import { createMetrics, type Metrics } from './features/metrics/registry.js';
import { createFileService, type FileService } from './fs/service.js';
import { createEventBus, type EventBus } from './events/index.js';
import { createShareRepository } from './features/shares/repository.js';
import { createShareService, type ShareService } from './features/shares/service.js';

/** Knobs that tests and benchmarks turn; production uses the defaults. */
export interface AppOptions {
  /** S30/S45: wait before answering a wrong password. */
  failureDelayMs: number;
  /** Outgoing HTTP (reCAPTCHA verification); replaceable by a local fake in tests. */
  fetch: typeof fetch;
  version: string;
  /** Where the built client lives (index.html + assets); empty = the built-in minimal page. */
  webDist: string;
}

export interface Deps {
  config: ServerConfig;
  db: Db;
  users: UserRepository;
  settings: SettingsRepository;
  tokens: TokenService;
  /** The resolver with root and global rules filled in (server/src/fs/README.md). */
  files: FileService;
  /** Hook point around file writes (api.md §19): command runner, preview cache. */
  events: EventBus;
  /** Share links (api.md §16); resources call `shares.removeUnder` after a delete or rename (S48). */
  shares: ShareService;
  metrics: Metrics;
  options: AppOptions;
  /** Set when shutdown begins: /ready answers 503 before the listener closes (E2). */
  lifecycle: { closing: boolean };
}

export const VERSION = '0.1.0';

export interface FirstRun {
  username: string;
  /** Set when the password was generated: the caller prints it once. */
  generatedPassword?: string;
}

/**
 * First run (no signing key yet): settings with the §4 defaults, a fresh 64-byte key, the auther,
 * and one admin from --username/COFFER_ADMIN_USERNAME and COFFER_ADMIN_PASSWORD (api.md §6).
 */
export async function initialise(
  users: UserRepository,
  settings: SettingsRepository,
  config: ServerConfig,
  explicitServer: Partial<ServerConfig>,
): Promise<FirstRun | null> {
  const fresh = !(await settings.isInitialised());
  const s = fresh ? defaultSettings() : await settings.settings();
  if (fresh) {
    await settings.saveSettings(s);
    await settings.saveAuther(defaultAuther(config.noauth ? 'noauth' : 'json'));
    await settings.saveServer(explicitServer);
  }
  let result: FirstRun | null = null;
  // E7: a database without users (new, or made by `coffer config init`) gets its first admin.
  if ((await users.count()) === 0) {
    const generated = config.password ? undefined : randomPassword(20);
    const d = s.defaults;
    await users.insert({
      username: config.username || 'admin',
      passwordHash: await hashPassword(config.password || generated!),
      scope: '/',
      locale: d.locale,
      lockPassword: false,
      viewMode: d.viewMode,
      singleClick: d.singleClick,
      redirectAfterCopyMove: d.redirectAfterCopyMove,
      perm: { admin: true, execute: true, create: true, rename: true, modify: true, delete: true, share: true, download: true },
      commands: [...d.commands],
      sorting: { ...d.sorting },
      rules: [],
      hideDotfiles: d.hideDotfiles,
      dateFormat: d.dateFormat,
      aceEditorTheme: d.aceEditorTheme,
    });
    result = { username: config.username || 'admin', generatedPassword: generated };
  }
  // The key last: its presence marks a finished initialisation.
  if (fresh) await settings.saveSigningKey(randomBytes(64));
  return result;
}

/** Coffer's own files are never served, whatever the root (fs/reserved.ts). */
async function reserveOwnFiles(config: ServerConfig): Promise<void> {
  if (!isPostgresUrl(config.database)) {
    for (const suffix of ['', '-wal', '-shm', '-journal']) await reservePath(path.resolve(config.database) + suffix);
  }
  if (config.cacheDir) await reservePath(config.cacheDir);
  await reservePath((await chooseDataDir(config)).dir);
}

/** Opens the database and builds every service the app needs. */
export async function createDeps(config: ServerConfig, options: Partial<AppOptions> = {}, explicitServer: Partial<ServerConfig> = {}) {
  const db = await openDb(config.database);
  await reserveOwnFiles(config);
  const users = createUserRepository(db);
  const settings = createSettingsRepository(db);
  const firstRun = await initialise(users, settings, config, explicitServer);
  const key = await settings.signingKey();
  if (!key) throw new Error('the database has no signing key');
  await mkdir(path.resolve(config.root), { recursive: true });
  const tokens = createTokenService({ db, key, lifetimeSeconds: config.tokenExpirationTime });
  const files = createFileService({ config, globalRules: () => settings.globalRules() });
  const deps: Deps = {
    config,
    db,
    users,
    settings,
    tokens,
    files,
    events: createEventBus(),
    shares: createShareService({ repo: createShareRepository(db), users, files, settings }),
    metrics: createMetrics(),
    lifecycle: { closing: false },
    options: { failureDelayMs: 1000, fetch: globalThis.fetch, version: VERSION, webDist: '', ...options },
  };
  return { deps, firstRun };
}

export function logFirstRun(log: FastifyBaseLogger, firstRun: FirstRun | null): void {
  if (firstRun?.generatedPassword) {
    log.info(`User '${firstRun.username}' initialized with randomly generated password: ${firstRun.generatedPassword}`);
  }
}
