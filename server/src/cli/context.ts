/**
 * What every admin sub-command shares: where the database is (-d, COFFER_DATABASE, the config
 * file's `database`, ./coffer.db), the server settings it needs (root), and errors mapped to exit
 * codes (2 = the command line is wrong, 1 = the command was refused or failed).
 */
import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Option, type Command } from 'commander';
import { ConfigError, loadConfig, resolveConfig } from '../config/load.js';
import type { ServerConfig } from '../config/schema.js';
import { isPostgresUrl, openDb, type Db } from '../db/index.js';
import { createSettingsRepository, type SettingsRepository } from '../features/settings/repository.js';
import { createUserRepository, type UserRepository } from '../features/users/repository.js';
import { HttpError } from '../http/errors.js';

/** The command line itself is wrong: exit code 2, every problem listed. */
export class UsageError extends ConfigError {}

/** The command was refused (policy, last admin, duplicate…): exit code 1. */
export class CliError extends Error {}

export interface CommonOptions {
  database?: string;
  config?: string;
}

export interface CliContext {
  db: Db;
  users: UserRepository;
  settings: SettingsRepository;
  /** Server settings as the server would resolve them now (flags aside): env > file > stored > default. */
  server: ServerConfig;
  out: (text: string) => void;
}

/** Adds -d/--database and -c/--config to an admin command. */
export function withCommon(cmd: Command): Command {
  return cmd
    .addOption(new Option('-d, --database <path>', 'SQLite file or postgres:// URL (default: ./coffer.db)').env('COFFER_DATABASE'))
    .addOption(new Option('-c, --config <file>', 'config file (JSON or YAML) to read database and root from').env('COFFER_CONFIG'));
}

async function loadExplicit(opts: CommonOptions) {
  const file = opts.config ? { name: opts.config, text: await readFile(opts.config, 'utf8') } : null;
  const loaded = loadConfig(opts.database ? { database: opts.database } : {}, process.env, file);
  if (loaded.errors.length) throw new ConfigError(loaded.errors);
  return loaded.explicit;
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

/** Is there an initialised Coffer database where `opts` point? (A dry run must not create one.) */
export async function hasDatabase(opts: CommonOptions): Promise<boolean> {
  const database = (await loadExplicit(opts)).database ?? './coffer.db';
  if (!isPostgresUrl(database) && !(await exists(path.resolve(database)))) return false;
  const db = await openDb(database);
  try {
    return await createSettingsRepository(db).isInitialised();
  } finally {
    await db.close();
  }
}

/**
 * Opens the database, runs `fn`, closes it. `create` allows a database that does not exist yet
 * (config init/import); otherwise it must be initialised (a server ran once, or config init).
 */
export async function withDb<T>(opts: CommonOptions, fn: (ctx: CliContext) => Promise<T>, mode: { create?: boolean } = {}): Promise<T> {
  const explicit = await loadExplicit(opts);
  const database = explicit.database ?? './coffer.db';
  if (!mode.create && !isPostgresUrl(database) && !(await exists(path.resolve(database)))) {
    throw new CliError(`no database at ${path.resolve(database)} (start the server once, or run "coffer config init")`);
  }
  const db = await openDb(database);
  try {
    const settings = createSettingsRepository(db);
    if (!mode.create && !(await settings.isInitialised())) {
      throw new CliError('the database is not initialised (start the server once, or run "coffer config init")');
    }
    const server = resolveConfig({ ...explicit, database }, await settings.server());
    return await fn({ db, users: createUserRepository(db), settings, server, out: (t) => process.stdout.write(t.endsWith('\n') ? t : t + '\n') });
  } catch (err) {
    // Reused validators throw HTTP errors; on the command line they are refusals with their reason.
    if (err instanceof HttpError) throw new CliError(err.detail || err.message, { cause: err });
    throw err;
  } finally {
    await db.close();
  }
}

/** Prints rows as an aligned text table. */
export function table(head: string[], rows: (string | number | boolean)[][]): string {
  const cells = [head, ...rows.map((r) => r.map((c) => String(c)))];
  const widths = head.map((_, i) => Math.max(...cells.map((r) => [...(r[i] ?? '')].length)));
  return cells.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c + ' '.repeat(widths[i]! - [...c].length))).join('  ')).join('\n');
}
