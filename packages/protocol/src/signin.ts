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
