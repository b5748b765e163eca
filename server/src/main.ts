import { access, chmod, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, Option } from 'commander';
import { ConfigError, FILEBROWSER_CONFIG_NAMES, loadConfig, resolveConfig } from './config/load.js';
import { OPTIONS, envName } from './config/schema.js';
import cluster from 'node:cluster';
import type { FastifyBaseLogger } from 'fastify';
import { pino, type Logger } from 'pino';
import { createDeps, logFirstRun, prepareFirstStart, VERSION, type Deps } from './services.js';
import type { App } from './app.js';
import type { ServerConfig } from './config/schema.js';
import { parseWorkers, setRequestProcesses } from './cluster/budget.js';
import { runPrimary, workerRole } from './cluster/primary.js';
import { createIpcShared } from './cluster/ipc.js';
import { openDb } from './db/index.js';
import { createSettingsRepository } from './features/settings/repository.js';
import { registerAdminCommands } from './cli/index.js';
import { shellInEffect } from './features/command/split.js';
import { UsageError } from './cli/context.js';
import { reservedWithin, reservePath } from './fs/reserved.js';
import { serverRootReal } from './fs/resolve.js';
import { closeInheritedDescriptors } from './fs/host.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const WEB_DIST = path.resolve(here, '../../web/dist');

/** Seconds as a Go-style duration for the help text (7200 → 2h, 90 → 1m30s). */
function formatDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s || (!h && !m) ? `${s}s` : ''}`;
}

function collectFlags(opts: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const spec of OPTIONS) if (opts[spec.key] !== undefined) out[spec.key] = opts[spec.key];
  return out;
}

async function readConfigFile(file: string | undefined): Promise<{ name: string; text: string } | null> {
  if (!file) return null;
  return { name: file, text: await readFile(file, 'utf8') };
}

/** File Browser's own config file (.filebrowser.json/.toml/.yaml/.yml in ./, $HOME, /etc/filebrowser), as it looks for one. */
export async function findFileBrowserConfig(dirs = ['.', homedir(), '/etc/filebrowser']): Promise<string | undefined> {
  for (const dir of dirs) {
    for (const name of FILEBROWSER_CONFIG_NAMES) {
      const file = path.join(dir, name);
      try {
        await access(file);
        return file;
      } catch {
        // not there: the next place
      }
    }
  }
  return undefined;
}

async function serve(opts: Record<string, unknown>): Promise<void> {
  const chosenConfig = (opts.config as string | undefined) ?? process.env.COFFER_CONFIG;
  const configFile = chosenConfig ?? (await findFileBrowserConfig());
  const loaded = loadConfig(collectFlags(opts), process.env, await readConfigFile(configFile));
  if (loaded.errors.length) throw new ConfigError(loaded.errors);
  const database = loaded.explicit.database ?? './coffer.db';
  // Stored server settings sit between the config file and the defaults (docs/configuration.md).
  const probe = await openDb(database);
  const stored = await createSettingsRepository(probe).server();
  await probe.close();
  const config = resolveConfig(loaded.explicit, stored);
  // The config file may hold secrets (a metrics token, a password): never served, never in a sandbox.
  if (configFile) await reservePath(configFile);
  const explicitServer = Object.fromEntries(OPTIONS.filter((o) => o.stored && loaded.explicit[o.key] !== undefined).map((o) => [o.key, loaded.explicit[o.key]]));
  const workers = parseWorkers(config.workers) ?? 1;
  if (workers > 1 && cluster.isPrimary) return servePrimary(config, workers, explicitServer);
  // A worker of `--workers N` (cluster/primary.ts): its share of the box, the primary's throttles,
  // and the sweeps only in slot 1.
  const role = workerRole();
  if (role) setRequestProcesses(role.count);
  const duties = !role || role.slot === 1;
  // With --redis-url the workers share through Redis like separate instances; else through the primary.
  const clusterOptions = role
    ? {
        ...(config.redisUrl ? {} : { shared: createIpcShared(process as unknown as Parameters<typeof createIpcShared>[0], (m) => process.emitWarning(m)) }),
        duties,
        worker: role.slot,
      }
    : {};
  const { deps, firstRun } = await createDeps(config, { webDist: WEB_DIST, ...clusterOptions }, explicitServer);
  // Loaded here so the admin sub-commands start without the HTTP stack.
  const { buildApp, loggerOptions } = await import('./app.js');
  const https = config.cert && config.key ? { cert: await readFile(config.cert), key: await readFile(config.key) } : undefined;
  const app = await buildApp(deps, { logger: loggerOptions(config), https });
  logFirstRun(app.log, firstRun);
  deps.shared.attachLog?.(app.log);
  if (config.redisUrl) {
    const h = deps.shared.health();
    if (h.degraded) app.log.warn({ redis: 'down' }, 'Redis is unreachable at start: limits and upload locks count per instance until it is reachable');
    else app.log.info({ redis: 'up' }, 'Redis connected: limits, upload locks and invalidation are shared');
  }
  // With --workers N, the start's notices come once, from slot 1.
  if (duties) await logStartNotices(app, deps, config, loaded.warnings, configFile, chosenConfig);
  await listen(app, deps, config);
}

function logStartNotices(app: App, deps: Deps, config: ServerConfig, warnings: string[], configFile: string | undefined, chosenConfig: string | undefined): Promise<void> {
  return (async () => {
  if (configFile && chosenConfig) app.log.info({ configFile }, 'config file read');
  // Found by File Browser's search (./, $HOME, /etc/filebrowser), not chosen: a file there can set
  // the root or the address, so it is named loudly (docs/configuration.md).
  else if (configFile) {
    app.log.warn({ configFile }, `config file ${configFile} found by File Browser's search and read; pass -c to choose one`);
  }
  for (const warning of warnings) app.log.warn(warning);
  if (deps.ffmpeg) app.log.info({ ffmpeg: deps.ffmpeg.path, version: deps.ffmpeg.version }, 'video thumbnails on: ffmpeg found');
  else if (config.ffmpegPath) app.log.info({ ffmpegPath: config.ffmpegPath }, 'video thumbnails off: ffmpeg not found or not working (install ffmpeg or set --ffmpeg-path)');
  else app.log.info('video thumbnails off: --ffmpeg-path is empty');
  if (!config.disableExec) app.log.warn('command execution is enabled: users with the execute permission can run their allowed commands');
  if (deps.confinement && !deps.confinement.confined) {
    app.log.warn('--unsafe-unconfined-exec: commands and hooks run WITHOUT a sandbox, with every right of the server account on the whole machine');
  }
  if (deps.confinement) {
    const fds = await closeInheritedDescriptors();
    if (fds.length) app.log.info({ fds }, 'closed descriptors inherited from the parent process, so that no command inherits them');
  }
  if (deps.confinement?.confined && process.getuid?.() === 0 && config.commandProcessLimit > 0) {
    app.log.warn('Coffer runs as root: Linux does not apply --command-process-limit to root, so a command may start processes until its time limit; run Coffer as an ordinary account, or cap the whole service (systemd TasksMax=, docker --pids-limit)');
  }
  if (deps.confinement?.confined) {
    const own = (await reservedWithin(await serverRootReal(config.root))).map((r) => r.path);
    if (own.length) app.log.warn({ paths: own }, "Coffer's own files lie inside the root: commands and hooks of users whose scope holds them see that scope read-only");
  }
  // S71: a shell interprets everything after the checked first word.
  const { shell } = await deps.settings.settings();
  if (shellInEffect(shell)) app.log.warn({ shell }, `settings.shell is set: ${config.disableExec ? 'once command execution is enabled, ' : ''}every user with the execute permission can run anything through it`);
  })();
}

async function listen(app: App, deps: Deps, config: ServerConfig): Promise<void> {

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    deps.lifecycle.closing = true;
    const timer = setTimeout(() => {
      app.log.warn('in-flight requests did not finish in time; closing anyway');
      process.exit(1);
    }, config.shutdownTimeout * 1000);
    timer.unref();
    try {
      await app.close();
      await deps.shared.close();
      await deps.db.close();
    } finally {
      process.exit(0);
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  // A worker whose primary is gone (killed, crashed) stops too rather than serve on alone.
  if (cluster.isWorker) process.once('disconnect', () => void stop('primary gone'));

  if (config.socket) {
    await app.listen({ path: config.socket });
    await chmod(config.socket, parseInt(config.socketPerm, 8) || 0o666); // --socket-perm
  } else {
    await app.listen({ host: config.address, port: config.port });
  }
}

/**
 * The primary of `--workers N`: the database's migrations and the first admin once, here, before
 * any worker starts (the workers then find both done), then the workers (cluster/primary.ts).
 */
async function servePrimary(config: ServerConfig, count: number, explicitServer: Partial<ServerConfig>): Promise<void> {
  const log = primaryLogger(config);
  const firstRun = await prepareFirstStart(config, explicitServer);
  logFirstRun(log as unknown as FastifyBaseLogger, firstRun);
  const code = await runPrimary({ count, log, shutdownTimeout: config.shutdownTimeout });
  log.info({ code }, 'stopped');
  process.exit(code);
}

/** The primary's log lines: the destination of --log, the workers' format. */
function primaryLogger(config: ServerConfig): Logger {
  if (config.log === '') return pino({ enabled: false });
  const dest = config.log === 'stdout' ? 1 : config.log === 'stderr' ? 2 : config.log;
  return pino({ base: { pid: process.pid, role: 'primary' } }, pino.destination({ dest, sync: true }));
}

export function buildCli(): Command {
  const program = new Command('coffer')
    .description('Coffer: a self-hosted web file manager (File Browser 2.x API)')
    .version(`Coffer v${VERSION}`, '-v, --version', 'print the version')
    .showHelpAfterError()
    // Usage errors end with exit code 2 (below); sub-commands inherit this.
    .exitOverride();
  const serveCmd = program
    .command('serve', { isDefault: true })
    .description('serve the root folder over HTTP (the default command)')
    .addOption(new Option('-c, --config <file>', 'config file (JSON, YAML or TOML; default: .filebrowser.{json,toml,yaml,yml} in ., ~ or /etc/filebrowser when there is one)').env('COFFER_CONFIG'));
  for (const spec of OPTIONS) {
    const flags = `${spec.short ? `-${spec.short}, ` : ''}--${spec.flag} ${spec.kind === 'boolean' ? '[bool]' : '<value>'}`;
    const def = Array.isArray(spec.default) ? spec.default.join(',') : spec.kind === 'duration' ? formatDuration(spec.default as number) : String(spec.default);
    const option = new Option(flags, `${spec.description} [env ${envName(spec.flag)}] (default: ${def === '' ? '""' : def})`);
    option.attributeName = () => spec.key;
    serveCmd.addOption(option);
  }
  serveCmd.action(async (opts: Record<string, unknown>) => serve(opts));
  registerAdminCommands(program);
  program.command('version').description('print the version').action(() => {
    process.stdout.write(`Coffer v${VERSION}\n`);
  });
  return program;
}

const isEntry = process.argv[1] && /(?:main\.js|coffer(?:\.js)?)$/.test(process.argv[1]);
if (isEntry) {
  buildCli()
    .parseAsync(process.argv)
    .catch((err: unknown) => {
      // Commander has already printed its message (or the help / version).
      if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : 2);
      if (err instanceof UsageError) {
        process.stderr.write(`coffer: ${err.problems.join('\n  ')}\n`);
        process.exit(2);
      }
      if (err instanceof ConfigError) {
        process.stderr.write(`coffer: invalid configuration:\n  ${err.problems.join('\n  ')}\n`);
        process.exit(2);
      }
      process.stderr.write(`coffer: ${(err as Error).message}\n`);
      process.exit(1);
    });
}
