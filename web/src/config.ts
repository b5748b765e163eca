/**
 * The server's settings as the page injected them (docs/api.md §5.2, §5.3). The client reads
 * server settings from here only; nothing about the server is hard-coded.
 */
import type { ClientConfig } from '@coffer/protocol';

declare global {
  interface Window {
    FileBrowser?: Partial<ClientConfig>;
    __prependStaticUrl?: (url: string) => string;
  }
}

/**
 * The product name when branding gives none (issue 17): this client is Coffer's, and so is the page
 * the server renders around it (its `<title>` falls back to the same name). `Name` in the page
 * config stays the stored branding name, so File Browser's own client keeps its own default.
 */
export const DEFAULT_NAME = 'Coffer';

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
    EnableVideoThumbs: raw.EnableVideoThumbs ?? false,
    ResizePreview: raw.ResizePreview ?? true,
    EnableExec: raw.EnableExec ?? false,
    TusSettings: raw.TusSettings ?? { chunkSize: 0, retryCount: 0 },
    HideLoginButton: raw.HideLoginButton ?? false,
    ProjectURL: raw.ProjectURL ?? '',
    IssuesURL: raw.IssuesURL ?? '',
    // A server without it (File Browser) has no trash: deletes are final.
    TrashDays: raw.TrashDays ?? 0,
    EnableWebDAV: raw.EnableWebDAV ?? false,
    ...(raw.OIDC ? { OIDC: raw.OIDC } : {}),
  };
}

export const config: ClientConfig = readConfig();

/**
 * Whether changes to the sign-in ask for the caller's own password (S35, docs/api.md §2.12): the
 * auth methods that take a password (json, and hook, which checks it as at sign-in).
 */
export const ASKS_CURRENT_PASSWORD = config.AuthMethod === 'json' || config.AuthMethod === 'hook';

/** The product name shown in titles and on the login screen. */
export function productName(): string {
  return config.Name || DEFAULT_NAME;
}

/**
 * An outside address the client may link to (docs/client.md §2 "Sidebar", "Notifications"): the
 * project's home page or the issue tracker, as the server's --project-url and --issues-url give
 * them; null when unset, not http(s), or when branding disables external links.
 */
export function externalUrl(which: 'ProjectURL' | 'IssuesURL', from: ClientConfig = config): string | null {
  if (from.DisableExternal) return null;
  try {
    const url = new URL(from[which]);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

/** `/api/...` under the base URL. `path` starts with `/`. */
export function apiUrl(path: string): string {
  return `${config.BaseURL}/api${path}`;
}

/** A static asset under the static URL (logo, icons). */
export function staticUrl(path: string): string {
  return `${config.StaticURL}/${path.replace(/^\/+/, '')}`;
}

/** Whether the user may log out at all (docs/client.md §2 sidebar: not in no-auth mode, not without a login page). */
export function canLogout(): boolean {
  return !config.NoAuth && config.LoginPage;
}
