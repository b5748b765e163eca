/**
 * WebDAV locks (RFC 4918 sections 6, 7, 9.10, 10.4): the If header, and the guard every write
 * passes. A lock is kept in the database (repository.ts), so every instance sees it. Its token
 * counts only when the request names it in the If header and comes from the user who took it.
 */
import { randomUUID } from 'node:crypto';
import { BadRequest, HttpError } from '../../http/errors.js';
import type { DavLock, DavRepository } from './repository.js';

export class Locked extends HttpError {
  constructor() {
    super(423);
  }
}

/** One condition of an If list: a state token or an entity tag, maybe negated. */
export interface IfCondition {
  not: boolean;
  token?: string;
  etag?: string;
}
/** A list, and the resource it is about (absent: the request's own). */
export interface IfList {
  resource?: string;
  conditions: IfCondition[];
}

/**
 * Parses the If header (RFC 4918 section 10.4): `(<token> ["etag"] Not <token>)` lists, each
 * optionally after a `<resource>` tag. Malformed is 400.
 */
export function parseIf(header: string): IfList[] {
  const lists: IfList[] = [];
  let i = 0;
  let tag: string | undefined;
  const s = header;
  const skip = () => {
    while (i < s.length && (s[i] === ' ' || s[i] === '\t')) i++;
  };
  const until = (close: string) => {
    const end = s.indexOf(close, i + 1);
    if (end < 0) throw new BadRequest('malformed If header');
    const out = s.slice(i + 1, end);
    i = end + 1;
    return out;
  };
  for (skip(); i < s.length; skip()) {
    if (s[i] === '<') {
      tag = until('>');
      continue;
    }
    if (s[i] !== '(') throw new BadRequest('malformed If header');
    i++;
    const conditions: IfCondition[] = [];
    for (skip(); s[i] !== ')'; skip()) {
      if (i >= s.length) throw new BadRequest('malformed If header');
      let not = false;
      if (s.startsWith('Not', i)) {
        not = true;
        i += 3;
        skip();
      }
      if (s[i] === '<') conditions.push({ not, token: until('>') });
      else if (s[i] === '[') conditions.push({ not, etag: until(']') });
      else throw new BadRequest('malformed If header');
    }
    i++;
    if (conditions.length === 0) throw new BadRequest('malformed If header');
    lists.push({ resource: tag, conditions });
  }
  if (lists.length === 0) throw new BadRequest('malformed If header');
  return lists;
}

/** What the If header's conditions are checked against: a resource's key, ETag and covering locks. */
export interface IfSubject {
  key: string;
  etag: string | null;
}

/** Timeout (RFC 4918 section 10.7): the first `Second-N` or `Infinite`, capped at MAX_LOCK_S. */
export const MAX_LOCK_S = 3600;
export function timeoutOf(header: string | undefined): number {
  for (const part of (header ?? '').split(',')) {
    const t = part.trim();
    if (t === 'Infinite') return MAX_LOCK_S;
    const m = /^Second-(\d{1,10})$/.exec(t);
    if (m) return Math.max(1, Math.min(MAX_LOCK_S, Number(m[1])));
  }
  return MAX_LOCK_S;
}

export function newLockToken(): string {
  return `opaquelocktoken:${randomUUID()}`;
}

/** One resource a write touches: `tree` when it reaches everything below (DELETE, MOVE of a folder). */
export interface Protected {
  key: string;
  tree: boolean;
}

export function createLockGuard(repo: DavRepository) {
  async function conditionHolds(c: IfCondition, subject: IfSubject | null): Promise<boolean> {
    let holds = false;
    if (subject && c.token !== undefined) holds = (await repo.locksCovering(subject.key)).some((l) => l.token === c.token);
    else if (subject && c.etag !== undefined) holds = subject.etag !== null && subject.etag === c.etag;
    return c.not ? !holds : holds;
  }

  return {
    /**
     * The If header's verdict (412 when no list holds), then the locks: every lock on a
     * protected resource (or on what is below it, for a tree) must be among the header's tokens
     * and belong to `userId`, else 423. Returns the tokens the request submitted.
     */
    async check(opts: {
      userId: number;
      ifHeader: string | undefined;
      self: IfSubject | null;
      /** The subject of a tagged list (its URL), or null when it is not one of ours. */
      subjectOf: (url: string) => Promise<IfSubject | null>;
      protect: Protected[];
    }): Promise<Set<string>> {
      const submitted = new Set<string>();
      if (opts.ifHeader !== undefined) {
        const lists = parseIf(opts.ifHeader);
        let any = false;
        for (const list of lists) {
          const subject = list.resource === undefined ? opts.self : await opts.subjectOf(list.resource);
          let all = true;
          for (const c of list.conditions) {
            if (c.token !== undefined && !c.not) submitted.add(c.token);
            if (!(await conditionHolds(c, subject))) all = false;
          }
          if (all) any = true;
        }
        if (!any) throw new HttpError(412, 'If header');
      }
      for (const p of opts.protect) {
        const locks: DavLock[] = [...(await repo.locksCovering(p.key)), ...(p.tree ? await repo.locksBelow(p.key) : [])];
        if (locks.some((l) => !submitted.has(l.token) || l.userId !== opts.userId)) throw new Locked();
      }
      return submitted;
    },
  };
}
export type LockGuard = ReturnType<typeof createLockGuard>;
