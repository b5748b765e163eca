/**
 * The checks of PUT /api/settings/oidc (docs/api.md §2.14): each wrong field gets a code the
 * screen translates. Pure functions: no I/O, so a reviewer can read every rule here.
 */
import ipaddr from 'ipaddr.js';
import type { OidcSettingsInput } from '@coffer/protocol';

/** Why a field is refused: the client shows its own sentence for each. */
export type OidcFieldProblem =
  | 'required' // empty while the oidc method is on
  | 'url' // not an absolute URL, or one with user info, a query or a fragment
  | 'https' // http on a host that is not loopback
  | 'callback' // the redirect URL does not end in /api/oidc/callback
  | 'openid' // the scopes lack openid, or hold a character a scope cannot have
  | 'together' // the admin claim without its value, or the reverse
  | 'text'; // a control character (or only spaces where a name is needed)

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
/** RFC 6749 §3.3: scope tokens are visible ASCII but space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** True for localhost names and loopback addresses (127.0.0.0/8, ::1, IPv4-mapped loopback). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (!ipaddr.isValid(host)) return false;
  let ip = ipaddr.parse(host);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  return ip.range() === 'loopback';
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
  if (u.username || u.password || u.search || u.hash || CONTROL.test(raw) || /\s/.test(raw)) return 'url';
  if (u.protocol === 'http:' && !isLoopbackHost(u.hostname)) return 'https';
  return null;
}

/**
 * Every problem of the input, by field. Required fields are required only when the result would
 * use the oidc method (`method`: what the auth method will be after the change); `secretSet` says
 * whether a client secret will be stored.
 */
export function oidcProblems(input: OidcSettingsInput, method: string, secretSet: boolean): Record<string, OidcFieldProblem> {
  const out: Record<string, OidcFieldProblem> = {};
  const on = method === 'oidc';
  const need = (field: keyof OidcSettingsInput, value: string) => {
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
