/** Sessions and app passwords (docs/api.md §2.10, §2.11). */
import { Type, type Static } from 'typebox';

/** One signed-in device or browser: a sign-in and the renewals that continued it. */
export const SessionInfo = Type.Object({
  /** Opaque; not a token and not usable as one. */
  id: Type.String(),
  /** The session the request came with. */
  current: Type.Boolean(),
  /** From the User-Agent at sign-in: "Firefox 128", "" when unknown. */
  browser: Type.String(),
  /** "Windows 10", "Android 14", "" when unknown. */
  os: Type.String(),
  /** "desktop", "mobile", "tablet" or "" when unknown. */
  device: Type.String(),
  /** The client address at sign-in. */
  address: Type.String(),
  /** Unix seconds. */
  createdAt: Type.Integer(),
  lastUsed: Type.Integer(),
  expiresAt: Type.Integer(),
});
export type SessionInfo = Static<typeof SessionInfo>;

export const AppPasswordInfo = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  /** Reads and downloads only: no create, rename, modify, delete, share or execute (docs/api.md §2.10). */
  readOnly: Type.Boolean(),
  /** Unix seconds. */
  createdAt: Type.Integer(),
  /** Unix seconds; 0 = never. */
  expiresAt: Type.Integer(),
  /** Unix seconds; 0 = never used. */
  lastUsed: Type.Integer(),
  /** The client address of the last use; "" when never used. */
  lastAddress: Type.String(),
});
export type AppPasswordInfo = Static<typeof AppPasswordInfo>;

/** Body of POST /api/app-passwords. */
export const AppPasswordCreateRequest = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  readOnly: Type.Boolean(),
  /** Days until it stops working; 0 = never. */
  expiresInDays: Type.Integer({ minimum: 0, maximum: 3650 }),
  /** The caller's own password (json auth method), as for a new password (S35). */
  current_password: Type.Optional(Type.String({ maxLength: 1024 })),
});
export type AppPasswordCreateRequest = Static<typeof AppPasswordCreateRequest>;

/**
 * GET /api/sessions/confirmation (docs/api.md §2.11): what confirms this session's changes to its
 * sign-in — `password` (send `current_password`), `recent-sign-in` (nothing to send until
 * `until`, then sign in again), `none` (behind the proxy or noauth).
 */
export const SignInConfirmation = Type.Object({
  confirm: Type.Union([Type.Literal('password'), Type.Literal('recent-sign-in'), Type.Literal('none')]),
  /** How this session signed in: password, passkey, oidc, proxy, hook, noauth; '' from before this was recorded. */
  signedInWith: Type.String(),
  /** With `recent-sign-in`: Unix seconds until which a change is confirmed; 0 otherwise. */
  until: Type.Integer(),
});
export type SignInConfirmation = Static<typeof SignInConfirmation>;

/** The answer of POST /api/app-passwords: the only time the secret is shown. */
export const AppPasswordCreated = Type.Object({
  ...AppPasswordInfo.properties,
  /** The app password itself: `cfap_` and 43 characters. Stored only as a digest. */
  secret: Type.String(),
});
export type AppPasswordCreated = Static<typeof AppPasswordCreated>;

/** GET /api/second-factor (docs/api.md §2.12). */
export const SecondFactorStatus = Type.Object({
  /** Sign-in asks for a TOTP code (or a recovery code) after the password. */
  totp: Type.Boolean(),
  recoveryCodesLeft: Type.Integer(),
  /** How many passkeys the user has: each also answers the second step (docs/api.md §2.13). */
  passkeys: Type.Integer(),
  /** The server requires a second factor of this user (--require-second-factor). */
  required: Type.Boolean(),
});
export type SecondFactorStatus = Static<typeof SecondFactorStatus>;

/** POST /api/second-factor/totp: the new secret, for the QR code and for typing in. */
export const TotpEnrolment = Type.Object({
  /** Base32. */
  secret: Type.String(),
  /** The otpauth:// URI the QR code carries. */
  uri: Type.String(),
});
export type TotpEnrolment = Static<typeof TotpEnrolment>;

export const TotpConfirmRequest = Type.Object({
  code: Type.String({ maxLength: 64 }),
  /** The caller's own password (json auth method), as for turning it off (docs/api.md §2.12). */
  current_password: Type.Optional(Type.String({ maxLength: 1024 })),
});
export type TotpConfirmRequest = Static<typeof TotpConfirmRequest>;

/** Ten single-use recovery codes, shown this once. */
export const RecoveryCodes = Type.Object({ recoveryCodes: Type.Array(Type.String()) });
export type RecoveryCodes = Static<typeof RecoveryCodes>;

/** The caller's own password, asked for with the json auth method (docs/api.md §2.12). */
export const CurrentPasswordRequest = Type.Object({ current_password: Type.Optional(Type.String({ maxLength: 1024 })) });
export type CurrentPasswordRequest = Static<typeof CurrentPasswordRequest>;

/** A WebAuthn options object for the browser (docs/api.md §2.13), as @simplewebauthn makes it. */
export const WebAuthnOptions = Type.Object(
  { challenge: Type.String({ description: 'base64url, single-use, valid for three minutes' }) },
  { additionalProperties: true, description: 'PublicKeyCredentialCreationOptionsJSON or PublicKeyCredentialRequestOptionsJSON' },
);
export type WebAuthnOptions = Static<typeof WebAuthnOptions>;

/** What navigator.credentials answered, as JSON (@simplewebauthn/browser's start… functions). */
export const WebAuthnResponse = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 1024 }),
    rawId: Type.String({ maxLength: 1024 }),
    type: Type.Literal('public-key'),
    response: Type.Object({}, { additionalProperties: true }),
  },
  { additionalProperties: true },
);
export type WebAuthnResponse = Static<typeof WebAuthnResponse>;

/** GET /api/passkeys: one of the caller's passkeys. */
export const PasskeyInfo = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  /** Unix seconds. */
  createdAt: Type.Integer(),
  /** Unix seconds; 0 = never used. */
  lastUsed: Type.Integer(),
});
export type PasskeyInfo = Static<typeof PasskeyInfo>;

/** POST /api/passkeys: the browser's answer to the registration options, named. */
export const PasskeyCreateRequest = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  response: WebAuthnResponse,
  current_password: Type.Optional(Type.String({ maxLength: 1024 })),
});
export type PasskeyCreateRequest = Static<typeof PasskeyCreateRequest>;

/** POST /api/passkeys/login: a sign-in without a name. */
export const PasskeyLoginRequest = Type.Object({ response: WebAuthnResponse });
export type PasskeyLoginRequest = Static<typeof PasskeyLoginRequest>;

/** POST /api/login/passkey-options: the name and password, checked, before the passkey step. */
export const PasskeySecondStepRequest = Type.Object({
  username: Type.String({ maxLength: 1024 }),
  password: Type.String({ maxLength: 1024 }),
  /** docs/api.md §2.13: a fresh reCAPTCHA answer when the json method asks for one. */
  recaptcha: Type.Optional(Type.String()),
});
export type PasskeySecondStepRequest = Static<typeof PasskeySecondStepRequest>;

/**
 * The oidc auth method's settings as Settings → Global shows them (docs/api.md §2.14). The client
 * secret is never sent: `clientSecretSet` says whether one is stored.
 */
export const OidcSettings = Type.Object({
  /** The active auth method: json, proxy, hook, noauth or oidc. */
  method: Type.String(),
  issuer: Type.String(),
  clientId: Type.String(),
  clientSecretSet: Type.Boolean(),
  scopes: Type.String(),
  usernameClaim: Type.String(),
  createUsers: Type.Boolean(),
  adminClaim: Type.String(),
  adminValue: Type.String(),
  name: Type.String(),
  redirectUrl: Type.String(),
  passwordLogin: Type.Boolean(),
  linkExisting: Type.Boolean(),
});
export type OidcSettings = Static<typeof OidcSettings>;

const short = (maxLength: number) => Type.String({ maxLength });

/**
 * PUT /api/settings/oidc: every field but the secret replaces the stored one. `clientSecret`
 * omitted or "" keeps the stored secret, a text replaces it, null clears it. `method` switches the
 * auth method between json and oidc (absent: unchanged).
 */
export const OidcSettingsInput = Type.Object(
  {
    method: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('oidc')])),
    issuer: short(2048),
    clientId: short(512),
    clientSecret: Type.Optional(Type.Union([short(4096), Type.Null()])),
    scopes: short(1024),
    usernameClaim: short(256),
    createUsers: Type.Boolean(),
    adminClaim: short(256),
    adminValue: short(256),
    name: short(100),
    redirectUrl: short(2048),
    passwordLogin: Type.Boolean(),
    linkExisting: Type.Boolean(),
  },
  { additionalProperties: false },
);
export type OidcSettingsInput = Static<typeof OidcSettingsInput>;

/** A refused PUT /api/settings/oidc: one message per field that is wrong. */
export const OidcSettingsProblems = Type.Object({
  error: Type.Literal('invalid'),
  fields: Type.Record(Type.String(), Type.String()),
});
export type OidcSettingsProblems = Static<typeof OidcSettingsProblems>;

/** POST /api/settings/oidc/discovery: the issuer whose discovery document to fetch. */
export const OidcDiscoveryRequest = Type.Object({ issuer: short(2048) }, { additionalProperties: false });
export type OidcDiscoveryRequest = Static<typeof OidcDiscoveryRequest>;

/** The answer of a discovery test: ok, or why not (a short English reason, no server path). */
export const OidcDiscoveryResult = Type.Object({
  ok: Type.Boolean(),
  /** ok: the provider's authorization endpoint; else ''. */
  authorizationEndpoint: Type.String(),
  /** Not ok: unreachable, timeout, status, too-large, not-json, issuer-mismatch, incomplete, insecure-endpoint, invalid-issuer. */
  problem: Type.String(),
  detail: Type.String(),
});
export type OidcDiscoveryResult = Static<typeof OidcDiscoveryResult>;
