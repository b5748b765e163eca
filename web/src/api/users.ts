import type { TokenUser, User, QuotaUse } from '@coffer/protocol';
import { request, requestJson } from './client';

type Field = keyof User;

/** PUT /api/users/{id} writing only `which` (docs/client.md §7: partial updates for locale and other preferences). */
export async function updateUserFields(id: number, data: Partial<User>, which: Field[]): Promise<void> {
  await request(`/users/${id}`, { method: 'PUT', json: { what: 'user', which, data: { ...data, id } } });
}

/**
 * Changes a password with `which: ["password"]` (docs/client.md §7). The server wants the caller's current
 * password with json authentication (docs/api.md §3.2, S35); other methods ignore it.
 */
export async function changePassword(id: number, password: string, currentPassword: string): Promise<void> {
  await request(`/users/${id}`, {
    method: 'PUT',
    json: { what: 'user', which: ['password'], current_password: currentPassword, data: { id, password } },
  });
}

export function getUser(id: number): Promise<User> {
  return requestJson<User>(`/users/${id}`);
}

export type { TokenUser };

/** GET /api/users (admins): every user. */
export function listUsers(signal?: AbortSignal): Promise<User[]> {
  return requestJson<User[]>('/users', { signal });
}

/** GET /api/quotas (docs/api.md §3.8): every user's quota and the bytes counted against it (admins). */
export function listQuotas(signal?: AbortSignal): Promise<QuotaUse[]> {
  return requestJson<QuotaUse[]>('/quotas', { signal });
}

/**
 * POST /api/users (admin). `currentPassword` is the admin's own, which json authentication asks
 * for (docs/api.md §3.2, S35). Returns the client route of the new user from `Location`.
 */
export async function createUser(data: Omit<User, 'id'>, currentPassword: string): Promise<string> {
  const res = await request('/users', {
    method: 'POST',
    json: { what: 'user', which: [], current_password: currentPassword, data },
  });
  return res.headers.get('Location') ?? '/settings/users';
}

/** PUT /api/users/{id} with `which: ["all"]`: the whole record; an empty password keeps the stored one. */
export async function replaceUser(user: User, currentPassword: string): Promise<void> {
  await request(`/users/${user.id}`, {
    method: 'PUT',
    json: { what: 'user', which: ['all'], current_password: currentPassword, data: user },
  });
}

/** DELETE /api/users/{id}, with the caller's own password (docs/api.md §3.6). */
export async function deleteUser(id: number, currentPassword: string): Promise<void> {
  await request(`/users/${id}`, { method: 'DELETE', json: { current_password: currentPassword } });
}

/** DELETE /api/users/{id}/sessions (admins): ends every session of the user (docs/api.md §2.11). */
export async function endUserSessions(id: number): Promise<void> {
  await request(`/users/${id}/sessions`, { method: 'DELETE' });
}

/** DELETE /api/users/{id}/second-factor (admins): second factor off, its sessions ended (docs/api.md §2.12). */
export async function resetSecondFactor(id: number): Promise<void> {
  await request(`/users/${id}/second-factor`, { method: 'DELETE' });
}
