/**
 * `coffer import filebrowser <filebrowser.db>` (docs/migrating-from-filebrowser.md): reads File Browser's
 * database file directly (a copy in memory: the file is never written, a lock File Browser holds
 * does not matter) and carries its users, settings, auth method and shares into Coffer's database
 * in one transaction; its server settings go to a config file. Run again, it updates what it
 * imported before. A file that is not a File Browser database, or is damaged, is refused before
 * anything is written.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Option, type Command } from 'commander';
import { isBcrypt } from '../auth/passwords.js';
import { isPostgresUrl } from '../db/index.js';
import { BoltFormatError, NotFileBrowserError, readFileBrowserDb } from '../features/import/filebrowser-db.js';
import { planImport, type ImportPlan, type PlannedShare } from '../features/import/filebrowser-plan.js';
import { createSettingsRepository } from '../features/settings/repository.js';
import { createShareRepository } from '../features/shares/repository.js';
import { createUserRepository, foldUsername, type UserRecord } from '../features/users/repository.js';
import { ensureScopeFolder } from '../fs/scope-folder.js';
import { resolvePath } from '../fs/resolve.js';
import { revokeSessions } from './users.js';
import { CliError, hasDatabase, withCommon, withDb, type CliContext, type CommonOptions } from './context.js';

/** Far above any File Browser database (a few MiB for thousands of users and shares). */
const MAX_DB_BYTES = 1024 * 1024 * 1024;
/** kv record: digests of the password hashes the last import set, by folded user name. */
const IMPORT_RECORD = 'import.filebrowser';
const DEFAULT_SERVER_CONFIG = 'coffer-from-filebrowser.json';

interface ImportOptions extends CommonOptions {
  dryRun?: boolean;
  keepAuthMethod?: boolean;
  replaceUsers?: boolean;
  root?: string;
  serverConfig?: string;
}

type Action = 'create' | 'update';
interface Outcome {
  users: { name: string; action: Action; note?: string }[];
  shares: { share: PlannedShare; action: Action }[];
  notes: string[];
}

const digest = (s: string) => createHash('sha256').update(s).digest('hex');

async function readDbFile(file: string): Promise<Buffer> {
  let size: number;
  try {
    const st = await stat(file);
    if (!st.isFile()) throw new CliError(`${file}: not a file`);
    size = st.size;
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(`${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
  if (size > MAX_DB_BYTES) throw new CliError(`${file}: ${size} bytes is larger than any File Browser database; nothing imported`);
  return readFile(file);
}

function load(file: string, data: Buffer) {
  try {
    return readFileBrowserDb(data);
  } catch (err) {
    if (err instanceof BoltFormatError || err instanceof NotFileBrowserError) throw new CliError(`${file}: ${err.message}; nothing imported`);
    throw err;
  }
}

/** The real location of a share's target now (or where it would be), for the clean-up of S48. */
async function realPathOf(root: string, owner: UserRecord, sharePath: string): Promise<string> {
  try {
    return (await resolvePath(owner, sharePath, { serverRoot: root, globalRules: [], rules: false })).real;
  } catch {
    return path.join(path.resolve(root), owner.scope, sharePath);
  }
}

/**
 * Writes the plan in one transaction (or, with `dryRun`, only works out what it would do). `ctx`
 * is null for a dry run without a Coffer database yet: everything would be created.
 */
async function apply(ctx: CliContext | null, fullPlan: ImportPlan, root: string, dryRun: boolean, replaceUsers: boolean): Promise<Outcome> {
  const out: Outcome = { users: [], shares: [], notes: [] };
  const initialised = ctx ? await ctx.settings.isInitialised() : false;
  const before = ctx && initialised ? await ctx.users.list() : [];
  const byName = new Map(before.map((u) => [foldUsername(u.username), u]));
  const last = (ctx && initialised ? await ctx.settings.get<Record<string, string>>(IMPORT_RECORD) : undefined) ?? {};
  const record: Record<string, string> = { ...last };
  // A file must not take over an account made in Coffer (its password, its admin right): only
  // users an earlier import made are updated, others only with --replace-users.
  const foreign = (name: string) => byName.has(foldUsername(name)) && !Object.hasOwn(last, foldUsername(name)) && !replaceUsers;
  const plan = { ...fullPlan, users: fullPlan.users.filter((p) => !foreign(p.user.username)), shares: fullPlan.shares.filter((s) => !foreign(s.owner)) };
  for (const p of fullPlan.users) {
    if (foreign(p.user.username)) out.notes.push(`user ${p.fbId} ${JSON.stringify(p.user.username)}: a Coffer user of that name was not imported from File Browser; kept as it is (--replace-users replaces it)`);
  }
  for (const s of fullPlan.shares) if (foreign(s.owner)) out.notes.push(`share ${s.hash}: its owner ${JSON.stringify(s.owner)} is not imported`);
  const incoming = new Set(plan.users.map((p) => foldUsername(p.user.username)));
  const kept = before.filter((u) => !incoming.has(foldUsername(u.username)));
  if (![...kept, ...plan.users.map((p) => p.user)].some((u) => u.perm.admin)) throw new CliError('the import would leave no admin; nothing imported');
  const revoke: number[] = [];
  const work = async (tx: CliContext | null) => {
    const shares = tx && createShareRepository(tx.db);
    if (tx) {
      if (plan.settings) await tx.settings.saveSettings(plan.settings);
      await tx.settings.saveAuther(plan.auther);
      if (!initialised) await tx.settings.saveSigningKey(randomBytes(64));
    }
    const owners = new Map<string, UserRecord>();
    for (const { user, fbId } of plan.users) {
      const folded = foldUsername(user.username);
      const old = byName.get(folded);
      const notes: string[] = [];
      let passwordHash = user.passwordHash;
      // A password upgraded at sign-in or changed in Coffer since the last import is kept,
      // unless File Browser's own hash changed since then too.
      if (old && !isBcrypt(old.passwordHash) && last[folded] === digest(user.passwordHash)) {
        passwordHash = old.passwordHash;
        notes.push('password kept: changed or upgraded in Coffer since the last import');
      }
      record[folded] = digest(user.passwordHash);
      let saved: UserRecord = { ...user, passwordHash, id: old?.id ?? -1, updatedAt: old?.updatedAt ?? 0 };
      if (tx && old) await tx.users.update(saved);
      else if (tx) saved = await tx.users.insert(saved);
      if (old && passwordHash !== old.passwordHash) revoke.push(old.id);
      if (saved.id !== -1 && String(saved.id) !== fbId) notes.push(`id ${saved.id}, File Browser's was ${fbId}`);
      owners.set(user.username, saved);
      out.users.push({ name: user.username, action: old ? 'update' : 'create', note: notes.join('; ') || undefined });
    }
    for (const s of plan.shares) {
      const owner = owners.get(s.owner)!;
      // Read through the transaction when there is one (SQLite: the outer handle waits for it).
      const reader = shares ?? (ctx && createShareRepository(ctx.db));
      const exists = reader && initialised ? (await reader.byHash(s.hash)) !== undefined : false;
      out.shares.push({ share: s, action: exists ? 'update' : 'create' });
      await shares?.upsert({
        hash: s.hash,
        path: s.path,
        userId: owner.id,
        expire: s.expire,
        passwordHash: s.passwordHash,
        // Unknown identity: the link opens whatever file is at its path (as in File Browser).
        dev: '',
        ino: '',
        realPath: await realPathOf(root, owner, s.path),
        createdAt: Math.floor(Date.now() / 1000),
        legacyTokenSha256: s.tokenSha256,
      });
    }
    if (tx) await tx.settings.put(IMPORT_RECORD, record);
  };
  if (!ctx || dryRun) {
    await work(null);
    return out;
  }
  await ctx.db.kysely.transaction().execute(async (trx) => {
    const db = { ...ctx.db, kysely: trx };
    await work({ ...ctx, db, users: createUserRepository(db), settings: createSettingsRepository(db) });
  });
  // A password the import changed ends the user's sessions and app passwords (S21, docs/api.md §2.10).
  for (const id of revoke) await revokeSessions(ctx, id);
  return out;
}

/** Makes the imported users' scope folders when the root is there; a failure is a note, not an error. */
async function scopeFolders(root: string, plan: ImportPlan, out: Outcome): Promise<void> {
  try {
    if (!(await stat(root)).isDirectory()) throw new Error();
  } catch {
    out.notes.push(`the root ${root} is not a folder here: scope folders are not checked`);
    return;
  }
  for (const { user } of plan.users) {
    try {
      await ensureScopeFolder(root, user.scope);
    } catch (err) {
      out.notes.push(`user ${JSON.stringify(user.username)}: scope folder ${user.scope}: ${(err as Error).message}`);
    }
  }
}

function report(file: string, plan: ImportPlan, out: Outcome, configFile: string, config: Record<string, unknown>, dryRun: boolean): string {
  const lines: string[] = [];
  const would = dryRun ? 'would ' : '';
  lines.push(`${dryRun ? 'Dry run (nothing written): ' : ''}File Browser database ${file}`);
  lines.push(`users (${out.users.length}):`);
  for (const u of out.users) lines.push(`  ${would}${u.action} ${u.name}${u.note ? ` (${u.note})` : ''}`);
  lines.push(plan.settings ? `settings: ${would}replace Coffer's (auth method ${plan.auther.method})` : `settings: kept (auth method ${plan.auther.method})`);
  lines.push(`shares (${out.shares.length}):`);
  for (const { share: s, action } of out.shares) {
    const expiry = s.expire === 0 ? 'permanent' : `until ${new Date(s.expire * 1000).toISOString()}`;
    lines.push(`  ${would}${action} ${s.hash}: ${s.owner} ${s.path} (${expiry}${s.passwordHash ? ', password' : ''}${s.tokenSha256 ? ', download token' : ''})`);
  }
  if (plan.skipped.length) lines.push(`left out (${plan.skipped.length}):`, ...plan.skipped.map((s) => `  ${s}`));
  if (plan.differences.length) lines.push(`not carried over (${plan.differences.length}):`, ...plan.differences.map((s) => `  ${s}`));
  if (out.notes.length) lines.push('notes:', ...out.notes.map((s) => `  ${s}`));
  lines.push(`server settings ${dryRun ? 'would be ' : ''}written to ${configFile}:`);
  lines.push(JSON.stringify(config, null, 2));
  lines.push(`start Coffer with: coffer -c ${configFile}`);
  return lines.join('\n');
}

export function registerImportCommands(program: Command): void {
  const imp = program.command('import').description('bring users, settings and shares over from another program');
  withCommon(imp.command('filebrowser <filebrowser.db>'))
    .description("import File Browser's database file: users (passwords kept), settings, auth method and shares; server settings go to a config file")
    .addOption(new Option('--dry-run', 'print what would be imported and what cannot be carried over; write nothing'))
    .addOption(new Option('--keep-auth-method', "keep File Browser's noauth, proxy or hook auth method (without it, sign-in with a password is used)"))
    .addOption(new Option('--replace-users', 'replace Coffer users of the same name that no earlier import made (their password and permissions)'))
    .addOption(new Option('-r, --root <folder>', "the folder File Browser served, if it moved (default: File Browser's root setting)"))
    .addOption(new Option('--server-config <file>', 'where to write the server settings (JSON)').default(DEFAULT_SERVER_CONFIG))
    .action(async (file: string, opts: ImportOptions) => {
      const plan = planImport(load(file, await readDbFile(file)), Math.floor(Date.now() / 1000), { keepAuthMethod: Boolean(opts.keepAuthMethod) });
      const dryRun = Boolean(opts.dryRun);
      const configFile = opts.serverConfig ?? DEFAULT_SERVER_CONFIG;
      const run = async (ctx: CliContext | null) => {
        const root = path.resolve(opts.root ?? (typeof plan.server.root === 'string' ? plan.server.root : (ctx?.server.root ?? '.')));
        const database = ctx?.server.database ?? opts.database ?? './coffer.db';
        const config = { ...plan.server, root, database: isPostgresUrl(database) ? database : path.resolve(database) };
        const out = await apply(ctx, plan, root, dryRun, Boolean(opts.replaceUsers));
        if (!dryRun) {
          await scopeFolders(root, plan, out);
          await mkdir(path.dirname(path.resolve(configFile)), { recursive: true });
          await writeFile(configFile, JSON.stringify(config, null, 2) + '\n', { mode: 0o600 });
        }
        process.stdout.write(report(file, plan, out, configFile, config, dryRun) + '\n');
      };
      if (!dryRun) return withDb(opts, run, { create: true });
      // A dry run creates no database: without one, everything would be created.
      if (!(await hasDatabase(opts))) return run(null);
      return withDb(opts, run);
    });
}
