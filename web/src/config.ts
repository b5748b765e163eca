/**
 * The server's settings as the page injected them (api.md §5, page-contract.md). The client reads
 * server settings from here only; nothing about the server is hard-coded.
 */
import type { ClientConfig } from '@coffer/protocol';

declare global {
  interface Window {
    FileBrowser?: Partial<ClientConfig>;
    __prependStaticUrl?: (url: string) => string;
  }
}

/** Default product name when branding gives none (api.md §5: the page title falls back to it too). */
export const DEFAULT_NAME = 'File Browser';

function readConfig(): ClientConfig {
  const raw = window.FileBrowser ?? {};
  const baseURL = (raw.BaseURL ?? '').replace(/\/+$/, '');
  return {
    Name: raw.Name ?? '',
    DisableExternal: raw.DisableExternal ?? false,
    DisableUsedPercentage: raw.DisableUsedPercentage ?? false,
    Color: raw.Color ?? '',
    BaseURL: baseURL,
    Version: raw.Version ?? '',
    StaticURL: (raw.StaticURL ?? `${baseURL}/static`).replace(/\/+$/, ''),
    Signup: raw.Signup ?? false,
    NoAuth: raw.NoAuth ?? false,
    AuthMethod: raw.AuthMethod ?? 'json',
    LogoutPage: raw.LogoutPage ?? '/login',
    LoginPage: raw.LoginPage ?? true,
    CSS: raw.CSS ?? false,
    ReCaptcha: raw.ReCaptcha ?? false,
    ReCaptchaHost: raw.ReCaptchaHost,
    ReCaptchaKey: raw.ReCaptchaKey,
    Theme: raw.Theme ?? '',
    EnableThumbs: raw.EnableThumbs ?? true,
    ResizePreview: raw.ResizePreview ?? true,
    EnableExec: raw.EnableExec ?? false,
    TusSettings: raw.TusSettings ?? { chunkSize: 0, retryCount: 0 },
    HideLoginButton: raw.HideLoginButton ?? false,
  };
}

export const config: ClientConfig = readConfig();

/** The product name shown in titles and on the login screen. */
export function productName(): string {
  return config.Name || DEFAULT_NAME;
}

/** `/api/...` under the base URL. `path` starts with `/`. */
export function apiUrl(path: string): string {
  return `${config.BaseURL}/api${path}`;
}

/** A static asset under the static URL (logo, icons). */
export function staticUrl(path: string): string {
  return `${config.StaticURL}/${path.replace(/^\/+/, '')}`;
}

/** Whether the user may log out at all (spec §2 sidebar: not in no-auth mode, not without a login page). */
export function canLogout(): boolean {
  return !config.NoAuth && config.LoginPage;
}
