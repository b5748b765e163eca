import type { ClientConfig } from '@coffer/protocol';
import type { ServerConfig } from './schema.js';
import type { StoredSettings } from '../features/settings/defaults.js';
import type { AutherConfig } from '../features/settings/repository.js';

export interface ClientConfigOptions {
  /** Server version string (api.md §5: non-empty). */
  version: string;
  /** `branding.files` is set and `<branding.files>/custom.css` exists (checked by the caller). */
  customCss: boolean;
}

/**
 * The ONE builder of `window.FileBrowser` (api.md §5). Keys come out sorted, as File Browser's
 * JSON encoder writes them; `ReCaptchaHost`/`ReCaptchaKey` exist only when json auth has a
 * reCAPTCHA configuration, and the secret never leaves the server.
 */
export function toClientConfig(
  config: Pick<ServerConfig, 'baseURL' | 'disableExec' | 'disableThumbnails' | 'disablePreviewResize'>,
  settings: StoredSettings,
  auther: AutherConfig,
  opts: ClientConfigOptions,
): ClientConfig {
  const method = auther.method;
  const recaptcha = method === 'json' ? auther.recaptcha : null;
  const out: ClientConfig = {
    AuthMethod: method,
    BaseURL: config.baseURL,
    CSS: Boolean(settings.branding.files) && opts.customCss,
    Color: settings.branding.color,
    DisableExternal: settings.branding.disableExternal,
    DisableUsedPercentage: settings.branding.disableUsedPercentage,
    EnableExec: !config.disableExec, // S70: off unless the server was started with it
    EnableThumbs: !config.disableThumbnails,
    HideLoginButton: settings.hideLoginButton,
    LoginPage: method === 'json' || method === 'hook',
    LogoutPage: auther.logoutPage || '/login',
    Name: settings.branding.name,
    NoAuth: method === 'noauth',
    ReCaptcha: Boolean(recaptcha && recaptcha.key && recaptcha.secret),
    ResizePreview: !config.disablePreviewResize,
    Signup: settings.signup,
    StaticURL: `${config.baseURL}/static`,
    Theme: settings.branding.theme,
    TusSettings: { chunkSize: settings.tus.chunkSize, retryCount: settings.tus.retryCount },
    Version: opts.version,
  };
  if (recaptcha) {
    out.ReCaptchaHost = recaptcha.host;
    out.ReCaptchaKey = recaptcha.key;
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) as unknown as ClientConfig;
}
