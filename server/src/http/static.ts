/**
 * GET <baseurl>/static/<path> (docs/api.md §5, S62): the client build's files, with the admin's
 * branding folder overriding `img/…` and providing `custom.css`. No authentication, GET only,
 * exact content types, long caching for hashed bundles, and a plain 404 (never the page).
 */
import { createHash } from 'node:crypto';
// Infrastructure, not user data: the client build and the admin's branding folder.
// eslint-disable-next-line no-restricted-imports
import { createReadStream } from 'node:fs';
// eslint-disable-next-line no-restricted-imports
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { canonicalPath } from '../fs/canonical.js';
import { Type } from 'typebox';
import { NotFound } from './errors.js';
import { bytesBody, DOCUMENTED_ONLY, errors, noBody, PUBLIC } from './schemas.js';
import { loadTemplate, urlPath } from './page.js';

export const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable'; // docs/api.md §5.2: hashed assets/*
export const ASSET_CACHE = 'public, max-age=86400'; // docs/api.md §5.4

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'application/javascript; charset=utf-8',
  '.mjs': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.wasm': 'application/wasm',
};

export function contentTypeOf(file: string): string {
  return CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

interface Found {
  file: string;
  size: number;
  mtime: Date;
}

/** `rel` (canonical, starting with "/") inside `dir`, as a regular file that does not leave `dir` through a link. */
async function findIn(dir: string, rel: string): Promise<Found | null> {
  try {
    const root = await realpath(path.resolve(dir));
    const file = await realpath(path.join(root, rel));
    if (!file.startsWith(root + path.sep)) return null;
    const st = await stat(file);
    return st.isFile() ? { file, size: st.size, mtime: st.mtime } : null;
  } catch {
    return null;
  }
}

/** Where a static path is looked up, in order (docs/api.md §5.4 branding overrides). */
async function candidates(app: FastifyInstance, rel: string): Promise<string[]> {
  const dist = app.deps.options.webDist;
  const fromDist = dist ? [dist] : [];
  const brandingRelevant = rel === '/custom.css' || rel.startsWith('/img/');
  if (!brandingRelevant) return fromDist;
  const files = (await app.deps.settings.settings()).branding.files;
  if (rel === '/custom.css') return files ? [files] : [];
  return files ? [files, ...fromDist] : fromDist;
}

function etagOf(f: Found): string {
  const h = createHash('sha1').update(`${f.file}:${f.size}:${f.mtime.getTime()}`).digest('base64url').slice(0, 16);
  return `W/"${f.size.toString(16)}-${h}"`;
}

function notModified(req: FastifyRequest, etag: string, mtime: Date): boolean {
  const inm = req.headers['if-none-match'];
  if (inm !== undefined) return inm.split(',').some((t) => t.trim() === etag || t.trim() === '*');
  const ims = req.headers['if-modified-since'];
  if (ims === undefined) return false;
  const since = Date.parse(ims);
  return Number.isFinite(since) && Math.floor(mtime.getTime() / 1000) * 1000 <= since;
}

async function serveStatic(app: FastifyInstance, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const pathname = urlPath(req.url);
  const prefix = `${app.deps.config.baseURL}/static/`;
  const raw = pathname.startsWith(prefix) ? pathname.slice(prefix.length) : '';
  if (raw === '' || raw.endsWith('/')) throw new NotFound();
  const rel = canonicalPath(raw, { decode: true }).path; // S1: 400 on bad bytes, 403 on escape
  if (rel === '/index.html') throw new NotFound(); // the page only comes with its injected config
  let found: Found | null = null;
  for (const dir of await candidates(app, rel)) {
    found = await findIn(dir, rel);
    if (found) break;
  }
  if (!found) throw new NotFound();
  const etag = etagOf(found);
  void reply
    .header('Content-Type', contentTypeOf(found.file))
    .header('Cache-Control', rel.startsWith('/assets/') ? IMMUTABLE_CACHE : ASSET_CACHE)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Last-Modified', found.mtime.toUTCString())
    .header('ETag', etag);
  if (notModified(req, etag, found.mtime)) return reply.code(304).send();
  return reply.header('Content-Length', String(found.size)).send(createReadStream(found.file));
}

/** Registered under the base URL. HEAD and other methods fall to the plain 404. */
export async function staticRoutes(app: FastifyInstance): Promise<void> {
  // Read the page template once at start (cached for every later request).
  await loadTemplate(app.deps.options.webDist);
  const schema = {
    tags: ['page'],
    summary: "The web client's files, with the admin's branding overrides (docs/api.md §5.4)",
    security: PUBLIC,
    // The path is read from the URL as received (S1), not from the parsed parameter.
    params: Type.Object({ '*': Type.String({ description: 'a file of the client build, e.g. assets/index-abc123.js' }) }),
    response: {
      200: bytesBody('the file; hashed assets/* are cached for a year', { ETag: Type.String(), 'Last-Modified': Type.String() }, ['*/*']),
      304: noBody('not modified'),
      ...errors(400, 403, 404),
    },
  };
  app.get('/static/*', { ...DOCUMENTED_ONLY, exposeHeadRoute: false, logLevel: 'warn', schema }, (req, reply) => serveStatic(app, req, reply));
}
