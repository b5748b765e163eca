/** Direct API calls for test set-up (users, settings), as a script would make them. */
import { ADMIN } from './server';

export async function apiLogin(
  url: string,
  username = ADMIN.username,
  password = ADMIN.password,
): Promise<string> {
  const res = await fetch(`${url}/api/login`, {
    method: 'POST',
    body: JSON.stringify({ username, password, recaptcha: '' }),
  });
  if (!res.ok) throw new Error(`login as ${username}: ${res.status}`);
  return res.text();
}

const NO_PERMS = {
  admin: false,
  execute: false,
  create: false,
  rename: false,
  modify: false,
  delete: false,
  share: false,
  download: false,
};

export interface NewUser {
  username: string;
  password: string;
  locale?: string;
  admin?: boolean;
  dateFormat?: boolean;
  /** Permission overrides on top of the non-admin defaults. */
  perm?: Partial<typeof NO_PERMS>;
  /** Programs the user may run in the shell panel. */
  commands?: string[];
  scope?: string;
}

/** POST /api/users as the admin; returns the new id (from Location). */
export async function createUser(url: string, user: NewUser): Promise<number> {
  const token = await apiLogin(url);
  const perm = user.admin
    ? Object.fromEntries(Object.keys(NO_PERMS).map((k) => [k, true]))
    : {
        ...NO_PERMS,
        create: true,
        rename: true,
        modify: true,
        delete: true,
        share: true,
        download: true,
        ...user.perm,
      };
  const res = await fetch(`${url}/api/users`, {
    method: 'POST',
    headers: { 'X-Auth': token, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      what: 'user',
      which: [],
      current_password: ADMIN.password,
      data: {
        username: user.username,
        password: user.password,
        scope: user.scope ?? '/',
        locale: user.locale ?? '',
        lockPassword: false,
        viewMode: 'list',
        singleClick: false,
        redirectAfterCopyMove: true,
        perm,
        commands: user.commands ?? [],
        sorting: { by: 'name', asc: false },
        rules: [],
        hideDotfiles: false,
        dateFormat: user.dateFormat ?? false,
        aceEditorTheme: '',
      },
    }),
  });
  if (res.status !== 201) throw new Error(`create ${user.username}: ${res.status} ${await res.text()}`);
  const id = Number((res.headers.get('Location') ?? '').split('/').pop());
  return id;
}

type Json = Record<string, unknown>;

/** Reads the settings, applies `change`, writes them back (PUT /api/settings needs the whole object). */
export async function updateSettings(url: string, change: (s: Json) => void): Promise<void> {
  const token = await apiLogin(url);
  const res = await fetch(`${url}/api/settings`, { headers: { 'X-Auth': token } });
  if (!res.ok) throw new Error(`GET settings: ${res.status}`);
  const settings = (await res.json()) as Json;
  change(settings);
  const put = await fetch(`${url}/api/settings`, {
    method: 'PUT',
    headers: { 'X-Auth': token, 'Content-Type': 'application/json' },
    body: JSON.stringify(settings),
  });
  if (!put.ok) throw new Error(`PUT settings: ${put.status} ${await put.text()}`);
}

/**
 * The admin's listing as most tests want it: list view, names A→Z (stored as `asc: false`,
 * docs/api.md §7.5), plus the preferences in `also` (such as singleClick).
 */
export async function listByName(url: string, also: Json = {}): Promise<void> {
  await updateUser(url, 1, { viewMode: 'list', sorting: { by: 'name', asc: false }, ...also }, [
    'viewMode',
    'sorting',
    ...Object.keys(also),
  ]);
}

/**
 * PUT /api/users/{id} with only `which` (preferences such as viewMode and sorting, or guarded
 * fields such as lockPassword: the admin's current password goes along), as the admin.
 */
export async function updateUser(url: string, id: number, data: Json, which: string[]): Promise<void> {
  const token = await apiLogin(url);
  const res = await fetch(`${url}/api/users/${id}`, {
    method: 'PUT',
    headers: { 'X-Auth': token, 'Content-Type': 'application/json' },
    body: JSON.stringify({ what: 'user', which, current_password: ADMIN.password, data: { ...data, id } }),
  });
  if (!res.ok) throw new Error(`PUT user ${id}: ${res.status} ${await res.text()}`);
}

export interface ShareJson {
  hash: string;
  path: string;
  userID: number;
  expire: number;
  hasPassword: boolean;
}

/** POST /api/share{path} (default: as the admin); `body` as the client sends it ({} = permanent, no password). */
export async function createShare(
  url: string,
  itemPath: string,
  body: { expires?: string; unit?: string; password?: string; kind?: 'upload'; message?: string; maxFileSize?: number; maxFiles?: number; maxBytes?: number } = {},
  as: { username: string; password: string } = ADMIN,
): Promise<ShareJson> {
  const token = await apiLogin(url, as.username, as.password);
  const res = await fetch(`${url}/api/share${itemPath}`, {
    method: 'POST',
    headers: { 'X-Auth': token, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`share ${itemPath}: ${res.status} ${await res.text()}`);
  return (await res.json()) as ShareJson;
}

/** GET /api/share{path} as the admin. */
export async function sharesOf(url: string, itemPath: string): Promise<ShareJson[]> {
  const token = await apiLogin(url);
  const res = await fetch(`${url}/api/share${itemPath}`, { headers: { 'X-Auth': token } });
  if (!res.ok) throw new Error(`shares of ${itemPath}: ${res.status}`);
  return (await res.json()) as ShareJson[];
}

/** GET as the admin (or as `as`), parsed JSON. */
export async function apiGet<T = Json>(
  url: string,
  path: string,
  as?: { username: string; password: string },
): Promise<T> {
  const token = await apiLogin(url, as?.username, as?.password);
  const res = await fetch(`${url}/api${path}`, { headers: { 'X-Auth': token } });
  if (!res.ok) throw new Error(`GET ${path}: ${res.status}`);
  return (await res.json()) as T;
}

/** DELETE /api/users/{id} as the admin (clean-up after a test). */
export async function deleteUser(url: string, id: number): Promise<void> {
  const token = await apiLogin(url);
  const res = await fetch(`${url}/api/users/${id}`, {
    method: 'DELETE',
    headers: { 'X-Auth': token, 'Content-Type': 'application/json' },
    body: JSON.stringify({ current_password: ADMIN.password }),
  });
  if (!res.ok) throw new Error(`DELETE user ${id}: ${res.status} ${await res.text()}`);
}
