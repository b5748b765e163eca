/**
 * WebDAV's XML (RFC 4918 section 14): request bodies parsed by fast-xml-parser into a namespace-resolved
 * tree, and the text of answers. A body with a DOCTYPE is refused before parsing (no entity of the
 * client's is ever defined, let alone expanded: "billion laughs"); malformed XML is 400.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { BadRequest } from '../../http/errors.js';

export const DAV_NS = 'DAV:';

/** An element with its namespace resolved: `{DAV:}prop` is `{ ns: 'DAV:', local: 'prop' }`. */
export interface XmlElement {
  ns: string;
  local: string;
  /** Attributes other than namespace declarations, by their qualified name as written. */
  attrs: Record<string, string>;
  /** Namespace declarations in scope here (prefix → URI, '' for the default one). */
  scope: Record<string, string>;
  children: XmlNode[];
}
export type XmlNode = XmlElement | string;

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  // The five XML entities and character references only; a DOCTYPE never reaches the parser.
  processEntities: true,
  htmlEntities: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  commentPropName: false,
});

type Ordered = Record<string, unknown> & { ':@'?: Record<string, string> };

function resolve(node: Ordered, inherited: Record<string, string>): XmlNode | null {
  const attrsIn = node[':@'] ?? {};
  const key = Object.keys(node).find((k) => k !== ':@');
  if (key === undefined) return null;
  if (key === '#text') return String(node[key] as string);
  if (key.startsWith('?') || key.startsWith('!')) return null;
  const scope = { ...inherited };
  const attrs: Record<string, string> = {};
  for (const [name, value] of Object.entries(attrsIn)) {
    if (name === 'xmlns') scope[''] = value;
    else if (name.startsWith('xmlns:')) {
      // Namespaces in XML 1.0: a prefix cannot be bound to the empty name.
      if (value === '') throw new BadRequest('empty namespace for a prefix');
      scope[name.slice(6)] = value;
    }
    else attrs[name] = value;
  }
  const colon = key.indexOf(':');
  const prefix = colon < 0 ? '' : key.slice(0, colon);
  const local = colon < 0 ? key : key.slice(colon + 1);
  const ns = scope[prefix];
  if (ns === undefined && prefix !== '') throw new BadRequest(`unbound namespace prefix`);
  const children: XmlNode[] = [];
  for (const child of (node[key] as Ordered[]) ?? []) {
    const r = resolve(child, scope);
    if (r !== null) children.push(r);
  }
  return { ns: ns ?? '', local, attrs, scope, children };
}

/**
 * The root element of a request body, or null for an empty body. 400 for malformed XML, a
 * DOCTYPE (entity definitions), or more than one root.
 */
export function parseXml(text: string): XmlElement | null {
  if (text.trim() === '') return null;
  if (text.includes('<!DOCTYPE') || text.includes('<!ENTITY')) throw new BadRequest('DOCTYPE not accepted');
  if (XMLValidator.validate(text) !== true) throw new BadRequest('malformed XML');
  let doc: Ordered[];
  try {
    doc = parser.parse(text) as Ordered[];
  } catch {
    throw new BadRequest('malformed XML');
  }
  const roots = doc.map((n) => resolve(n, {})).filter((n): n is XmlElement => n !== null && typeof n !== 'string');
  if (roots.length !== 1) throw new BadRequest('malformed XML');
  return roots[0]!;
}

export function elements(e: XmlElement): XmlElement[] {
  return e.children.filter((c): c is XmlElement => typeof c !== 'string');
}

export function isDav(e: XmlElement, local: string): boolean {
  return e.ns === DAV_NS && e.local === local;
}

export function child(e: XmlElement, local: string): XmlElement | undefined {
  return elements(e).find((c) => isDav(c, local));
}

/** Text content of an element (its descendants' text, joined). */
export function textOf(e: XmlElement): string {
  return e.children.map((c) => (typeof c === 'string' ? c : textOf(c))).join('');
}

/**
 * Characters XML 1.0 cannot hold, even as references (section 2.2): C0 controls but tab, LF and CR,
 * U+FFFE, U+FFFF and lone surrogates. A file name on disk may have them.
 */
// eslint-disable-next-line no-control-regex
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE = /[&<>"\u0000-\u0008\u000b\u000c\u000e-\u001f\ud800-\udfff\ufffe\uffff]/;

/** Escapes text and attribute values; a character XML cannot hold becomes U+FFFD, so an answer stays well-formed. */
export function esc(s: string): string {
  // Most names need nothing: one test instead of two replacements (a big folder's PROPFIND).
  if (!NEEDS_ESCAPE.test(s)) return s;
  return s.replace(/[&<>"]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;')).replace(NOT_XML, '\ufffd');
}

/**
 * An element written back as XML, self-contained: each namespace it or a descendant uses is
 * declared on it (dead property values keep their meaning wherever they are answered).
 */
export function serialize(e: XmlElement): string {
  return write(e, new Map());
}

/** Answers never use a default namespace: an unprefixed name is in no namespace. */
function write(e: XmlElement, declared: Map<string, string>): string {
  const local = new Map(declared);
  let decl = '';
  let name = e.local;
  if (e.ns !== '') {
    let prefix = local.get(e.ns);
    if (prefix === undefined) {
      prefix = `n${local.size}`;
      local.set(e.ns, prefix);
      decl += ` xmlns:${prefix}="${esc(e.ns)}"`;
    }
    name = `${prefix}:${e.local}`;
  }
  const attrs = Object.entries(e.attrs)
    .filter(([k]) => !k.includes(':'))
    .map(([k, v]) => ` ${k}="${esc(v)}"`)
    .join('');
  const inner = e.children.map((c) => (typeof c === 'string' ? esc(c) : write(c, local))).join('');
  return inner === '' ? `<${name}${decl}${attrs}/>` : `<${name}${decl}${attrs}>${inner}</${name}>`;
}

/** An element's content written back as XML (a dead property's value). */
export function innerXml(e: XmlElement): string {
  return e.children.map((c) => (typeof c === 'string' ? esc(c) : serialize(c))).join('');
}
