import type { ClientConfig } from '@coffer/protocol';
import type { ServerConfig } from './schema.js';
import type { StoredSettings } from '../features/settings/defaults.js';
import type { AutherConfig } from '../features/settings/repository.js';

export interface ClientConfigOptions {
  /** Server version string (docs/api.md §5.3: non-empty). */
  version: string;
  /** `branding.files` is set and `<branding.files>/custom.css` exists (checked by the caller). */
  customCss: boolean;
  /** ffmpeg was found at start: videos have thumbnails and posters (docs/api.md §9). */
  videoThumbs?: boolean;
}

/**
 * The ONE builder of `window.FileBrowser` (docs/api.md §5.3). Keys come out sorted, as File Browser's
 * JSON encoder writes them; `ReCaptchaHost`/`ReCaptchaKey` exist only when json auth has a
 * reCAPTCHA configuration, and the secret never leaves the server.
 */
export function toClientConfig(
  config: Pick<ServerConfig, 'baseURL' | 'trashDays' | 'disableExec' | 'disableThumbnails' | 'disablePreviewResize' | 'projectURL' | 'issuesURL' | 'disableWebdav'>,
  settings: StoredSettings,
  auther: AutherConfig,
  opts: ClientConfigOptions,
): ClientConfig {
  const method = auther.method;
  // The oidc method keeps the password form (json) unless its settings turn it off.
  const passwords = method === 'json' || (method === 'oidc' && (auther.oidc?.passwordLogin ?? true));
  const recaptcha = passwords ? auther.recaptcha : null;
  const out: ClientConfig = {
    AuthMethod: method,
    BaseURL: config.baseURL,
    CSS: Boolean(settings.branding.files) && opts.customCss,
    Color: settings.branding.color,
    DisableExternal: settings.branding.disableExternal,
    DisableUsedPercentage: settings.branding.disableUsedPercentage,
    EnableExec: !config.disableExec, // S70: off unless the server was started with it
    EnableThumbs: !config.disableThumbnails,
    // Coffer: the client shows the WebDAV address in Settings → Profile (File Browser's ignores it).
    EnableWebDAV: !config.disableWebdav,
    // Coffer's addition: videos have thumbnails (ffmpeg found) — the client asks for them only then.
    EnableVideoThumbs: !config.disableThumbnails && Boolean(opts.videoThumbs),
    HideLoginButton: settings.hideLoginButton,
    // Coffer's additions (File Browser's client ignores them): the project link and "Report
    // issue"; the client hides both when empty or when DisableExternal is on.
    IssuesURL: config.issuesURL,
    LoginPage: method === 'json' || method === 'hook' || method === 'oidc',
    LogoutPage: auther.logoutPage || '/login',
    Name: settings.branding.name,
    NoAuth: method === 'noauth',
    ProjectURL: config.projectURL,
    ReCaptcha: Boolean(recaptcha && recaptcha.key && recaptcha.secret),
    ResizePreview: !config.disablePreviewResize,
    Signup: settings.signup,
    StaticURL: `${config.baseURL}/static`,
    Theme: settings.branding.theme,
    TrashDays: config.trashDays,
    TusSettings: { chunkSize: settings.tus.chunkSize, retryCount: settings.tus.retryCount },
    Version: opts.version,
  };
  if (method === 'oidc') out.OIDC = { Name: auther.oidc?.name || 'OpenID Connect', PasswordLogin: passwords };
  if (recaptcha) {
    out.ReCaptchaHost = recaptcha.host;
    out.ReCaptchaKey = recaptcha.key;
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) as unknown as ClientConfig;
}
