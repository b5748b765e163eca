/**
 * The OIDC card's draft (docs/api.md §2.14): what the form edits, what it sends, and the same
 * field checks as the server's (server/src/features/oidc-settings/validate.ts) so the problems
 * show before a round trip. The server decides; its 422 answer uses the same codes.
 */
import type { OidcSettings, OidcSettingsInput } from '@coffer/protocol';

export type OidcProblem = 'required' | 'url' | 'https' | 'callback' | 'openid' | 'together' | 'text';
export type OidcField = keyof OidcSettingsInput;

export interface OidcDraft {
  method: string;
  issuer: string;
  clientId: string;
  /** A new secret typed; '' keeps the stored one. */
  newSecret: string;
  clearSecret: boolean;
  secretSet: boolean;
  scopes: string;
  usernameClaim: string;
  createUsers: boolean;
  adminClaim: string;
  adminValue: string;
  name: string;
  redirectUrl: string;
  passwordLogin: boolean;
  linkExisting: boolean;
}

export function draftOf(s: OidcSettings): OidcDraft {
  return {
    method: s.method,
    issuer: s.issuer,
    clientId: s.clientId,
    newSecret: '',
    clearSecret: false,
    secretSet: s.clientSecretSet,
    scopes: s.scopes,
    usernameClaim: s.usernameClaim,
    createUsers: s.createUsers,
    adminClaim: s.adminClaim,
    adminValue: s.adminValue,
    name: s.name,
    redirectUrl: s.redirectUrl,
    passwordLogin: s.passwordLogin,
    linkExisting: s.linkExisting,
  };
}

/** What PUT /api/settings/oidc gets: the method only when it is json or oidc. */
export function inputOf(d: OidcDraft): OidcSettingsInput {
  const method = d.method === 'json' || d.method === 'oidc' ? d.method : undefined;
  return {
    ...(method ? { method } : {}),
    issuer: d.issuer.trim(),
    clientId: d.clientId,
    // null clears, a text replaces; omitted keeps.
    ...(d.clearSecret ? { clientSecret: null } : d.newSecret ? { clientSecret: d.newSecret } : {}),
    scopes: d.scopes,
    usernameClaim: d.usernameClaim,
    createUsers: d.createUsers,
    adminClaim: d.adminClaim,
    adminValue: d.adminValue,
    name: d.name,
    redirectUrl: d.redirectUrl.trim(),
    passwordLogin: d.passwordLogin,
    linkExisting: d.linkExisting,
  };
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

function loopback(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(h) || h === '::1';
}

export function urlProblem(raw: string): 'url' | 'https' | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'url';
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return 'url';
  if (u.username || u.password || u.search || u.hash || /\s/.test(raw)) return 'url';
  if (u.protocol === 'http:' && !loopback(u.hostname)) return 'https';
  return null;
}

/** The problems by field, as the server would find them. */
export function oidcProblems(d: OidcDraft): Partial<Record<OidcField, OidcProblem>> {
  const input = inputOf(d);
  const on = d.method === 'oidc';
  const out: Partial<Record<OidcField, OidcProblem>> = {};
  for (const f of ['issuer', 'clientId', 'scopes', 'usernameClaim', 'adminClaim', 'adminValue', 'name', 'redirectUrl'] as const) {
    if (CONTROL.test(input[f])) out[f] = 'text';
  }
  const need = (f: OidcField, v: string) => {
    if (on && v.trim() === '') out[f] = 'required';
  };
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
  const secretWillBeSet = d.clearSecret ? false : d.newSecret !== '' || d.secretSet;
  if (on && !secretWillBeSet) out.clientSecret = 'required';
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

/** The field problems of a 422 answer's text, or null when it is not one. */
export function serverProblems(text: string): Partial<Record<OidcField, OidcProblem>> | null {
  try {
    const body = JSON.parse(text) as { error?: unknown; fields?: unknown };
    if (body.error !== 'invalid' || typeof body.fields !== 'object' || body.fields === null) return null;
    return body.fields as Partial<Record<OidcField, OidcProblem>>;
  } catch {
    return null;
  }
}

/** The callback this page would have: what to register at the provider. */
export function suggestedRedirect(origin: string, baseURL: string): string {
  return `${origin}${baseURL}/api/oidc/callback`;
}
