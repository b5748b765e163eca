import { BadRequest, PayloadTooLarge } from '../../../http/errors.js';
import { MAX_PASSWORD_BYTES } from '../../../auth/passwords.js';

export interface Credentials {
  username: string;
  password: string;
  recaptcha: string;
}

/**
 * S32: the body must be a JSON object with string `username` and `password` (and, when given, a
 * string `recaptcha`) — else 400; a password above 1024 bytes is 413 before anything is hashed.
 * Other fields are ignored.
 */
export function parseCredentials(body: unknown): Credentials {
  if (body === undefined || body === null) throw new BadRequest('empty request');
  if (typeof body !== 'object' || Array.isArray(body)) throw new BadRequest('body must be an object');
  const { username, password, recaptcha } = body as Record<string, unknown>;
  if (typeof username !== 'string') throw new BadRequest('username must be a string');
  if (typeof password !== 'string') throw new BadRequest('password must be a string');
  if (recaptcha !== undefined && typeof recaptcha !== 'string') throw new BadRequest('recaptcha must be a string');
  if (Buffer.byteLength(password) > MAX_PASSWORD_BYTES) throw new PayloadTooLarge();
  return { username, password, recaptcha: recaptcha ?? '' };
}
