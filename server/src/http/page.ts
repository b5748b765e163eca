/**
 * The page handler (docs/api.md §5, S62, S63): every GET under the base URL that no route matched is
 * answered with index.html, filled per request from the current stored settings. The template is
 * the client build's index.html (web/dist) or, without a build, a built-in minimal page with the
 * same placeholders (the page contract: docs/api.md §5.2).
 */
import { randomBytes } from 'node:crypto';
// Infrastructure, not user data: the app's own template and the admin's branding folder.
// eslint-disable-next-line no-restricted-imports
import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ClientConfig } from '@coffer/protocol';
import { toClientConfig } from '../config/client.js';
import type { Deps } from '../services.js';

/**
 * `<title>` when `branding.name` is empty (docs/api.md §5.2). File Browser's own page says "File Browser"; the page this
 * server renders is Coffer's client (web/dist or the built-in page), which calls itself Coffer
 * (issue 17). `window.FileBrowser.Name` stays the stored name (`""`), so File Browser's own client
 * pointed at this server keeps its own default.
 */
export const DEFAULT_TITLE = 'Coffer';
export const DEFAULT_THEME_COLOR = '#2979ff'; // docs/api.md §5.2

const BUILTIN_TEMPLATE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1, user-scalable=no">
    <title>__COFFER_TITLE__</title>
    <meta name="theme-color" content="__COFFER_THEME_COLOR__">
    <link rel="icon" type="image/svg+xml" href="/__COFFER_STATIC__/img/icons/favicon.svg">
    <link rel="icon" href="/__COFFER_STATIC__/img/icons/favicon.ico" sizes="any">
    <link rel="apple-touch-icon" href="/__COFFER_STATIC__/img/icons/apple-touch-icon.png">
    <!--coffer:head-->
  </head>
  <body>
    <div id="app">
      <noscript>Coffer needs JavaScript.</noscript>
      <p>The Coffer web client has not been built on this server (npm run build).</p>
    </div>
  </body>
</html>
`;

const PLACEHOLDERS = /__COFFER_TITLE__|__COFFER_THEME_COLOR__|\/__COFFER_STATIC__|<!--coffer:head-->/g;

const templates = new Map<string, Promise<string>>();

/** The page template for a client build folder, read once and cached; built-in when absent. */
export function loadTemplate(webDist: string): Promise<string> {
  let t = templates.get(webDist);
  if (!t) {
    t = webDist
      ? readFile(path.join(webDist, 'index.html'), 'utf8').catch((err: NodeJS.ErrnoException) => {
          if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return BUILTIN_TEMPLATE;
          throw err;
        })
      : Promise.resolve(BUILTIN_TEMPLATE);
    templates.set(webDist, t);
  }
  return t;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

const SCRIPT_ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
  "'": "\\'",
};
/**
 * JSON for an inline script (docs/api.md §5.3, S63): nothing in a value can close the script element or
 * end a JS line, and JS reads back exactly the original values.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029']/g, (c) => SCRIPT_ESCAPES[c]!);
}

/** The origin of an admin-configured URL, or null when it is not an http(s) URL. */
function originOf(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.origin : null;
  } catch {
    return null;
  }
}

const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** S62: the page's policy; inline scripts only with this response's nonce. */
export function pageCsp(nonce: string, opts: { recaptchaOrigin?: string | null; host?: string; secure?: boolean } = {}): string {
  const script = ["'self'", `'nonce-${nonce}'`];
  const connect = ["'self'"];
  const directives: string[] = [];
  if (opts.recaptchaOrigin) script.push(opts.recaptchaOrigin, 'https://www.gstatic.com');
  // Browsers that predate CSP 3 do not let 'self' cover WebSockets (the command shell).
  if (opts.host && HOST.test(opts.host)) connect.push(`${opts.secure ? 'wss' : 'ws'}://${opts.host}`);
  directives.push(
    "default-src 'self'",
    `script-src ${script.join(' ')}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "media-src 'self' blob:",
    `connect-src ${connect.join(' ')}`,
  );
  if (opts.recaptchaOrigin) directives.push(`frame-src 'self' ${opts.recaptchaOrigin}`);
  directives.push("object-src 'none'", "base-uri 'self'", "form-action 'self'", "frame-ancestors 'self'");
  return directives.join('; ');
}

export interface PageValues {
  config: ClientConfig;
  title: string;
  themeColor: string;
  nonce: string;
}

/** Fills the template in one pass, so an injected value is never scanned for placeholders again. */
export function renderPage(template: string, v: PageValues): string {
  const staticURL = v.config.StaticURL;
  let head =
    `<script nonce="${v.nonce}">window.FileBrowser = ${scriptJson(v.config)};\n` +
    `window.__prependStaticUrl = (u) => ${scriptJson(staticURL)} + '/' + u.replace(/^\\/+/, '');</script>`;
  if (v.config.ReCaptcha && v.config.ReCaptchaHost) {
    head += `\n<script nonce="${v.nonce}" src="${escapeHtml(v.config.ReCaptchaHost)}/recaptcha/api.js?render=explicit" async defer></script>`;
  }
  if (v.config.CSS) head += `\n<link rel="stylesheet" href="${escapeHtml(staticURL)}/custom.css">`;
  return template.replace(PLACEHOLDERS, (m) => {
    switch (m) {
      case '__COFFER_TITLE__':
        return escapeHtml(v.title);
      case '__COFFER_THEME_COLOR__':
        return escapeHtml(v.themeColor);
      case '/__COFFER_STATIC__':
        return escapeHtml(staticURL);
      default:
        return head;
    }
  });
}

/** Path of a request URL without the query string. */
export function urlPath(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/**
 * Whether an unmatched request path belongs to the page (a client route): under the base URL,
 * and not under /api, /static or /health, which answer a plain 404 instead.
 */
export function isPagePath(pathname: string, base: string): boolean {
  let rest: string;
  if (base) {
    if (pathname !== base && !pathname.startsWith(base + '/')) return false;
    rest = pathname.slice(base.length) || '/';
  } else rest = pathname;
  return !/^\/(?:api|static|health)(?:\/|$)/.test(rest);
}

async function customCssExists(files: string): Promise<boolean> {
  if (!files) return false;
  try {
    await access(path.join(path.resolve(files), 'custom.css'));
    return true;
  } catch {
    return false;
  }
}

/** GET of a client route: 200 text/html with the injected configuration and the S62 headers. */
export async function servePage(deps: Deps, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const [template, settings, auther] = await Promise.all([
    loadTemplate(deps.options.webDist),
    deps.settings.settings(),
    deps.settings.auther(),
  ]);
  const config = toClientConfig(deps.config, settings, auther, {
    version: deps.options.version,
    customCss: await customCssExists(settings.branding.files),
    videoThumbs: deps.ffmpeg !== null,
  });
  const nonce = randomBytes(18).toString('base64');
  const html = renderPage(template, {
    config,
    nonce,
    title: settings.branding.name || DEFAULT_TITLE,
    themeColor: settings.branding.color || DEFAULT_THEME_COLOR,
  });
  const secure = req.protocol === 'https';
  const rest = urlPath(req.url).slice(deps.config.baseURL.length);
  return reply
    .code(200)
    .header('Content-Security-Policy', pageCsp(nonce, { recaptchaOrigin: config.ReCaptcha ? originOf(config.ReCaptchaHost ?? '') : null, host: req.host, secure }))
    .header('X-Content-Type-Options', 'nosniff')
    .header('X-XSS-Protection', '1; mode=block')
    .header('X-Frame-Options', 'SAMEORIGIN')
    // Share pages carry the share hash in their URL: never send it to other sites (S62).
    .header('Referrer-Policy', /^\/share(?:\/|$)/.test(rest) ? 'no-referrer' : 'same-origin')
    .header('Cache-Control', 'no-cache, no-store, must-revalidate')
    .type('text/html; charset=utf-8')
    .send(html);
}
