/** Global settings (docs/client.md §7 "Users and settings", docs/api.md §4): admin only. */
import type { IndexProgress, OidcDiscoveryResult, OidcSettings, OidcSettingsInput, Settings } from '@coffer/protocol';
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

/** The OIDC card of the global settings (docs/api.md §2.14): the secret only as set or not. */
export function getOidcSettings(): Promise<OidcSettings> {
  return requestJson<OidcSettings>('/settings/oidc');
}

/** Replaces the OIDC settings: a 422 ApiError carries the field problems (`fields`). */
export function putOidcSettings(input: OidcSettingsInput): Promise<OidcSettings> {
  return requestJson<OidcSettings>('/settings/oidc', { method: 'PUT', json: input });
}

/** Asks the server to fetch the issuer's discovery document. */
export function testOidcDiscovery(issuer: string): Promise<OidcDiscoveryResult> {
  return requestJson<OidcDiscoveryResult>('/settings/oidc/discovery', { method: 'POST', json: { issuer } });
}
