/** Global settings (spec §7 "Users and settings", api.md §4): admin only. */
import type { Settings } from '@coffer/protocol';
import { request, requestJson } from './client';

export function getSettings(): Promise<Settings> {
  return requestJson<Settings>('/settings');
}

/** A full replacement of the editable fields (api.md §4): send the whole object. */
export async function putSettings(settings: Settings): Promise<void> {
  await request('/settings', { method: 'PUT', json: settings });
}
