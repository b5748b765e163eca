/**
 * The field checks of PUT /api/settings/oidc (docs/api.md §2.14), one copy for both sides: the
 * server refuses with these codes (422), the settings card shows the same problems before a round
 * trip. Pure functions with no imports at run time, so the client can bundle this file alone
 * (`@coffer/protocol/oidc-checks`) without the schemas.
 */
import type { OidcSettingsInput } from './signin.js';

/** Why a field is refused: the client shows its own sentence for each. */
export type OidcFieldProblem =
  | 'required' // empty while the oidc method is on
  | 'url' // not an absolute URL, or one with user info, a query or a fragment
  | 'https' // http on a host that is not loopback
  | 'callback' // the redirect URL does not end in /api/oidc/callback
  | 'openid' // the scopes lack openid, or hold a character a scope cannot have
  | 'together' // the admin claim without its value, or the reverse
  | 'text'; // a control character (or only spaces where a name is needed)

export type OidcField = keyof OidcSettingsInput;
export type OidcProblems = Partial<Record<OidcField, OidcFieldProblem>>;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
/** RFC 6749 §3.3: scope tokens are visible ASCII but space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
/** IPv4 as the URL parser writes it: four decimal parts. */
const IPV4 = /^(\d{1,3})\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;
/** ::ffff:127.x.y.z as the URL parser writes it (hex, 7f00–7fff in the first group). */
const MAPPED_LOOPBACK = /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/;

/**
 * True for `localhost` and loopback addresses (127.0.0.0/8, ::1, IPv4-mapped 127/8). The host
 * is first written the way the URL parser writes it, so `127.1`, `2130706433`, `0x7f.1` and
 * `[0:0:0:0:0:0:0:1]` count as what they are. Names under `.localhost` do not count: the hosts
 * file holds only `localhost`, and the server's resolver asks DNS (and the search domains) for
 * the others, so they may name any machine.
 */
export function isLoopbackHost(hostname: string): boolean {
  let host: string;
  try {
    const bracketed = hostname.includes(':') && !hostname.startsWith('[') ? `[${hostname}]` : hostname;
    host = new URL(`http://${bracketed}/`).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  if (host === 'localhost') return true;
  const v4 = IPV4.exec(host);
  if (v4) return v4[1] === '127';
  return host === '::1' || MAPPED_LOOPBACK.test(host);
}

/**
 * An issuer or callback URL: absolute, http(s), no user info, query or fragment; https, or http
 * only on a loopback host (a provider on the same machine). Null when fine.
 */
export function urlProblem(raw: string): 'url' | 'https' | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'url';
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return 'url';
  // An empty query or fragment (`…/?`, `…#`) leaves search and hash empty but stays in the URL.
  if (u.username || u.password || /[?#]/.test(u.href) || CONTROL.test(raw) || /\s/.test(raw)) return 'url';
  if (u.protocol === 'http:' && !isLoopbackHost(u.hostname)) return 'https';
  return null;
}

/**
 * The endpoints of a discovery document the server itself calls, with the client secret or a
 * token (token, userinfo) or for the signing keys (jwks).
 */
export const BACK_CHANNEL_ENDPOINTS = ['token_endpoint', 'jwks_uri', 'userinfo_endpoint'] as const;

/**
 * A back-channel endpoint sent over plain http where the issuer does not allow it: https is
 * always fine; http only for an http issuer, on a loopback host or on the issuer's own origin. A
 * loopback issuer's document naming `http://elsewhere/token` would otherwise send the client
 * secret in the clear across the network; an https issuer's back channel is https only, as
 * sign-in (openid-client) refuses any http endpoint then. True when it is a problem (also for a
 * URL that does not parse).
 */
export function plainEndpoint(issuer: string, endpoint: string): boolean {
  let e: URL;
  let i: URL;
  try {
    e = new URL(endpoint);
    i = new URL(issuer);
  } catch {
    return true;
  }
  if (e.protocol === 'https:') return false;
  if (e.protocol !== 'http:' || i.protocol !== 'http:') return true;
  return !(isLoopbackHost(e.hostname) || e.origin === i.origin);
}

/**
 * Every problem of the input, by field. Required fields are required only when the result would
 * use the oidc method (`method`: what the auth method will be after the change); `secretSet` says
 * whether a client secret will be stored.
 */
export function oidcProblems(input: OidcSettingsInput, method: string, secretSet: boolean): OidcProblems {
  const out: OidcProblems = {};
  const on = method === 'oidc';
  const need = (field: OidcField, value: string) => {
    if (on && value.trim() === '') out[field] = 'required';
  };
  for (const field of ['issuer', 'clientId', 'scopes', 'usernameClaim', 'adminClaim', 'adminValue', 'name', 'redirectUrl'] as const) {
    if (CONTROL.test(input[field])) out[field] = 'text';
  }
  if (typeof input.clientSecret === 'string' && CONTROL.test(input.clientSecret)) out.clientSecret = 'text';

  if (!out.issuer) {
    const p = input.issuer === '' ? null : urlProblem(input.issuer);
    if (p) out.issuer = p;
    else need('issuer', input.issuer);
  }
  if (!out.redirectUrl) {
    const p = input.redirectUrl === '' ? null : urlProblem(input.redirectUrl);
    if (p) out.redirectUrl = p;
    else if (input.redirectUrl !== '' && !new URL(input.redirectUrl).pathname.endsWith('/api/oidc/callback')) out.redirectUrl = 'callback';
    else need('redirectUrl', input.redirectUrl);
  }
  if (!out.clientId) need('clientId', input.clientId);
  if (on && !secretSet && !out.clientSecret) out.clientSecret = 'required';
  if (!out.scopes) {
    const tokens = input.scopes.split(' ').filter(Boolean);
    if (!tokens.includes('openid') || !tokens.every((t) => SCOPE_TOKEN.test(t))) out.scopes = 'openid';
  }
  if (!out.usernameClaim && input.usernameClaim.trim() === '') out.usernameClaim = 'required';
  if (!out.name && input.name.trim() === '') out.name = 'required';
  if (!out.adminClaim && !out.adminValue && (input.adminClaim === '') !== (input.adminValue === '')) {
    out[input.adminClaim === '' ? 'adminClaim' : 'adminValue'] = 'together';
  }
  return out;
}
