import type { TokenUser, User } from '@coffer/protocol';
import { request, requestJson } from './client';

type Field = keyof User;

/** PUT /api/users/{id} writing only `which` (spec §7: partial updates for locale and other preferences). */
export async function updateUserFields(id: number, data: Partial<User>, which: Field[]): Promise<void> {
  await request(`/users/${id}`, { method: 'PUT', json: { what: 'user', which, data: { ...data, id } } });
}

/**
 * Changes a password with `which: ["password"]` (spec §7). The server wants the caller's current
 * password with json authentication (api.md §3, S35); other methods ignore it.
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
