/**
 * WebDAV at `<base>/dav/` (issue 19, RFC 4918; docs/webdav.md, docs/api.md §21): a second door to
 * the same files. Who asks: auth.ts (HTTP Basic through the sign-in throttle). What is done:
 * service.ts, every path through server/src/fs/. This file reads headers and bodies, checks their
 * form, and writes the answers.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from 'typebox';
import { BadRequest, HttpError, MethodNotAllowed, PayloadTooLarge } from '../../http/errors.js';
import { BASIC, bytesRequest, DOCUMENTED_ONLY, errors, fileAnswers, noBody, PathParams, textBody } from '../../http/schemas.js';
import { sendResolvedFile } from '../../http/send-file.js';
import { canonicalPath, type CanonicalPath } from '../../fs/canonical.js';
import { diskUsage, isWithin } from '../../fs/ops.js';
import { createSigninService } from '../signin/service.js';
import { createDavAuth } from './auth.js';
import { PROPS_GROUP } from './dead.js';
import { cutWhenIdle } from './idle.js';
import type { DeadProp } from './repository.js';
import { activeLock, childHref, type DavResource, hrefOf, MULTISTATUS_CLOSE, MULTISTATUS_OPEN, propRequest, propResponse, proppatchResponse, statResource, wantsQuota } from './props.js';
import { timeoutOf } from './locks.js';
import { answerMacMetadata, isMacMetadataName } from './finder.js';
import { followFileEvents } from './follow.js';
import { createDavRepository } from './repository.js';
import { createDavService, type Conditions, type DavService, type Depth } from './service.js';
import { child, innerXml, isDav, parseXml, type XmlElement } from './xml.js';

/** The methods Fastify learns (addHttpMethod); OPTIONS, GET, HEAD, PUT and DELETE it knows. */
const DAV_METHODS = ['PROPFIND', 'PROPPATCH', 'MKCOL', 'COPY', 'MOVE', 'LOCK', 'UNLOCK'] as const;
const ALLOW = 'OPTIONS, GET, HEAD, PUT, DELETE, PROPFIND, PROPPATCH, MKCOL, COPY, MOVE, LOCK, UNLOCK';
/**
 * Bytes of an XML request body; larger is 413 before parsing. PROPPATCH carries property values
 * (service.ts: up to MAX_PROPS_TOTAL characters a resource); PROPFIND and LOCK bodies are a few
 * hundred bytes from real clients (a PROPFIND's names are bounded too: props.ts MAX_PROP_NAMES).
 */
export const XML_BODY_LIMIT = 1024 * 1024;
export const SMALL_XML_BODY_LIMIT = 64 * 1024;
export const MOUNT = '/dav';
/** Characters of a PROPFIND answer's piece at most (plus one entry's answer): Readable.from keeps 16 pieces ahead. */
const PIECE_MAX = 256 * 1024;
const NO_PROPS: readonly DeadProp[] = [];

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Depth (RFC 4918 section 10.2): 0, 1 or infinity; absent = `dflt`; anything else is 400. */
export function depthOf(req: FastifyRequest, dflt: Depth): Depth {
  const v = header(req, 'depth')?.trim().toLowerCase();
  if (v === undefined || v === '') return dflt;
  if (v === '0' || v === '1' || v === 'infinity') return v;
  throw new BadRequest('bad Depth header');
}

/** Overwrite (RFC 4918 section 10.6): T (default) or F. */
function overwriteOf(req: FastifyRequest): boolean {
  const v = header(req, 'overwrite')?.trim().toUpperCase();
  if (v === undefined || v === '' || v === 'T') return true;
  if (v === 'F') return false;
  throw new BadRequest('bad Overwrite header');
}

/**
 * The Destination header (RFC 4918 section 10.3) as a canonical path in the mount: an absolute URL on
 * this host or an absolute path, under `<base>/dav/`. Another host or a path outside the mount is
 * 502 (RFC 4918 section 9.8.5); the tail is decoded once and made canonical by fs/canonical.ts (NUL, bad UTF-8 →
 * 400; `..` above the root → 403). The service then resolves it in the user's own scope.
 */
export function destinationOf(req: FastifyRequest, mountPath: string): CanonicalPath {
  const raw = header(req, 'destination');
  if (!raw) throw new BadRequest('missing Destination');
  return mountPathOf(req, raw, mountPath);
}

/** A URL (absolute, or an absolute path) on this host under the mount, as a canonical path in it. */
function mountPathOf(req: FastifyRequest, raw: string, mountPath: string): CanonicalPath {
  let url: URL;
  try {
    url = new URL(raw, `${req.protocol}://${req.host}`);
  } catch {
    throw new BadRequest('bad Destination');
  }
  if (url.host !== req.host) throw new HttpError(502, 'Destination on another server');
  const p = url.pathname;
  if (p !== mountPath && !p.startsWith(mountPath + '/')) throw new HttpError(502, 'Destination outside the mount');
  return canonicalPath(p.slice(mountPath.length) || '/', { decode: true });
}

/**
 * The XML body of PROPFIND, PROPPATCH and LOCK: at most `limit` bytes, declared or streamed
 * (chunked). Past it the answer is 413 with `Connection: close`: the rest of the body is never
 * read, and the connection ends once the answer is out (the request is not destroyed under it,
 * which would leave the client with a reset instead of the 413).
 */
async function xmlBody(req: FastifyRequest, limit: number): Promise<XmlElement | null> {
  const tooLarge = () => new HttpError(413, `XML body over ${limit} bytes`, { headers: { Connection: 'close' } });
  if (Number(header(req, 'content-length')) > limit) throw tooLarge();
  const raw = req.raw;
  const text = await new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (err: Error | null) => {
      raw.off('data', onData);
      raw.off('end', onEnd);
      raw.off('error', onError);
      raw.off('close', onClose);
      if (err) {
        raw.pause();
        reject(err);
      } else resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) settle(tooLarge());
      else chunks.push(chunk);
    };
    const onEnd = () => settle(null);
    const onError = (err: Error) => settle(err);
    // Gone before its end: nobody is left to answer.
    const onClose = () => settle(new BadRequest('the request body was cut off'));
    raw.on('data', onData);
    raw.once('end', onEnd);
    raw.once('error', onError);
    raw.once('close', onClose);
  });
  return parseXml(text);
}

/** The If header, and how its tagged URLs map into the mount (those elsewhere match nothing). */
function conditionsOf(req: FastifyRequest, mountPath: string): Conditions {
  return {
    ifHeader: header(req, 'if'),
    pathOf: (url) => {
      try {
        return mountPathOf(req, url, mountPath);
      } catch {
        return null;
      }
    },
  };
}

/** LOCK's body (RFC 4918 section 14.11): the scope, write as the type, the owner kept as sent. */
function lockInfo(root: XmlElement): { exclusive: boolean; owner: string } {
  if (!isDav(root, 'lockinfo')) throw new BadRequest('expected DAV:lockinfo');
  const scope = child(root, 'lockscope');
  const type = child(root, 'locktype');
  if (!scope || !type || !child(type, 'write')) throw new BadRequest('a write lock needs lockscope and locktype');
  const exclusive = !!child(scope, 'exclusive');
  if (!exclusive && !child(scope, 'shared')) throw new BadRequest('lockscope is exclusive or shared');
  const owner = child(root, 'owner');
  return { exclusive, owner: owner ? innerXml(owner) : '' };
}

function hasBody(req: FastifyRequest): boolean {
  return Number(header(req, 'content-length') ?? 0) > 0 || header(req, 'transfer-encoding') !== undefined;
}

/**
 * A PUT body as a byte source, bounded by --max-upload-size (0 = unlimited): a declared length
 * (Content-Length, or Finder's X-Expected-Entity-Length with a chunked body) over it is 413 before
 * anything is written; a longer stream aborts the write (fs/atomic.ts removes the staging file).
 */
function putBody(req: FastifyRequest, max: number, reading: () => void): () => AsyncIterable<Uint8Array> {
  const declared = Number(header(req, 'content-length') ?? header(req, 'x-expected-entity-length'));
  if (max > 0 && declared > max) throw new PayloadTooLarge('upload too large');
  return () =>
    (async function* () {
      reading();
      let seen = 0;
      for await (const chunk of req.raw as AsyncIterable<Buffer>) {
        seen += chunk.length;
        if (max > 0 && seen > max) throw new PayloadTooLarge('upload too large');
        yield chunk;
      }
    })();
}

const tags = ['webdav'];

type RouteAdder = (
  method: string,
  summary: string,
  response: Record<string, unknown>,
  handler: (req: FastifyRequest<{ Params: { '*'?: string } }>, reply: FastifyReply, tail: string) => Promise<unknown>,
  body?: ReturnType<typeof bytesRequest>,
) => void;
const MULTISTATUS = textBody('multistatus (RFC 4918 section 13), streamed', undefined, 'application/xml');
const xmlRequest = (description: string) => bytesRequest(description, 'application/xml');

export async function webdavRoutes(fastify: FastifyInstance): Promise<void> {
  const { deps } = fastify;
  const repo = createDavRepository(deps.db);
  const off = followFileEvents({ events: deps.events, files: deps.files, repo, log: fastify.log });
  fastify.addHook('onClose', async () => off());
  if (deps.config.disableWebdav) return;
  for (const m of DAV_METHODS) fastify.addHttpMethod(m, { hasBody: true });
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const mountPath = `${deps.config.baseURL}${MOUNT}`;
  const dav = createDavService({
    files: deps.files,
    repo,
    events: deps.events,
    removeShares: (user, target) => deps.shares.removeUnder(user.id, target),
    // A delete over WebDAV goes to the trash like the web API's (docs/api.md §22).
    trash: (user, target, globalRules) => deps.trash.trash(user, target, globalRules),
    io: () => deps.files.io,
    quota: deps.quota,
  });
  const davAuth = createDavAuth({
    signin: createSigninService(deps),
    users: deps.users,
    auther: () => deps.settings.auther(),
    appPasswords: deps.appPasswords,
    secondFactor: { policy: deps.config.requireSecondFactor, service: deps.secondFactor },
    invalidation: deps.shared.invalidation,
  });

  /** Every WebDAV request, OPTIONS too, needs a user: anonymous access is refused (401 + challenge). */
  async function authenticate(req: FastifyRequest): Promise<void> {
    // A fragment is never part of a request target (a `#` in a name comes as %23): a client that
    // sends one means less than the path before it, which must not be what is deleted.
    if (req.raw.url?.includes('#')) throw new BadRequest('fragment in the request target');
    req.user = await davAuth.authenticate(req);
    const settings = await deps.settings.current();
    req.globalRules = settings.rules;
    if (settings.webdav.refuseMacMetadata) hidingMacMetadata.add(req);
  }
  /** Requests made while the setting refuses macOS Finder's metadata files (finder.ts). */
  const hidingMacMetadata = new WeakSet<FastifyRequest>();
  async function macMetadata(req: FastifyRequest<{ Params: { '*'?: string } }>, reply: FastifyReply): Promise<FastifyReply | undefined> {
    if (!hidingMacMetadata.has(req)) return undefined;
    const destination = () => {
      try {
        return destinationOf(req, mountPath);
      } catch {
        return null;
      }
    };
    // Answered here: returning the reply keeps the handler from running (Fastify's early answer).
    return (await answerMacMetadata(req, reply, destination)) ? reply : undefined;
  }

  const route: RouteAdder = (method, summary, response, handler, body) => {
    for (const url of [MOUNT, `${MOUNT}/*`]) {
      app.route({
        method,
        url,
        ...DOCUMENTED_ONLY,
        exposeHeadRoute: false,
        onRequest: authenticate,
        preHandler: macMetadata,
        // Bodies are XML or file bytes, read by the handler: never the JSON parser.
        config: { streamBody: true, ...(body ? { documentedBody: body } : {}) },
        schema: { tags, summary, security: BASIC, params: PathParams, response: response as Record<string, TSchema> },
        handler: (req: FastifyRequest<{ Params: { '*'?: string } }>, reply: FastifyReply) => handler(req, reply, req.params['*'] ?? ''),
      });
    }
  };

  route(
    'OPTIONS',
    'What the WebDAV server offers (DAV, Allow, MS-Author-Via)',
    { 200: noBody('the headers only', { DAV: Type.String(), Allow: Type.String(), 'MS-Author-Via': Type.Literal('DAV') }), ...errors(401, 429) },
    async (_req, reply) => reply.code(200).header('DAV', '1, 2').header('Allow', ALLOW).header('MS-Author-Via', 'DAV').send(),
  );

  route(
    'PROPFIND',
    'Properties of a resource and, with Depth 1, of its children (RFC 4918 section 9.1)',
    { 207: MULTISTATUS, ...errors(400, 401, 403, 404, 413, 429) },
    async (req, reply, tail) => {
      const depth = depthOf(req, 'infinity');
      // A trickled body, and then an answer its client stops taking, are cut off (idle.ts).
      cutWhenIdle(req, reply, 'in', deps.config.webdavIdleTimeout * 1000);
      const want = propRequest(await xmlBody(req, SMALL_XML_BODY_LIMIT));
      const abort = new AbortController();
      req.raw.once('close', () => abort.abort());
      const hideMac = hidingMacMetadata.has(req);
      const { self, children } = await dav.propfind(req.user, tail, depth, req.globalRules, abort.signal);
      const state = await dav.stateFor(self);
      const quota = wantsQuota(want) && self.stat?.isDirectory() ? await diskUsage(self) : undefined;
      const scopeKey = await deps.files.storageKey(await deps.files.resolve(req.user, '/', { rules: false }));
      const now = Date.now();
      /** The href of a lock's root as this user sees it; null when it lies above the scope. */
      const rootHref = (key: string) => (isWithin(scopeKey, key) ? hrefOf(mountPath, scopeKey === '/' ? key : key.slice(scopeKey.length) || '/', false) : null);
      const quotaValue = quota && { used: quota.used, available: Math.max(0, quota.total - quota.used) };
      const locksOf = (key: string) => (state.anyLocks ? state.locks(key).map((l) => activeLock(l, rootHref(l.resource), now)).join('') : '');
      async function* pieces() {
        yield MULTISTATUS_OPEN;
        const name = self.virtual === '/' ? '' : self.virtual.slice(self.virtual.lastIndexOf('/') + 1);
        const selfHref = hrefOf(mountPath, self.virtual, !!self.stat?.isDirectory());
        yield propResponse(statResource(selfHref, name, self.stat!), want, { dead: state.selfProps, activeLocks: locksOf(state.selfKey), quota: quotaValue });
        if (children) {
          // One resource and one state object, refilled for each entry (100,000 in a big folder:
          // no object per entry; propResponse keeps neither).
          const r: DavResource = { href: '', name: '', isDir: false, size: 0, mtimeMs: 0, createdMs: 0 };
          const st: { dead: readonly DeadProp[]; activeLocks: string; quota: typeof quotaValue } = { dead: NO_PROPS, activeLocks: '', quota: quotaValue };
          let piece = '';
          // Pieces of about PIECE_MAX characters: one write per entry costs more than the entry,
          // and an entry's answer repeats the locks of its folder (up to MAX_LOCKS_PER_USER per
          // user, each with its owner) and its dead properties, so a batch's could outgrow memory
          // and V8's longest string. Dead properties are read PROPS_GROUP entries at a time (dead.ts).
          for await (const batch of children) {
            for (let from = 0; from < batch.length; from += PROPS_GROUP) {
              const to = Math.min(batch.length, from + PROPS_GROUP);
              let dead: Map<string, DeadProp[]> | null = null;
              if (state.childProps) {
                const keys: string[] = [];
                for (let i = from; i < to; i++) keys.push(state.childKey(batch[i]!.name));
                dead = await state.childProps(keys);
              }
              for (let i = from; i < to; i++) {
                const e = batch[i]!;
                if (hideMac && isMacMetadataName(e.name)) continue;
                r.href = childHref(selfHref, e.name, e.isDir);
                r.name = e.name;
                r.isDir = e.isDir;
                r.size = e.size;
                r.mtimeMs = e.mtimeMs;
                r.createdMs = e.createdMs;
                const key = dead || state.anyLocks ? state.childKey(e.name) : '';
                st.dead = dead?.get(key) ?? NO_PROPS;
                st.activeLocks = locksOf(key);
                piece += propResponse(r, want, st);
                if (piece.length >= PIECE_MAX) {
                  yield piece;
                  piece = '';
                }
              }
            }
            // What is ready leaves while the next batch is being statted.
            if (piece) yield piece;
            piece = '';
          }
        }
        yield MULTISTATUS_CLOSE;
      }
      cutWhenIdle(req, reply, 'out', deps.config.webdavIdleTimeout * 1000);
      return reply.code(207).type('application/xml; charset=utf-8').send(Readable.from(pieces()));
    },
    xmlRequest('DAV:propfind: prop, allprop or propname; empty = allprop'),
  );

  for (const method of ['GET', 'HEAD']) {
    route(
      method,
      method === 'GET' ? "A file's bytes, with ranges and validators (docs/api.md §8.1)" : "A file's headers, as GET without the body",
      { ...fileAnswers("the file's bytes"), ...errors(400, 401, 403, 404, 405, 412, 416, 429) },
      async (req, reply, tail) => {
        // A client that stops reading is cut off (idle.ts).
        cutWhenIdle(req, reply, 'out', deps.config.webdavIdleTimeout * 1000);
        const p = await dav.download(req.user, tail, req.globalRules);
        if (p.stat?.isDirectory()) throw new MethodNotAllowed();
        return sendResolvedFile(req, reply, p, false);
      },
    );
  }

  route(
    'PUT',
    'Create or replace a file from the body, streamed and renamed into place',
    { 201: noBody('created'), 204: noBody('replaced'), ...errors(400, 401, 403, 404, 405, 409, 412, 413, 423, 429, 507) },
    async (req, reply, tail) => {
      // A client that trickles its body is cut off; the write then leaves nothing (idle.ts). Watched
      // from the first read: before it the server is the one waiting (a before_upload hook, the
      // quota's walk), and the body rests in the connection's buffers.
      const body = putBody(req, deps.config.maxUploadSize, () => cutWhenIdle(req, reply, 'in', deps.config.webdavIdleTimeout * 1000));
      const declared = Number(header(req, 'content-length') ?? header(req, 'x-expected-entity-length'));
      const out = await dav.put(req.user, tail, body, req.globalRules, conditionsOf(req, mountPath), Number.isSafeInteger(declared) && declared >= 0 ? declared : undefined);
      return reply.code(out.created ? 201 : 204).send();
    },
    bytesRequest("the file's exact bytes; chunked without Content-Length is accepted", '*/*'),
  );

  route(
    'MKCOL',
    'Create a folder in an existing one (RFC 4918 section 9.3)',
    { 201: noBody('created'), ...errors(400, 401, 403, 404, 405, 409, 412, 415, 423, 429, 507) },
    async (req, reply, tail) => {
      await dav.mkcol(req.user, tail, hasBody(req), req.globalRules, conditionsOf(req, mountPath));
      return reply.code(201).send();
    },
  );

  route(
    'DELETE',
    'Delete a file or a folder with what the caller may see in it (docs/api.md §7.10)',
    { 204: noBody('deleted'), ...errors(400, 401, 403, 404, 412, 423, 429) },
    async (req, reply, tail) => {
      await dav.remove(req.user, tail, req.globalRules, conditionsOf(req, mountPath));
      return reply.code(204).send();
    },
  );

  for (const [method, action] of [['COPY', 'copy'], ['MOVE', 'rename']] as const) {
    route(
      method,
      `${method === 'COPY' ? 'Copy' : 'Move'} to the Destination header's path in the same scope (RFC 4918 section 9.${method === 'COPY' ? 8 : 9})`,
      { 201: noBody('created'), 204: noBody('replaced'), ...errors(400, 401, 403, 404, 409, 412, 423, 429, 502, 507) },
      async (req, reply, tail) => {
        const dest = destinationOf(req, mountPath);
        const depth = depthOf(req, 'infinity');
        if (depth === '1') throw new BadRequest('Depth 1 is not defined for COPY and MOVE');
        const opts = { depth, overwrite: overwriteOf(req), globalRules: req.globalRules };
        const out = await dav.copyMove(req.user, action, tail, dest, opts, conditionsOf(req, mountPath));
        return reply.code(out.created ? 201 : 204).send();
      },
    );
  }

  stateRoutes(route, { dav, mountPath, idleMs: deps.config.webdavIdleTimeout * 1000 });
}

/** PROPPATCH, LOCK and UNLOCK: dead properties and write locks, kept in the database (repository.ts). */
function stateRoutes(
  route: RouteAdder,
  ctx: { dav: DavService; mountPath: string; idleMs: number },
): void {
  const { dav, mountPath, idleMs } = ctx;
  route(
    'PROPPATCH',
    'Set or remove dead properties, all or none (RFC 4918 section 9.2)',
    { 207: MULTISTATUS, ...errors(400, 401, 403, 404, 412, 413, 423, 429, 507) },
    async (req, reply, tail) => {
      // A trickled body is cut off (idle.ts), as a PUT's.
      cutWhenIdle(req, reply, 'in', idleMs);
      const out = await dav.proppatch(req.user, tail, await xmlBody(req, XML_BODY_LIMIT), req.globalRules, conditionsOf(req, mountPath));
      const names = out.changes.map((c) => ({ ns: c.ns, local: c.name }));
      const refused = out.refused.map((c) => ({ ns: c.ns, local: c.name }));
      const href = hrefOf(mountPath, out.p.virtual, !!out.p.stat?.isDirectory());
      return reply.code(207).type('application/xml; charset=utf-8').send(proppatchResponse(href, names, refused));
    },
    xmlRequest('DAV:propertyupdate with set and remove'),
  );

  route(
    'LOCK',
    'Take a write lock (exclusive or shared), or refresh one named in the If header (RFC 4918 section 9.10)',
    {
      200: textBody('the lock (lockdiscovery)', { 'Lock-Token': Type.String() }, 'application/xml'),
      201: textBody('an empty file was made and locked', { 'Lock-Token': Type.String() }, 'application/xml'),
      ...errors(400, 401, 403, 404, 409, 412, 413, 423, 429, 507),
    },
    async (req, reply, tail) => {
      const depth = depthOf(req, 'infinity');
      if (depth === '1') throw new BadRequest('LOCK takes Depth 0 or infinity');
      cutWhenIdle(req, reply, 'in', idleMs);
      const root = await xmlBody(req, SMALL_XML_BODY_LIMIT);
      const out = await dav.lock(
        req.user,
        tail,
        root ? lockInfo(root) : null,
        { depth, timeoutS: timeoutOf(header(req, 'timeout')), globalRules: req.globalRules },
        conditionsOf(req, mountPath),
      );
      const href = hrefOf(mountPath, out.p.virtual, !!out.p.stat?.isDirectory());
      const body = `<?xml version="1.0" encoding="utf-8"?>\n<D:prop xmlns:D="DAV:"><D:lockdiscovery>${activeLock(out.lock, href, Date.now())}</D:lockdiscovery></D:prop>\n`;
      if (root) void reply.header('Lock-Token', `<${out.lock.token}>`);
      return reply.code(out.created ? 201 : 200).type('application/xml; charset=utf-8').send(body);
    },
    xmlRequest('DAV:lockinfo (lockscope, locktype, owner); empty to refresh'),
  );

  route(
    'UNLOCK',
    'Remove the lock named by the Lock-Token header (RFC 4918 section 9.11)',
    { 204: noBody('unlocked'), ...errors(400, 401, 403, 404, 409, 429) },
    async (req, reply, tail) => {
      const token = /^\s*<([^>]+)>\s*$/.exec(header(req, 'lock-token') ?? '')?.[1];
      if (!token) throw new BadRequest('missing Lock-Token');
      await dav.unlock(req.user, tail, token, req.globalRules);
      return reply.code(204).send();
    },
  );
}
