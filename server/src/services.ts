import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { ServerConfig } from './config/schema.js';
import { inSetupLock, isPostgresUrl, openDb, type Db } from './db/index.js';
import { reservePath } from './fs/reserved.js';
import { sweepStaging } from './fs/extract.js';
import { chooseDataDir } from './fs/staging.js';
import { hashPassword, isBcrypt, randomPassword } from './auth/passwords.js';
import { createTokenService, type TokenService } from './auth/tokens.js';
import { createAppPasswordService, type AppPasswordService } from './auth/app-passwords.js';
import { createLoginThrottle, createSharePasswordThrottle, LOGIN_WINDOW_MS, PUBLIC_UPLOADS_PER_ADDRESS, SHARE_WINDOW_MS, type LoginThrottle } from './auth/throttle.js';
import { createMemoryShared, type SharedState } from './features/cluster/shared.js';
import { createRedisShared } from './features/cluster/redis.js';
import { createPublicService, type PublicService } from './features/public/service.js';
import { createPasskeyService, type PasskeyService } from './auth/passkeys.js';
import { createSecondFactorService, type SecondFactorService } from './auth/second-factor.js';
import { createUserRepository, type UserRepository } from './features/users/repository.js';
import { createSettingsRepository, defaultAuther, type SettingsRepository } from './features/settings/repository.js';
import { defaultSettings } from './features/settings/defaults.js';
import { createMetrics, type Metrics } from './features/metrics/registry.js';
import { createArchiveSlots, type ArchiveSlots } from './features/archive/slots.js';
import { createFileService, type FileService } from './fs/service.js';
import { createEventBus, type EventBus } from './events/index.js';
import { createShareRepository } from './features/shares/repository.js';
import { detectFfmpeg, type Ffmpeg } from './features/preview/video.js';
import { createShareService, type ShareService } from './features/shares/service.js';
import { createConfinement, type Confinement } from './features/command/confine.js';
import { createJobRepository } from './features/jobs/repository.js';
import { createJobService, JOB_HEARTBEAT_MS, type JobService } from './features/jobs/service.js';
import { openTrashArea } from './fs/trash-area.js';
import { createDavRepository } from './features/webdav/repository.js';
import { createTrashService, type TrashService } from './features/trash/service.js';
import { createIndexService, type IndexService } from './features/index/service.js';
import { createIndexStore } from './features/index/store.js';
import { shareOf } from './cluster/budget.js';
import { createQuotaService, type QuotaService } from './features/quota/service.js';
import { createSizeCache } from './features/quota/cache.js';
import { indexedSizeSource, walkSizeSource } from './features/quota/size-source.js';
import { scopeRoot } from './fs/resolve.js';

/** Knobs that tests and benchmarks turn; production uses the defaults. */
export interface AppOptions {
  /** S30/S45: wait before answering a wrong password. */
  failureDelayMs: number;
  /** Outgoing HTTP (reCAPTCHA verification); replaceable by a local fake in tests. */
  fetch: typeof fetch;
  version: string;
  /** Where the built client lives (index.html + assets); empty = the built-in minimal page. */
  webDist: string;
  /** Jobs' heartbeat (features/jobs/service.ts); a job is given up after three missed beats. */
  jobHeartbeatMs: number;
  /** docs/api.md §23.3: uploads a client address may start through upload shares per window. */
  publicUploadsPerAddress: number;
  /** The file index's watcher (tests turn it off to lose events on purpose). */
  indexWatch: boolean;
  /** The index maintainer's lease and its renewal period in ms (features/index; tests shorten them). */
  indexLeaseMs?: number;
  indexRenewMs?: number;
  /**
   * This process runs the box's periodic sweeps (expired uploads, shares, trash retention). With
   * `--workers N` one worker does (cluster/primary.ts); the others only serve.
   */
  duties: boolean;
  /** The worker slot of `--workers N` (1…N), 0 for a process alone; /metrics names it. */
  worker: number;
  /** How long a scope's measured size is trusted for quotas (features/quota/cache.ts). */
  quotaCacheMs: number;
}

export interface Deps {
  config: ServerConfig;
  db: Db;
  users: UserRepository;
  settings: SettingsRepository;
  tokens: TokenService;
  /** Passwords for WebDAV and scripts (docs/api.md §2.10); `verifyBasic` is WebDAV's check. */
  appPasswords: AppPasswordService;
  /** S30: the one login throttle of this instance (the sign-in form, second factors, HTTP Basic). */
  loginThrottle: LoginThrottle;
  /** TOTP and recovery codes (docs/api.md §2.12). */
  secondFactor: SecondFactorService;
  passkeys: PasskeyService;
  /** The resolver with root and global rules filled in (server/src/fs/README.md). */
  files: FileService;
  /** Hook point around file writes (docs/api.md §16): command runner, preview cache. */
  events: EventBus;
  /** Share links (docs/api.md §14); resources call `shares.removeUnder` after a delete or rename (S48). */
  shares: ShareService;
  /** Anonymous access to shares (docs/api.md §15, §23), with the one share-password throttle (S45). */
  publicShares: PublicService;
  /** The trash (docs/api.md §22): every door that deletes calls `trash.trash()` first. */
  trash: TrashService;
  /** Byte quotas (docs/api.md §3.1, §11): every door that writes asks before the bytes land. */
  quota: QuotaService;
  metrics: Metrics;
  /** The file index (features/index): indexed search, folder sizes; `status` says whether it answers. */
  index: IndexService;
  /** Archive downloads running now, per client and in total (features/archive/slots.ts). */
  archiveSlots: ArchiveSlots;
  /** Long work with progress: extract, compress (features/jobs, docs/api.md §18 E10). */
  jobs: JobService;
  /** The folder where jobs note their staging folders (fs/extract.ts), swept at start. */
  jobStagingLedger: string;
  /** How commands and hooks are started (features/command/confine.ts); null while execution is off. */
  confinement: Confinement | null;
  /** ffmpeg, found at start: video thumbnails and posters (features/preview/video.ts); null = none. */
  ffmpeg: Ffmpeg | null;
  options: AppOptions;
  /**
   * What instances share (features/cluster/shared.ts): throttles, rate limits, upload locks,
   * invalidation. In memory for one process; Redis with --redis-url.
   */
  shared: SharedState;
  /** Set when shutdown begins: /ready answers 503 before the listener closes (E2). */
  lifecycle: { closing: boolean };
}

export const VERSION = '0.1.0';
/** A scope's size is measured again after this long when Coffer did not write to it (an outside change is seen then). */
export const QUOTA_CACHE_MS = 30_000;
/** Scopes whose sizes are kept at once. */
const QUOTA_CACHE_ENTRIES = 1_000;

export interface FirstRun {
  username: string;
  /** Set when the password was generated: the caller prints it once. */
  generatedPassword?: string;
}

/**
 * First run (no signing key yet): settings with the docs/api.md §4 defaults, a fresh 64-byte key, the auther,
 * and one admin from --username/COFFER_ADMIN_USERNAME and COFFER_ADMIN_PASSWORD (docs/api.md §3.7, E7).
 * One transaction under the setup lock: of several instances starting together on an empty
 * database, the first does it all and the others find it done (the caller then reads the stored
 * key). Only the instance that created the admin answers its generated password.
 */
export async function initialise(db: Db, config: ServerConfig, explicitServer: Partial<ServerConfig>): Promise<FirstRun | null> {
  const needed = async (d: Db) => !(await createSettingsRepository(d).isInitialised()) || (await createUserRepository(d).count()) === 0;
  // The usual start reads two rows and takes no lock.
  if (!(await needed(db))) return null;
  // Hashed before the lock, which is then held for a few queries only.
  const generated = config.password ? undefined : randomPassword(20);
  // File Browser's --password / FB_PASSWORD is a bcrypt hash: it is stored as given (argon2id at the first sign-in).
  const passwordHash = isBcrypt(config.password) ? config.password : await hashPassword(config.password || generated!);
  return inSetupLock(db, async (tx) => {
    if (!(await needed(tx))) return null;
    const users = createUserRepository(tx);
    const settings = createSettingsRepository(tx);
    const fresh = !(await settings.isInitialised());
    const s = fresh ? defaultSettings() : await settings.settings();
    if (fresh) {
      await settings.saveSettings(s);
      await settings.saveAuther(defaultAuther(config.noauth ? 'noauth' : 'json'));
      await settings.saveServer(explicitServer);
      await settings.saveSigningKey(randomBytes(64));
    }
    // E7: a database without users (new, or made by `coffer config init`) gets its first admin.
    if ((await users.count()) > 0) return null;
    const d = s.defaults;
    await users.insert({
      username: config.username || 'admin',
      passwordHash,
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
      quota: 0,
    });
    return { username: config.username || 'admin', generatedPassword: generated };
  });
}

/**
 * Coffer's own files are never served, whatever the root (fs/reserved.ts), and the command
 * sandbox covers them when they lie in a scope.
 */
async function reserveOwnFiles(config: ServerConfig): Promise<void> {
  if (!isPostgresUrl(config.database)) {
    for (const suffix of ['', '-wal', '-shm', '-journal']) await reservePath(path.resolve(config.database) + suffix);
  }
  for (const file of [config.cacheDir, config.cert, config.key, config.socket]) if (file) await reservePath(file);
  // Made now, so that the sandbox finds a folder to cover, not a name a command could watch appear.
  if (config.cacheDir && !config.disableExec) await mkdir(config.cacheDir, { recursive: true, mode: 0o750 });
  await reservePath((await chooseDataDir(config)).dir);
}

/**
 * The first start's work for `--workers N`, in the primary before any worker is forked: the
 * database schema (openDb migrates), the settings, signing key and first admin (initialise). The
 * workers then find it done. A start refused for its sandbox is refused here already.
 */
export async function prepareFirstStart(config: ServerConfig, explicitServer: Partial<ServerConfig> = {}): Promise<FirstRun | null> {
  await mkdir(path.resolve(config.root), { recursive: true });
  await createConfinement(config);
  const db = await openDb(config.database);
  try {
    return await initialise(db, config, explicitServer);
  } finally {
    await db.close();
  }
}

/** Opens the database and builds every service the app needs. */
export async function createDeps(
  config: ServerConfig,
  options: Partial<AppOptions> & { shared?: SharedState } = {},
  explicitServer: Partial<ServerConfig> = {},
) {
  await reserveOwnFiles(config);
  await mkdir(path.resolve(config.root), { recursive: true });
  // First, before the database is opened or a first admin made: with execution on and no
  // working sandbox, the start is refused (features/command/confine.ts).
  const confinement = await createConfinement(config);
  const db = await openDb(config.database);
  const users = createUserRepository(db);
  const settings = createSettingsRepository(db);
  const firstRun = await initialise(db, config, explicitServer);
  // The stored key, whichever instance wrote it.
  const key = await settings.signingKey();
  if (!key) throw new Error('the database has no signing key');
  const tokens = createTokenService({ db, key, lifetimeSeconds: config.tokenExpirationTime });
  const files = createFileService({ config, globalRules: () => settings.globalRules() });
  const { shared: given, ...appOptions } = options;
  let shared = given;
  if (!shared && config.redisUrl) {
    const redis = createRedisShared({ url: config.redisUrl });
    // A few seconds at most: Redis down at start still starts, counting locally (docs/deployment.md).
    await redis.ready();
    shared = redis;
  }
  shared ??= createMemoryShared();
  const loginThrottle = createLoginThrottle(shared.throttleStore('login', LOGIN_WINDOW_MS));
  const opts: AppOptions = {
    failureDelayMs: 1000,
    fetch: globalThis.fetch,
    version: VERSION,
    webDist: '',
    jobHeartbeatMs: JOB_HEARTBEAT_MS,
    publicUploadsPerAddress: PUBLIC_UPLOADS_PER_ADDRESS,
    duties: true,
    worker: 0,
    indexWatch: true,
    quotaCacheMs: QUOTA_CACHE_MS,
    ...appOptions,
  };
  const jobStagingLedger = path.join((await chooseDataDir(config)).dir, 'job-staging');
  const sweepJobStaging = () => sweepStaging(jobStagingLedger, (id) => jobs.isUnfinished(id));
  const jobs = createJobService({
    repo: createJobRepository(db),
    // --jobs is for the box; --jobs-per-user counts in the database, over every process.
    limits: { perUser: config.jobsPerUser, total: shareOf(config.jobs) },
    heartbeatMs: opts.jobHeartbeatMs,
    // Jobs found stale later (their process died within the heartbeat before this start).
    afterStale: sweepJobStaging,
  });
  // Jobs a stopped process left "running" are marked failed before anything else is served, and
  // the staging folders they left in users' folders are removed.
  await jobs.recover();
  const davRepo = createDavRepository(db);
  await sweepJobStaging();
  const metrics = createMetrics({
    worker: opts.worker,
    cluster: {
      sessions: () => tokens.countActive(),
      users: () => users.count(),
      shares: async () => Number((await db.kysely.selectFrom('shares').select((eb) => eb.fn.countAll<number>().as('n')).where((eb) => eb.or([eb('expire', '=', 0), eb('expire', '>', Math.floor(Date.now() / 1000))])).executeTakeFirstOrThrow()).n),
      uploads: async () => Number((await db.kysely.selectFrom('uploads').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n),
    },
  });
  const shares = createShareService({ repo: createShareRepository(db), users, files, settings });
  const trash = createTrashService({
    db,
    area: await openTrashArea((await chooseDataDir(config)).dir),
    users,
    serverRoot: config.root,
    retentionDays: config.trashDays,
    dropShares: (real) => shares.removeGoneUnder(real),
    locked: async (target, into) => {
      const key = await files.storageKey(target);
      const found = await Promise.all([davRepo.locksCovering(key), davRepo.locksBelow(key), davRepo.locksCovering(await files.storageKey(into))]);
      return found.some((locks) => locks.length > 0);
    },
  });
  const index = createIndexService({
    store: createIndexStore(db),
    root: config.root,
    // Every process competes for the lease in the database: its holder builds the index, watches
    // the root and reconciles; the others read the index and queue their writes for it
    // (docs/deployment.md "Several instances").
    enabled: !config.disableIndex,
    leaseMs: opts.indexLeaseMs,
    renewMs: opts.indexRenewMs,
    reconcileMs: config.indexReconcileInterval * 1000,
    watch: opts.indexWatch,
    onProgress: (p) => {
      metrics.indexEntries.set(p.entries);
      metrics.indexProgress.set(p.percent);
      metrics.indexReady.set(p.status === 'ready' ? 1 : 0);
    },
  });
  const quota = createQuotaService({
    sizes: createSizeCache({ measure: indexedSizeSource(index), ttlMs: opts.quotaCacheMs, maxEntries: QUOTA_CACHE_ENTRIES }),
    // What a copy adds or a write replaces: walked, exact even before the watcher has seen it.
    measure: walkSizeSource,
    scopeRoot: (user) => scopeRoot(config.root, user.scope),
    trashBytes: (user) => trash.bytes(user),
  });
  const events = createEventBus();
  // Every write the files API, WebDAV and tus make passes here once done: the scopes holding it are measured again.
  events.on((phase, _event, ctx) => {
    if (phase !== 'after') return;
    quota.changed(ctx.file.real);
    if (ctx.destination) quota.changed(ctx.destination.real);
  });
  const deps: Deps = {
    config,
    db,
    users,
    settings,
    tokens,
    appPasswords: createAppPasswordService({ db, loginThrottle }),
    loginThrottle,
    secondFactor: createSecondFactorService({ db }),
    passkeys: createPasskeyService({ db }),
    files,
    events,
    shares,
    publicShares: createPublicService({ shares, users, files, throttle: createSharePasswordThrottle(shared.throttleStore('share', SHARE_WINDOW_MS)), failureDelayMs: opts.failureDelayMs }),
    trash,
    quota,
    metrics,
    index,
    // The total is for the box: with --workers N each process admits its part (cluster/budget.ts).
    // The per-client count stays whole in each process: split, a client's second download could be
    // refused by the process that happens to hold its first while the box is under its limit.
    archiveSlots: createArchiveSlots({ perClient: config.archiveDownloadsPerUser, total: shareOf(config.archiveDownloads) }),
    jobs,
    jobStagingLedger,
    confinement,
    ffmpeg: await detectFfmpeg(config.ffmpegPath),
    shared,
    lifecycle: { closing: false },
    options: opts,
  };
  return { deps, firstRun };
}

export function logFirstRun(log: FastifyBaseLogger, firstRun: FirstRun | null): void {
  if (firstRun?.generatedPassword) {
    log.info(`User '${firstRun.username}' initialized with randomly generated password: ${firstRun.generatedPassword}`);
  }
}
