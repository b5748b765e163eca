/** Global settings (docs/client.md §7 "Users and settings", docs/api.md §4): admin only. */
import type { IndexProgress, Settings } from '@coffer/protocol';
import { request, requestJson } from './client';

export function getSettings(): Promise<Settings> {
  return requestJson<Settings>('/settings');
}

/** A full replacement of the editable fields (docs/api.md §4.2): send the whole object. */
export async function putSettings(settings: Settings): Promise<void> {
  await request('/settings', { method: 'PUT', json: settings });
}

/** The file index's progress (docs/api.md §24.1): admin only. */
export function getIndexProgress(): Promise<IndexProgress> {
  return requestJson<IndexProgress>('/index');
}
