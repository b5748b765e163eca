/**
 * The OIDC card's draft (docs/api.md §2.14): what the form edits, what it sends, and the server's
 * own field checks (`@coffer/protocol/oidc-checks`) so the problems show before a round trip. The
 * server decides; its 422 answer uses the same codes.
 */
import type { OidcSettings, OidcSettingsInput } from '@coffer/protocol';
import { oidcProblems as checkOidc, type OidcField, type OidcFieldProblem, type OidcProblems } from '@coffer/protocol/oidc-checks';

export type OidcProblem = OidcFieldProblem;
export type { OidcField };

export interface OidcDraft {
  method: string;
  issuer: string;
  clientId: string;
  /** A new secret typed; '' keeps the stored one. */
  newSecret: string;
  clearSecret: boolean;
  secretSet: boolean;
  /** The issuer the stored secret belongs to: another issuer needs its own (the server drops it). */
  storedIssuer: string;
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
    storedIssuer: s.issuer,
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

/** The problems by field, as the server will find them (the same checks, from the protocol package). */
export function oidcProblems(d: OidcDraft): OidcProblems {
  const secretWillBeSet = d.clearSecret ? false : d.newSecret !== '' || keepsStoredSecret(d);
  return checkOidc(inputOf(d), d.method, secretWillBeSet);
}

/** True when a stored secret stays stored: the issuer is the one it was made for. */
export function keepsStoredSecret(d: OidcDraft): boolean {
  return d.secretSet && d.issuer.trim() === d.storedIssuer;
}

/** The field problems of a 422 answer's text, or null when it is not one. */
export function serverProblems(text: string): OidcProblems | null {
  try {
    const body = JSON.parse(text) as { error?: unknown; fields?: unknown };
    if (body.error !== 'invalid' || typeof body.fields !== 'object' || body.fields === null) return null;
    return body.fields as OidcProblems;
  } catch {
    return null;
  }
}

/** The callback this page would have: what to register at the provider. */
export function suggestedRedirect(origin: string, baseURL: string): string {
  return `${origin}${baseURL}/api/oidc/callback`;
}
