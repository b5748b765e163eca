import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { BadRequest, PayloadTooLarge } from '../../../http/errors.js';
import { MAX_PASSWORD_BYTES } from '../../../auth/passwords.js';

export interface Credentials {
  username: string;
  password: string;
  recaptcha: string;
  /** The second factor (docs/api.md §2.12): a TOTP code or a recovery code; '' when not sent. */
  otp: string;
  /** The second factor as a passkey assertion (docs/api.md §2.13), instead of `otp`. */
  passkey?: AuthenticationResponseJSON;
}

const B64URL = /^[A-Za-z0-9_-]{1,1024}$/;

/**
 * A passkey assertion as the browser's JSON has it: an object whose credential id is base64url and
 * whose `response` is an object of strings. The signature and the rest are the library's to check.
 */
export function parsePasskeyResponse(v: unknown): AuthenticationResponseJSON {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new BadRequest('passkey must be an object');
  const { id, response } = v as Record<string, unknown>;
  if (typeof id !== 'string' || !B64URL.test(id)) throw new BadRequest('passkey.id must be base64url');
  if (typeof response !== 'object' || response === null || Array.isArray(response)) throw new BadRequest('passkey.response must be an object');
  for (const [key, value] of Object.entries(response)) {
    if (value !== undefined && value !== null && typeof value !== 'string') throw new BadRequest(`passkey.response.${key} must be a string`);
  }
  return v as AuthenticationResponseJSON;
}

/**
 * S32: the body must be a JSON object with string `username` and `password` (and, when given, a
 * string `recaptcha`) — else 400; a password above 1024 bytes is 413 before anything is hashed.
 * Other fields are ignored.
 */
export function parseCredentials(body: unknown): Credentials {
  if (body === undefined || body === null) throw new BadRequest('empty request');
  if (typeof body !== 'object' || Array.isArray(body)) throw new BadRequest('body must be an object');
  const { username, password, recaptcha, otp, passkey } = body as Record<string, unknown>;
  if (typeof username !== 'string') throw new BadRequest('username must be a string');
  if (typeof password !== 'string') throw new BadRequest('password must be a string');
  if (recaptcha !== undefined && typeof recaptcha !== 'string') throw new BadRequest('recaptcha must be a string');
  if (otp !== undefined && typeof otp !== 'string') throw new BadRequest('otp must be a string');
  if (Buffer.byteLength(password) > MAX_PASSWORD_BYTES) throw new PayloadTooLarge();
  if (typeof otp === 'string' && otp.length > 64) throw new BadRequest('otp is too long');
  const creds: Credentials = { username, password, recaptcha: recaptcha ?? '', otp: otp ?? '' };
  if (passkey !== undefined) creds.passkey = parsePasskeyResponse(passkey);
  return creds;
}
