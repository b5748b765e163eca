/**
 * Where a WebAuthn ceremony must happen (docs/api.md §2.13): the origin the browser must report
 * and the RP ID passkeys are made for. With --passkey-origin both come from it, whatever the
 * request says. Without it they come from the request: its Host (X-Forwarded-Host and -Proto only
 * from a trusted proxy, as Fastify's trustProxy decides) — a forged Host only makes the server
 * expect that forged origin, which a browser on the real site never reports, and a passkey is
 * accepted only for the RP ID it was registered under. The base URL is a path: it is in neither.
 */
import type { FastifyRequest } from 'fastify';
import type { RelyingParty } from '../../auth/passkeys.js';
import { BadRequest } from '../../http/errors.js';

export function relyingParty(req: FastifyRequest, configured: string): RelyingParty {
  if (configured) {
    const url = new URL(configured);
    return { origin: url.origin, rpID: url.hostname };
  }
  let url: URL;
  try {
    url = new URL(`${req.protocol}://${req.host}`);
  } catch {
    throw new BadRequest('the Host header is not a host name');
  }
  // WebAuthn needs a domain (or localhost), not an address, for its RP ID.
  if (/^\[|^[0-9.]+$/.test(url.hostname)) throw new BadRequest('passkeys need the server opened by a host name');
  return { origin: url.origin, rpID: url.hostname };
}
