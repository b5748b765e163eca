/**
 * PROPFIND (RFC 4918 section 9.1): what the request asks for, and the multistatus answer written as text
 * pieces, one <response> per resource, so a big folder streams out as it is read.
 */
import type { ScopedPath } from '../../fs/resolve.js';
import { etagText } from '../../http/send-file.js';
import { BadRequest } from '../../http/errors.js';
import { extensionOf, mimeByExtension } from '../../fs/types.js';
import type { DavLock, DeadProp } from './repository.js';
import { DAV_NS, child, elements, esc, isDav, type XmlElement } from './xml.js';

export interface PropName {
  ns: string;
  local: string;
}

export type PropRequest = { kind: 'allprop' } | { kind: 'propname' } | { kind: 'prop'; names: PropName[] };

/** Property names a PROPFIND <prop> may ask for (clients ask for a dozen or two). */
export const MAX_PROP_NAMES = 256;

/** The PROPFIND body: none or <allprop/> → every live property; <propname/>; <prop> with names. */
export function propRequest(root: XmlElement | null): PropRequest {
  if (!root) return { kind: 'allprop' };
  if (!isDav(root, 'propfind')) throw new BadRequest('expected DAV:propfind');
  if (child(root, 'allprop')) return { kind: 'allprop' };
  if (child(root, 'propname')) return { kind: 'propname' };
  const prop = child(root, 'prop');
  if (!prop) throw new BadRequest('expected prop, allprop or propname');
  const names = elements(prop);
  // Each name is looked up for every entry answered (100,000 in a big folder): bounded.
  if (names.length > MAX_PROP_NAMES) throw new BadRequest(`at most ${MAX_PROP_NAMES} properties per PROPFIND`);
  return { kind: 'prop', names: names.map((e) => ({ ns: e.ns, local: e.local })) };
}

/** What a response describes: a resource and the stat fields its live properties come from. */
export interface DavResource {
  /** The href, already encoded (hrefOf). */
  href: string;
  name: string;
  isDir: boolean;
  size: number;
  mtimeMs: number;
  /** Birth time, or change time where there is none. */
  createdMs: number;
}

/** A resource described by its stat (a link's target for a link). */
export function statResource(href: string, name: string, st: NonNullable<ScopedPath['stat']>): DavResource {
  return { href, name, isDir: st.isDirectory(), size: st.size, mtimeMs: st.mtimeMs, createdMs: st.birthtimeMs > 0 ? st.birthtimeMs : st.ctimeMs };
}

/** `/dav` + the virtual path with each segment percent-encoded (spaces, `#`, `%`, non-ASCII: RFC 3986); folders end in "/". */
export function hrefOf(mount: string, virtual: string, isDir: boolean): string {
  const encoded = virtual === '/' ? '' : virtual.split('/').map(encodeURIComponent).join('/');
  return `${mount}${encoded}${isDir ? '/' : ''}`;
}

/** The href of a child named `name` of the folder whose href is `folderHref` (ending in "/"): hrefOf without encoding the folder again. */
export function childHref(folderHref: string, name: string, isDir: boolean): string {
  return folderHref + encodeURIComponent(name) + (isDir ? '/' : '');
}

const LIVE = ['creationdate', 'displayname', 'getcontentlength', 'getcontenttype', 'getetag', 'getlastmodified', 'resourcetype'] as const;
type Live = (typeof LIVE)[number];
const LIVE_SET = new Set<string>(LIVE);
/** What allprop and propname answer, in this order. */
const ALLPROP = [...LIVE, 'lockdiscovery', 'supportedlock'] as const;

// A big folder's entries share few dates and types: each is formatted once (last value / by extension).
let lastSecond = NaN;
let lastHttpDate = '';
let lastIsoSecond = NaN;
let lastIsoPrefix = '';
const typeByExtension = new Map<string, string>();

function httpDate(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    lastHttpDate = new Date(ms).toUTCString();
    lastSecond = second;
  }
  return lastHttpDate;
}

/** `new Date(ms).toISOString()`, the date and time to the second made once per second. */
function isoDate(ms: number): string {
  // Before 1970 (and NaN, which throws as before): the plain way.
  if (!(ms >= 0)) return new Date(ms).toISOString();
  const whole = Math.trunc(ms);
  const second = Math.floor(whole / 1000);
  if (second !== lastIsoSecond) {
    lastIsoPrefix = new Date(second * 1000).toISOString().slice(0, -4); // without "000Z"
    lastIsoSecond = second;
  }
  const milli = whole - second * 1000;
  return lastIsoPrefix + (milli < 10 ? '00' : milli < 100 ? '0' : '') + milli + 'Z';
}

function contentType(name: string): string {
  const ext = extensionOf(name);
  let t = typeByExtension.get(ext);
  if (t === undefined) {
    t = esc(mimeByExtension(ext) || 'application/octet-stream');
    if (typeByExtension.size > 1000) typeByExtension.clear();
    typeByExtension.set(ext, t);
  }
  return t;
}

function liveValue(p: Live, r: DavResource): string | null {
  const dir = r.isDir;
  switch (p) {
    case 'creationdate':
      return isoDate(r.createdMs);
    case 'displayname':
      return esc(r.name);
    case 'getcontentlength':
      return dir ? null : String(r.size);
    case 'getcontenttype':
      return dir ? null : contentType(r.name);
    case 'getetag':
      // etagFor's `"hex-hex"`: its quotes are the only characters to escape.
      return dir ? null : `&quot;${etagText(r.size, r.mtimeMs)}&quot;`;
    case 'getlastmodified':
      return httpDate(r.mtimeMs);
    case 'resourcetype':
      return dir ? '<D:collection/>' : '';
  }
}

function element(name: PropName, inner: string | null): string {
  const body = inner ?? '';
  if (name.ns === DAV_NS) return body ? `<D:${name.local}>${body}</D:${name.local}>` : `<D:${name.local}/>`;
  if (name.ns === '') return body ? `<${name.local}>${body}</${name.local}>` : `<${name.local}/>`;
  const decl = ` xmlns:X="${esc(name.ns)}"`;
  return body ? `<X:${name.local}${decl}>${body}</X:${name.local}>` : `<X:${name.local}${decl}/>`;
}

function propstat(props: string[], status: string): string {
  return props.length ? `<D:propstat><D:prop>${props.join('')}</D:prop><D:status>HTTP/1.1 ${status}</D:status></D:propstat>` : '';
}

export const MULTISTATUS_OPEN = '<?xml version="1.0" encoding="utf-8"?>\n<D:multistatus xmlns:D="DAV:">';
export const MULTISTATUS_CLOSE = '</D:multistatus>\n';

/** Properties the server computes (PROPPATCH cannot change them), RFC 4331's quota ones included. */
const COMPUTED = new Set<string>([...LIVE, 'lockdiscovery', 'supportedlock', 'quota-available-bytes', 'quota-used-bytes']);
export function isLiveProp(ns: string, name: string): boolean {
  return ns === DAV_NS && COMPUTED.has(name);
}

/** RFC 4331: asked for by name only, never part of allprop. */
export const QUOTA_PROPS = ['quota-available-bytes', 'quota-used-bytes'] as const;
export function wantsQuota(req: PropRequest): boolean {
  return req.kind === 'prop' && req.names.some((n) => n.ns === DAV_NS && (QUOTA_PROPS as readonly string[]).includes(n.local));
}

export const SUPPORTED_LOCK =
  '<D:lockentry><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockentry>' +
  '<D:lockentry><D:lockscope><D:shared/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockentry>';

/**
 * One <D:activelock> (RFC 4918 section 14.1); `root` is the href of the locked resource, when the
 * viewer can see it. A lock whose root lies above the viewer's scope is another user's business:
 * its owner (what the locking client wrote about who holds it) is left out too.
 */
export function activeLock(l: DavLock, root: string | null, now: number): string {
  const left = Math.max(0, Math.ceil((l.expiresAt - now) / 1000));
  return (
    `<D:activelock><D:locktype><D:write/></D:locktype><D:lockscope>${l.exclusive ? '<D:exclusive/>' : '<D:shared/>'}</D:lockscope>` +
    `<D:depth>${l.depth}</D:depth>${l.owner && root !== null ? `<D:owner>${l.owner}</D:owner>` : ''}<D:timeout>Second-${left}</D:timeout>` +
    `<D:locktoken><D:href>${esc(l.token)}</D:href></D:locktoken>${root !== null ? `<D:lockroot><D:href>${esc(root)}</D:href></D:lockroot>` : ''}</D:activelock>`
  );
}

/** What a response adds to the live properties: dead properties, locks, quota (collections). */
export interface ResourceState {
  dead: readonly DeadProp[];
  /** <D:activelock> elements of the locks covering it. */
  activeLocks: string;
  quota?: { used: number; available: number };
}

function computedValue(local: string, r: DavResource, st: ResourceState): string | null {
  if (LIVE_SET.has(local)) return liveValue(local as Live, r);
  if (local === 'lockdiscovery') return st.activeLocks;
  if (local === 'supportedlock') return SUPPORTED_LOCK;
  if (local === 'quota-used-bytes') return st.quota && r.isDir ? String(st.quota.used) : null;
  if (local === 'quota-available-bytes') return st.quota && r.isDir ? String(st.quota.available) : null;
  return null;
}

/** One <D:response> for a resource. */
export function propResponse(r: DavResource, req: PropRequest, st: ResourceState): string {
  return req.kind === 'allprop' && st.dead.length === 0 ? allpropResponse(r, st.activeLocks) : anyPropResponse(r, req, st);
}

const SUPPORTED_LOCK_PROP = `<D:supportedlock>${SUPPORTED_LOCK}</D:supportedlock>`;
const OK_TAIL = `${SUPPORTED_LOCK_PROP}</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>`;

/**
 * allprop without dead properties (an empty PROPFIND body: most clients' listings), written in
 * one template: exactly what `anyPropResponse` writes (props.test.ts), at a fraction of the work —
 * a 100,000-entry folder is 100,000 of these.
 */
function allpropResponse(r: DavResource, activeLocks: string): string {
  const file = r.isDir
    ? '<D:getlastmodified>' + httpDate(r.mtimeMs) + '</D:getlastmodified><D:resourcetype><D:collection/></D:resourcetype>'
    : `<D:getcontentlength>${r.size}</D:getcontentlength><D:getcontenttype>${contentType(r.name)}</D:getcontenttype>` +
      `<D:getetag>${liveValue('getetag', r)}</D:getetag><D:getlastmodified>${httpDate(r.mtimeMs)}</D:getlastmodified><D:resourcetype/>`;
  return (
    `<D:response><D:href>${esc(r.href)}</D:href><D:propstat><D:prop><D:creationdate>${isoDate(r.createdMs)}</D:creationdate>` +
    `<D:displayname>${esc(r.name)}</D:displayname>${file}${activeLocks ? `<D:lockdiscovery>${activeLocks}</D:lockdiscovery>` : '<D:lockdiscovery/>'}${OK_TAIL}`
  );
}

/** One <D:response> for any request, property by property. */
export function anyPropResponse(r: DavResource, req: PropRequest, st: ResourceState): string {
  const found: string[] = [];
  const missing: string[] = [];
  if (req.kind === 'propname') {
    for (const p of ALLPROP) if (computedValue(p, r, st) !== null) found.push(`<D:${p}/>`);
    for (const d of st.dead) found.push(element({ ns: d.ns, local: d.name }, null));
  } else if (req.kind === 'allprop') {
    for (const p of ALLPROP) {
      const v = computedValue(p, r, st);
      if (v !== null) found.push(element({ ns: DAV_NS, local: p }, v));
    }
    for (const d of st.dead) found.push(element({ ns: d.ns, local: d.name }, d.value));
  } else {
    for (const name of req.names) {
      const dead = st.dead.find((d) => d.ns === name.ns && d.name === name.local);
      const v = name.ns === DAV_NS && COMPUTED.has(name.local) ? computedValue(name.local, r, st) : (dead?.value ?? null);
      if (v === null) missing.push(element(name, null));
      else found.push(element(name, v));
    }
  }
  return `<D:response><D:href>${esc(r.href)}</D:href>${propstat(found, '200 OK')}${propstat(missing, '404 Not Found')}</D:response>`;
}

/** PROPPATCH's answer: every property with its status; a refused one makes the rest 424 (RFC 4918 section 9.2). */
export function proppatchResponse(href: string, names: PropName[], refused: PropName[]): string {
  const is = (a: PropName) => (b: PropName) => a.ns === b.ns && a.local === b.local;
  const ok = refused.length === 0;
  const forbidden = names.filter((n) => refused.some(is(n))).map((n) => element(n, null));
  const rest = names.filter((n) => !refused.some(is(n))).map((n) => element(n, null));
  const stats = ok ? propstat(rest, '200 OK') : propstat(forbidden, '403 Forbidden') + propstat(rest, '424 Failed Dependency');
  return `${MULTISTATUS_OPEN}<D:response><D:href>${esc(href)}</D:href>${stats}</D:response>${MULTISTATUS_CLOSE}`;
}
