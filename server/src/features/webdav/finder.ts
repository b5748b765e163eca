/**
 * macOS Finder's metadata files over WebDAV (issue 19, item 4; docs/webdav.md): for every file it
 * copies Finder writes a `._name` AppleDouble file, and a `.DS_Store` into every folder it opens.
 * With the global setting `webdav.refuseMacMetadata` (on by default) such names are refused
 * quietly: writes to them (PUT, MKCOL, LOCK, UNLOCK, PROPPATCH, DELETE, and a COPY or MOVE from or
 * to one) are answered as done — Finder shows an error for a refusal — and nothing is stored;
 * reads answer 404 and PROPFIND never lists them. A name in any segment counts, so nothing below
 * such a folder shows either. Files of those names already on disk are left alone.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { canonicalPath, type CanonicalPath } from '../../fs/canonical.js';
import { NotFound } from '../../http/errors.js';
import { activeLock } from './props.js';
import { newLockToken } from './locks.js';

/** `._*` (AppleDouble) and `.DS_Store`. */
export function isMacMetadataName(name: string): boolean {
  return name.startsWith('._') || name === '.DS_Store';
}

export function isMacMetadataPath(p: CanonicalPath | string): boolean {
  const text = typeof p === 'string' ? p : p.path;
  return text.split('/').some(isMacMetadataName);
}

/** The request's own path, if it is canonical (a bad one is left to the handler's 4xx). */
function tailIsMetadata(tail: string): boolean {
  try {
    return isMacMetadataPath(canonicalPath(tail));
  } catch {
    return false;
  }
}

const LOCK_SECONDS = 3600;

/**
 * Answers a request about a metadata name the way Finder expects, without touching the disk or
 * the database; false when the request is about other names (the handler runs). `destination`
 * gives a COPY's or MOVE's Destination as a path in the mount (null when it is not one).
 */
export async function answerMacMetadata(
  req: FastifyRequest<{ Params: { '*'?: string } }>,
  reply: FastifyReply,
  destination: () => CanonicalPath | null,
): Promise<boolean> {
  const method = req.method;
  const own = tailIsMetadata(req.params['*'] ?? '');
  const other = (method === 'COPY' || method === 'MOVE') && !own ? destination() : null;
  if (!own && !(other && isMacMetadataPath(other))) return false;
  // The body (a file's bytes, an XML request) is read and dropped, so the connection stays usable.
  for await (const chunk of req.raw as AsyncIterable<Buffer>) void chunk;
  switch (method) {
    case 'GET':
    case 'HEAD':
    case 'PROPFIND':
      throw new NotFound();
    case 'PUT':
    case 'MKCOL':
    case 'COPY':
    case 'MOVE':
      await reply.code(201).send();
      return true;
    case 'LOCK': {
      const token = newLockToken();
      const lock = { token, resource: '', depth: '0' as const, exclusive: true, owner: '', userId: 0, timeoutS: LOCK_SECONDS, expiresAt: Date.now() + LOCK_SECONDS * 1000 };
      const body = `<?xml version="1.0" encoding="utf-8"?>\n<D:prop xmlns:D="DAV:"><D:lockdiscovery>${activeLock(lock, null, Date.now())}</D:lockdiscovery></D:prop>\n`;
      await reply.code(200).header('Lock-Token', `<${token}>`).type('application/xml; charset=utf-8').send(body);
      return true;
    }
    case 'PROPPATCH':
      throw new NotFound();
    default:
      // DELETE, UNLOCK; OPTIONS is about the server, not the name.
      if (method === 'OPTIONS') return false;
      await reply.code(204).send();
      return true;
  }
}
