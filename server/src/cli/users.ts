/** `coffer users ls|find|add|update|rm|export|import` (README "Administration"), on the same rules as the users API. */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Option, type Command } from 'commander';
import YAML from 'yaml';
import { PERMISSION_NAMES, type Permissions, type Rule } from '@coffer/protocol';
import { checkPasswordPolicy, hashPassword, importedHashProblem } from '../auth/passwords.js';
import { createAppPasswordService } from '../auth/app-passwords.js';
import { createLoginThrottle } from '../auth/throttle.js';
import { createTokenService } from '../auth/tokens.js';
import { homeScope, validateUsername } from '../features/signin/home.js';
import { ensureScopeFolder } from '../fs/scope-folder.js';
import { normaliseScope } from '../features/users/service.js';
import { createUserRepository, type NewUser, type UserRecord } from '../features/users/repository.js';
import { rulesError } from '../lib/rules.js';
import { addFlags, applyFlags, LOCK_PASSWORD_FLAG, USER_FLAGS, type UserFields } from './flags.js';
import { CliError, table, UsageError, withCommon, withDb, type CliContext, type CommonOptions } from './context.js';
import { serialise } from './config.js';

const ALL_USER_FLAGS = [...USER_FLAGS, LOCK_PASSWORD_FLAG];

/** `<id|username>`: digits are an id, anything else a user name (exact, else the only case-insensitive match). */
export async function findUser(ctx: Pick<CliContext, 'users'>, ref: string): Promise<UserRecord> {
  const byId = /^\d+$/.test(ref) ? await ctx.users.byId(Number(ref)) : undefined;
  const user = byId ?? (await ctx.users.byUsername(ref)) ?? (await one(ctx.users.byUsernameFolded(ref)));
  if (!user) throw new CliError(`no user ${JSON.stringify(ref)}`);
  return user;
}

async function one<T>(list: Promise<T[]>): Promise<T | undefined> {
  const all = await list;
  return all.length === 1 ? all[0] : undefined;
}

function yesNo(b: boolean): string {
  return b ? 'yes' : 'no';
}

export function usersTable(users: UserRecord[]): string {
  const head = ['ID', 'Username', 'Scope', 'Locale', 'V.Mode', 'S.Click', ...PERMISSION_NAMES.map((p) => p[0]!.toUpperCase() + p.slice(1)), 'Pwd.Lock', 'Commands', 'Rules'];
  return table(
    head,
    users.map((u) => [
      u.id,
      u.username,
      u.scope,
      u.locale,
      u.viewMode,
      yesNo(u.singleClick),
      ...PERMISSION_NAMES.map((p) => yesNo(u.perm[p])),
      yesNo(u.lockPassword),
      u.commands.join(',') || '-',
      u.rules.length,
    ]),
  );
}

function fieldsOf(u: UserRecord): UserFields {
  return {
    scope: u.scope,
    locale: u.locale,
    viewMode: u.viewMode,
    singleClick: u.singleClick,
    redirectAfterCopyMove: u.redirectAfterCopyMove,
    sorting: { ...u.sorting },
    perm: { ...u.perm },
    commands: [...u.commands],
    hideDotfiles: u.hideDotfiles,
    dateFormat: u.dateFormat,
    aceEditorTheme: u.aceEditorTheme,
    quota: u.quota,
    lockPassword: u.lockPassword,
  };
}

function checkPerm(perm: Permissions): void {
  if (perm.share && !perm.download) throw new CliError('permission to share requires permission to download');
}

async function nameFree(ctx: CliContext, username: string, exceptId?: number): Promise<void> {
  if ((await ctx.users.byUsernameFolded(username)).some((u) => u.id !== exceptId)) {
    throw new CliError(`the user name ${JSON.stringify(username)} is taken`);
  }
}

async function scopeFolder(ctx: CliContext, scope: string): Promise<void> {
  await mkdir(path.resolve(ctx.server.root), { recursive: true, mode: 0o750 });
  await ensureScopeFolder(ctx.server.root, scope);
}

/** S21/S22: the user's tokens and app passwords (docs/api.md §2.10) stop working at once. */
export async function revokeSessions(ctx: CliContext, userId: number): Promise<void> {
  await createAppPasswordService({ db: ctx.db, loginThrottle: createLoginThrottle() }).revokeUser(userId);
  const key = await ctx.settings.signingKey();
  if (!key) return;
  await createTokenService({ db: ctx.db, key, lifetimeSeconds: ctx.server.tokenExpirationTime }).revokeUser(userId);
}

async function isLastAdmin(ctx: CliContext, u: UserRecord): Promise<boolean> {
  return u.perm.admin && (await ctx.users.countAdmins()) <= 1;
}

function parseUserFlags(opts: Record<string, unknown>, fields: UserFields, extra: string[] = []): string[] {
  const problems = [...extra];
  const given = applyFlags(ALL_USER_FLAGS, opts, fields, problems);
  if (problems.length) throw new UsageError(problems);
  return given;
}

// ---- export / import ------------------------------------------------------------------------

/** A user as `users export` writes it: API field names, `password` holds the stored hash. */
export interface ExportedUser {
  id: number;
  username: string;
  password: string;
  scope: string;
  locale: string;
  lockPassword: boolean;
  viewMode: string;
  singleClick: boolean;
  redirectAfterCopyMove: boolean;
  perm: Permissions;
  commands: string[];
  sorting: { by: string; asc: boolean };
  rules: Rule[];
  hideDotfiles: boolean;
  dateFormat: boolean;
  aceEditorTheme: string;
  /** Coffer: bytes; 0 = none. */
  quota: number;
}

function exported(u: UserRecord): ExportedUser {
  return {
    id: u.id,
    username: u.username,
    password: u.passwordHash,
    scope: u.scope,
    locale: u.locale,
    lockPassword: u.lockPassword,
    viewMode: u.viewMode,
    singleClick: u.singleClick,
    redirectAfterCopyMove: u.redirectAfterCopyMove,
    perm: { ...u.perm },
    commands: [...u.commands],
    sorting: { ...u.sorting },
    rules: u.rules.map((r) => ({ ...r })),
    hideDotfiles: u.hideDotfiles,
    dateFormat: u.dateFormat,
    aceEditorTheme: u.aceEditorTheme,
    quota: u.quota,
  };
}

/** Validates an imported list completely; every problem is reported, nothing is written. */
export function importedUsers(data: unknown): NewUser[] {
  const list = Array.isArray(data) ? data : [];
  if (!Array.isArray(data)) throw new UsageError(['the file must hold a list of users (as written by "users export")']);
  const problems: string[] = [];
  const seen = new Set<string>();
  const out: NewUser[] = [];
  list.forEach((raw: unknown, i) => {
    const at = `user #${i + 1}`;
    if (typeof raw !== 'object' || raw === null) {
      problems.push(`${at}: not an object`);
      return;
    }
    const u = raw as Partial<ExportedUser> & { passwordHash?: string };
    const username = typeof u.username === 'string' ? u.username : '';
    const who = `${at} (${JSON.stringify(username)})`;
    try {
      validateUsername(username);
    } catch (err) {
      problems.push(`${who}: ${(err as Error).message}`);
    }
    if (seen.has(username.toLowerCase())) problems.push(`${who}: the name appears twice`);
    seen.add(username.toLowerCase());
    const hash = u.password || u.passwordHash || '';
    // Never store a clear-text password: only argon2 or bcrypt hashes of bounded cost are imported (S34).
    const bad = importedHashProblem(hash);
    if (bad) problems.push(`${who}: ${bad}`);
    let scope = '/';
    try {
      scope = normaliseScope(typeof u.scope === 'string' ? u.scope : '/');
    } catch (err) {
      problems.push(`${who}: ${(err as Error).message}`);
    }
    const perm = Object.fromEntries(PERMISSION_NAMES.map((p) => [p, Boolean(u.perm?.[p])])) as Permissions;
    if (perm.share && !perm.download) problems.push(`${who}: permission to share requires permission to download`);
    const rules = Array.isArray(u.rules) ? u.rules.map((r) => ({ regex: Boolean(r.regex), allow: Boolean(r.allow), path: String(r.path ?? ''), regexp: r.regexp ? { raw: String(r.regexp.raw) } : null })) : [];
    const why = rulesError(rules);
    if (why) problems.push(`${who}: invalid rule: ${why}`);
    out.push({
      username,
      passwordHash: hash,
      scope,
      locale: typeof u.locale === 'string' ? u.locale : 'en',
      lockPassword: Boolean(u.lockPassword),
      viewMode: u.viewMode === 'list' || u.viewMode === 'mosaic' ? u.viewMode : 'mosaic',
      singleClick: Boolean(u.singleClick),
      redirectAfterCopyMove: u.redirectAfterCopyMove === undefined ? true : Boolean(u.redirectAfterCopyMove),
      perm,
      commands: Array.isArray(u.commands) ? u.commands.map(String) : [],
      sorting: { by: typeof u.sorting?.by === 'string' ? u.sorting.by : 'name', asc: Boolean(u.sorting?.asc) },
      rules,
      hideDotfiles: Boolean(u.hideDotfiles),
      dateFormat: Boolean(u.dateFormat),
      aceEditorTheme: typeof u.aceEditorTheme === 'string' ? u.aceEditorTheme : '',
      quota: Number.isSafeInteger(u.quota) && u.quota! >= 0 ? u.quota! : 0,
    });
  });
  if (problems.length) throw new UsageError(problems);
  return out;
}

export function registerUsersCommands(program: Command): void {
  const users = program.command('users').description('user accounts (works while a server runs on the same database)');

  withCommon(users.command('ls'))
    .description('list users')
    .action(async (opts: CommonOptions) => {
      await withDb(opts, async (ctx) => ctx.out(usersTable(await ctx.users.list())));
    });

  withCommon(users.command('find <id|username>'))
    .description('show one user')
    .action(async (ref: string, opts: CommonOptions) => {
      await withDb(opts, async (ctx) => ctx.out(usersTable([await findUser(ctx, ref)])));
    });

  addFlags(withCommon(users.command('add <username> <password>')), ALL_USER_FLAGS)
    .description("create a user: the settings' defaults, changed by the flags given; the password policy applies")
    .action(async (username: string, password: string, opts: CommonOptions & Record<string, unknown>) => {
      await withDb(opts, async (ctx) => {
        const settings = await ctx.settings.settings();
        const fields: UserFields = { ...structuredClone(settings.defaults), lockPassword: false };
        const given = parseUserFlags(opts, fields);
        validateUsername(username);
        checkPasswordPolicy(password, settings.minimumPasswordLength);
        checkPerm(fields.perm);
        const derived = !given.includes('scope') && settings.createUserDir;
        const scope = normaliseScope(derived ? homeScope(settings.userHomeBasePath, username) : fields.scope);
        await nameFree(ctx, username);
        await scopeFolder(ctx, scope);
        const created = await ctx.users.insert({
          ...fields,
          lockPassword: fields.lockPassword ?? false,
          username,
          scope,
          viewMode: fields.viewMode || 'mosaic',
          locale: fields.locale || 'en',
          passwordHash: await hashPassword(password),
          rules: [],
        });
        ctx.out(usersTable([created]));
      });
    });

  addFlags(withCommon(users.command('update <id|username>')), ALL_USER_FLAGS)
    .addOption(new Option('-p, --password <password>', 'new password (password policy applies; ends every session of the user)'))
    .addOption(new Option('-u, --username <name>', 'new user name'))
    .description('change a user: only the flags given')
    .action(async (ref: string, opts: CommonOptions & Record<string, unknown> & { password?: string; username?: string }) => {
      await withDb(opts, async (ctx) => {
        const user = await findUser(ctx, ref);
        const fields = fieldsOf(user);
        const given = parseUserFlags(opts, fields);
        const next: UserRecord = { ...user, ...fields, lockPassword: fields.lockPassword ?? user.lockPassword };
        if (opts.username !== undefined) {
          validateUsername(opts.username);
          await nameFree(ctx, opts.username, user.id);
          next.username = opts.username;
        }
        if (opts.password !== undefined) {
          checkPasswordPolicy(opts.password, (await ctx.settings.settings()).minimumPasswordLength);
          next.passwordHash = await hashPassword(opts.password);
        }
        checkPerm(next.perm);
        if (user.perm.admin && !next.perm.admin && (await isLastAdmin(ctx, user))) {
          throw new CliError(`${user.username} is the only admin: it cannot lose the admin permission`);
        }
        if (given.includes('scope')) {
          next.scope = normaliseScope(fields.scope);
          await scopeFolder(ctx, next.scope);
        }
        await ctx.users.update(next);
        if (opts.password !== undefined) await revokeSessions(ctx, user.id);
        ctx.out(usersTable([(await ctx.users.byId(user.id))!]));
      });
    });

  withCommon(users.command('rm <id|username>'))
    .description('delete a user (never the only admin); its sessions end at once')
    .action(async (ref: string, opts: CommonOptions) => {
      await withDb(opts, async (ctx) => {
        const user = await findUser(ctx, ref);
        if (await isLastAdmin(ctx, user)) throw new CliError(`${user.username} is the only admin and cannot be deleted`);
        await ctx.users.delete(user.id);
        await revokeSessions(ctx, user.id);
        ctx.out(`user ${user.username} (id ${user.id}) deleted`);
      });
    });

  withCommon(users.command('export <file>'))
    .description('write every user, with password hashes, to a .json or .yaml file (mode 0600)')
    .action(async (file: string, opts: CommonOptions) => {
      await withDb(opts, async (ctx) => {
        const all = (await ctx.users.list()).map(exported);
        await writeFile(file, serialise(file, all), { mode: 0o600 });
        ctx.out(`${all.length} user(s) written to ${file}`);
      });
    });

  withCommon(users.command('import <file>'))
    .description('import users written by "users export" (or File Browser); matched by user name')
    .option('--overwrite', 'replace users that have the same name')
    .option('--replace', 'replace the whole user base')
    .action(async (file: string, opts: CommonOptions & { overwrite?: boolean; replace?: boolean }) => {
      let data: unknown;
      try {
        const text = await readFile(file, 'utf8');
        data = /\.json$/i.test(file) ? JSON.parse(text) : YAML.parse(text);
      } catch (err) {
        throw new UsageError([`${file}: ${(err as Error).message}`]);
      }
      const incoming = importedUsers(data);
      await withDb(opts, async (ctx) => {
        const existing = opts.replace ? [] : await ctx.users.list();
        const byName = new Map(existing.map((u) => [u.username.toLowerCase(), u]));
        const clashes = incoming.filter((u) => byName.has(u.username.toLowerCase()));
        if (clashes.length && !opts.overwrite) {
          throw new CliError(`already present (use --overwrite or --replace): ${clashes.map((u) => u.username).join(', ')}`);
        }
        // The result must keep at least one admin.
        const kept = existing.filter((u) => !incoming.some((n) => n.username.toLowerCase() === u.username.toLowerCase()));
        if (![...kept, ...incoming].some((u) => u.perm.admin)) throw new CliError('the import would leave no admin');
        // One transaction: a failure half-way leaves the user base as it was.
        await ctx.db.kysely.transaction().execute(async (trx) => {
          const tx: CliContext = { ...ctx, db: { ...ctx.db, kysely: trx }, users: createUserRepository({ ...ctx.db, kysely: trx }) };
          if (opts.replace) {
            for (const u of await tx.users.list()) {
              await tx.users.delete(u.id);
              await revokeSessions(tx, u.id);
            }
          }
          for (const u of incoming) {
            const old = byName.get(u.username.toLowerCase());
            if (old) {
              await tx.users.update({ ...u, id: old.id, updatedAt: old.updatedAt });
              await revokeSessions(tx, old.id);
            } else {
              await tx.users.insert(u);
            }
          }
        });
        for (const u of incoming) await scopeFolder(ctx, u.scope);
        ctx.out(`${incoming.length} user(s) imported`);
      });
    });
}
