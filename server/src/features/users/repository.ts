import type { Permissions, Rule, Sorting } from '@coffer/protocol';
import type { Selectable } from 'kysely';
import type { Db } from '../../db/index.js';
import type { UsersTable } from '../../db/schema.js';

/** A user as the server works with it. Never leaves the server as is: see present.ts. */
export interface UserRecord {
  id: number;
  username: string;
  passwordHash: string;
  scope: string;
  locale: string;
  lockPassword: boolean;
  viewMode: string;
  singleClick: boolean;
  redirectAfterCopyMove: boolean;
  perm: Permissions;
  commands: string[];
  sorting: Sorting;
  rules: Rule[];
  hideDotfiles: boolean;
  dateFormat: boolean;
  aceEditorTheme: string;
  /** Bytes the scope and its trash may hold (docs/api.md §3.1); 0 = no quota. */
  quota: number;
  updatedAt: number;
}
export type NewUser = Omit<UserRecord, 'id' | 'updatedAt'>;

/** A `users` row as a UserRecord (also used by the token check's joined query). */
export function userFromRow(r: Selectable<UsersTable>): UserRecord {
  return {
    id: Number(r.id),
    username: r.username,
    passwordHash: r.password_hash,
    scope: r.scope,
    locale: r.locale,
    lockPassword: Boolean(r.lock_password),
    viewMode: r.view_mode,
    singleClick: Boolean(r.single_click),
    redirectAfterCopyMove: Boolean(r.redirect_after_copy_move),
    perm: JSON.parse(r.perm) as Permissions,
    commands: JSON.parse(r.commands) as string[],
    sorting: JSON.parse(r.sorting) as Sorting,
    rules: JSON.parse(r.rules) as Rule[],
    hideDotfiles: Boolean(r.hide_dotfiles),
    dateFormat: Boolean(r.date_format),
    aceEditorTheme: r.ace_editor_theme,
    quota: Number(r.quota ?? 0),
    updatedAt: Number(r.updated_at),
  };
}

function toRow(u: NewUser, now: number): Omit<UsersTable, 'id'> {
  return {
    username: u.username,
    password_hash: u.passwordHash,
    scope: u.scope,
    locale: u.locale,
    lock_password: u.lockPassword ? 1 : 0,
    view_mode: u.viewMode,
    single_click: u.singleClick ? 1 : 0,
    redirect_after_copy_move: u.redirectAfterCopyMove ? 1 : 0,
    perm: JSON.stringify(u.perm),
    commands: JSON.stringify(u.commands),
    sorting: JSON.stringify(u.sorting),
    rules: JSON.stringify(u.rules),
    hide_dotfiles: u.hideDotfiles ? 1 : 0,
    date_format: u.dateFormat ? 1 : 0,
    ace_editor_theme: u.aceEditorTheme,
    quota: u.quota,
    updated_at: now,
  };
}

export class DuplicateUsername extends Error {}

/** The form usernames are compared in for uniqueness (S33, S37). */
export function foldUsername(username: string): string {
  return username.normalize('NFC').toLowerCase();
}

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint/i.test(e?.message ?? '');
}

export function createUserRepository(db: Db, now: () => number = () => Math.floor(Date.now() / 1000)) {
  const k = db.kysely;
  return {
    async count(): Promise<number> {
      const r = await k.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      return Number(r.n);
    },
    async list(): Promise<UserRecord[]> {
      return (await k.selectFrom('users').selectAll().orderBy('id').execute()).map(userFromRow);
    },
    async byId(id: number): Promise<UserRecord | undefined> {
      if (!Number.isSafeInteger(id)) return undefined;
      const r = await k.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
      return r && userFromRow(r);
    },
    async byUsername(username: string): Promise<UserRecord | undefined> {
      const r = await k.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
      return r && userFromRow(r);
    },
    /**
     * Case-insensitive look-up, for the "taken after normalisation" checks (S33, S37). Folded in
     * JS (NFC + toLowerCase): SQLite's lower() folds ASCII only, PostgreSQL's all of Unicode, and
     * both engines must agree. The users table is small; one column is read.
     */
    async byUsernameFolded(username: string): Promise<UserRecord[]> {
      const key = foldUsername(username);
      const names = await k.selectFrom('users').select(['id', 'username']).execute();
      const ids = names.filter((r) => foldUsername(r.username) === key).map((r) => Number(r.id));
      if (ids.length === 0) return [];
      return (await k.selectFrom('users').selectAll().where('id', 'in', ids).orderBy('id').execute()).map(userFromRow);
    },
    async countAdmins(): Promise<number> {
      const all = await k.selectFrom('users').select(['perm']).execute();
      return all.filter((r) => (JSON.parse(r.perm) as Permissions).admin).length;
    },
    async insert(u: NewUser): Promise<UserRecord> {
      try {
        const r = await k.insertInto('users').values(toRow(u, now())).returningAll().executeTakeFirstOrThrow();
        return userFromRow(r);
      } catch (err) {
        if (isUniqueViolation(err)) throw new DuplicateUsername(u.username, { cause: err });
        throw err;
      }
    },
    /** Writes every field of `u`; bumps updated_at. */
    async update(u: UserRecord): Promise<void> {
      try {
        await k.updateTable('users').set(toRow(u, now())).where('id', '=', u.id).execute();
      } catch (err) {
        if (isUniqueViolation(err)) throw new DuplicateUsername(u.username, { cause: err });
        throw err;
      }
    },
    async delete(id: number): Promise<boolean> {
      const r = await k.deleteFrom('users').where('id', '=', id).executeTakeFirst();
      // What signs the user in goes with it (docs/api.md §2.10, §2.12).
      for (const table of ['app_passwords', 'totp', 'recovery_codes', 'passkeys', 'webauthn_challenges', 'oidc_identities'] as const) {
        await k.deleteFrom(table).where('user_id', '=', id).execute();
      }
      return Number(r.numDeletedRows) > 0;
    },
  };
}
export type UserRepository = ReturnType<typeof createUserRepository>;
