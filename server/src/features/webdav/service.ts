/**
 * WebDAV's operations (RFC 4918) on the user's files. Every path goes through `files.resolve`
 * (server/src/fs/: canonical path, rules and hidden files, scope, symlink confinement, reserved
 * names), every write through fs/'s atomic writes, and delete, copy and move through the web API's
 * resource service itself — the same checks (S3, S7, S13), events (docs/api.md §16.4) and share
 * clean-up (S48). What is WebDAV's own is the order of the checks and the statuses.
 *
 * Permissions (issue 19, item 2): PUT of a new file needs create, of an existing one modify; MKCOL
 * create; DELETE delete; COPY create (modify to replace, delete to replace a folder); MOVE rename
 * and create (the same to replace); GET download.
 */
import path from 'node:path';
import type { Rule } from '@coffer/protocol';
import type { UserRecord } from '../users/repository.js';
import type { EventBus, FileEventContext } from '../../events/index.js';
import { BadRequest, Conflict, Forbidden, HttpError, MethodNotAllowed, NotFound } from '../../http/errors.js';
import type { QuotaService } from '../quota/service.js';
import { keepDirs, writeAtomic, type ByteSource, type WriteIo } from '../../fs/atomic.js';
import { canonicalPath, type CanonicalPath } from '../../fs/canonical.js';
import { isWithin, permissionBits } from '../../fs/ops.js';
import type { ScopedPath } from '../../fs/resolve.js';
import type { FileService } from '../../fs/service.js';
import { folderChildren, type ChildEntry } from '../../fs/children.js';
import { etagFor } from '../../http/send-file.js';
import { createResourceService } from '../resources/service.js';
import { childPropsReader } from './dead.js';
import { createLockGuard, Locked, newLockToken, type IfSubject, type Protected } from './locks.js';
import { isLiveProp } from './props.js';
import type { DavLock, DavRepository } from './repository.js';
import { child, elements, innerXml, isDav, type XmlElement } from './xml.js';

export class PreconditionFailed extends HttpError {
  constructor(detail = '') {
    super(412, detail);
  }
}
export class UnsupportedMediaType extends HttpError {
  constructor() {
    super(415);
  }
}

export interface DavServiceDeps {
  files: FileService;
  events: EventBus;
  repo: DavRepository;
  removeShares?: (user: UserRecord, target: ScopedPath) => Promise<unknown>;
  /** docs/api.md §22: a delete goes to the trash (ResourceDeps.trash). */
  trash?: (user: UserRecord, target: ScopedPath, globalRules: readonly Rule[]) => Promise<boolean>;
  io?: () => WriteIo | undefined;
  /** Byte quotas: PUT bodies and copies are counted before they land (ResourceDeps.quota). */
  quota?: Pick<QuotaService, 'limit' | 'admitMeasured' | 'changed'>;
}

/** What a write checks before it runs: the If header, and how a tagged list's URL becomes a path. */
export interface Conditions {
  ifHeader: string | undefined;
  /** A URL of the If header as a canonical path in the mount, or null when it is not one of ours. */
  pathOf: (url: string) => CanonicalPath | null;
}

export type Depth = '0' | '1' | 'infinity';

/** Dead properties per resource, and characters of XML per value. */
export const MAX_PROPS_PER_RESOURCE = 1000;
export const MAX_PROP_VALUE = 64 * 1024;
/** Characters of XML in all of a resource's values: a copy carries them, a listing reads its members'. */
export const MAX_PROPS_TOTAL = 256 * 1024;
/** Unexpired locks per user, and characters of XML in a lock's owner (answered with every lockdiscovery). */
export const MAX_LOCKS_PER_USER = 1000;
export const MAX_LOCK_OWNER = 4 * 1024;

function ctxOf(user: UserRecord, file: ScopedPath): FileEventContext {
  return { user: { id: user.id, username: user.username, scope: user.scope }, file, scopeRoot: file.root };
}

function parentOf(virtual: string): string {
  return path.posix.dirname(virtual);
}

function parentKey(key: string): string {
  return key === '/' ? '/' : path.posix.dirname(key);
}

export function createDavService(deps: DavServiceDeps) {
  const { files, events, repo } = deps;
  const io = () => deps.io?.();
  const resources = createResourceService(deps);
  const guard = createLockGuard(repo);

  async function subjectOf(p: ScopedPath): Promise<IfSubject> {
    return { key: await files.storageKey(p), etag: p.exists && p.stat?.isFile() ? etagFor(p.stat.size, p.stat.mtimeMs) : null };
  }

  /**
   * The If header and the locks (locks.ts) for a write of `user`: `self` is the request's resource,
   * `protect` what the write changes, as [resource, tree?] with `parent` adding the folder whose
   * membership changes.
   */
  async function checkLocks(
    user: UserRecord,
    cond: Conditions,
    self: ScopedPath,
    globalRules: readonly Rule[],
    protect: { p: ScopedPath; tree: boolean; parent: boolean }[],
  ): Promise<Set<string>> {
    const list: Protected[] = [];
    for (const x of protect) {
      const key = await files.storageKey(x.p);
      list.push({ key, tree: x.tree });
      // A link in the root writes through to its target (PUT): the target's locks count too.
      if (x.p.real !== x.p.entry) list.push({ key: await files.storageKey({ entry: x.p.real }), tree: x.tree });
      if (x.parent) list.push({ key: parentKey(key), tree: false });
    }
    return guard.check({
      userId: user.id,
      ifHeader: cond.ifHeader,
      self: await subjectOf(self),
      subjectOf: async (url) => {
        const canon = cond.pathOf(url);
        if (!canon) return null;
        const p = await files.resolve(user, canon, { globalRules }).catch(() => null);
        return p && subjectOf(p);
      },
      protect: list,
    });
  }

  /**
   * Where a lock on `p` is kept: a link in the scope is locked at its target (whose key every
   * write through either name checks, and under which a folder's members are), so that a lock
   * taken through the link holds against the real name and cannot be taken twice.
   */
  async function lockKey(p: ScopedPath): Promise<string> {
    return files.storageKey(p.exists && p.real !== p.entry ? { entry: p.real } : p);
  }

  /** The parent folder of a path that is to be created must exist (RFC 4918 section 9.3.1, section 9.7.1: 409). */
  async function requireParent(user: UserRecord, target: ScopedPath, globalRules: readonly Rule[]): Promise<void> {
    const parent = await files.resolve(user, { path: parentOf(target.virtual), trailingSlash: false }, { globalRules, rules: false });
    if (!parent.exists || !parent.stat?.isDirectory()) throw new Conflict('the parent folder does not exist');
  }

  /**
   * `files.resolve`, except that a path the rules hide (or a hidden dotfile) answers 404, not 403:
   * over WebDAV such items are absent, as in listings (issue 19, item 2). The URL tail comes decoded
   * once by Fastify's router (fs/README.md), so it is not decoded again.
   */
  async function resolveVisible(user: UserRecord, rawPath: string, opts: { globalRules: readonly Rule[]; mustExist?: boolean; forWrite?: boolean }): Promise<ScopedPath> {
    const canon = canonicalPath(rawPath);
    if (await files.isDenied(user, canon.path, { globalRules: opts.globalRules })) throw new NotFound();
    return files.resolve(user, canon, opts);
  }

  return {
    resolveVisible,

    /**
     * The resource and, for Depth 1 on a folder, its visible children: batches in name order,
     * statted by the listing workers (fs/children.ts, rules applied per entry). A folder that
     * cannot be read answers itself alone.
     */
    async propfind(user: UserRecord, rawPath: string, depth: Depth, globalRules: readonly Rule[], signal: AbortSignal) {
      if (depth === 'infinity') throw new HttpError(403, 'propfind-finite-depth');
      const self = await resolveVisible(user, rawPath, { globalRules, mustExist: true });
      const children: AsyncIterable<ChildEntry[]> | null =
        depth === '1' && self.stat?.isDirectory() ? await folderChildren(self, user, globalRules, signal).catch(() => null) : null;
      return { self, children };
    },

    /**
     * What PROPFIND answers beside the live properties: the dead properties and the locks of the
     * resource and, for a folder, of everything listed in it. The resource's own properties and
     * every lock are read up front (locks are bounded: MAX_LOCKS_PER_USER a user); the children's
     * properties a group at a time, as the answer is written (dead.ts).
     */
    async stateFor(self: ScopedPath) {
      const selfKey = await files.storageKey(self);
      const isDir = !!self.stat?.isDirectory();
      const dirKey = isDir ? await files.storageKey({ entry: self.real }) : selfKey;
      // A link's locks are kept at its target (lockKey).
      const selfLockKey = await lockKey(self);
      const selfProps = await repo.props(selfKey);
      const childProps = isDir ? await childPropsReader(repo, dirKey) : null;
      // The resource's own locks are both covering and below it: each token once in lockdiscovery.
      const found = [...(await repo.locksCovering(dirKey)), ...(await repo.locksBelow(dirKey))];
      if (dirKey !== selfKey) found.push(...(await repo.locksCovering(selfKey)));
      if (selfLockKey !== dirKey) found.push(...(await repo.locksCovering(selfLockKey)));
      const locks = [...new Map(found.map((l) => [l.token, l])).values()];
      const childBase = dirKey === '/' ? '/' : dirKey + '/';
      return {
        selfKey,
        selfProps,
        /** The storage key of a child of the folder (the entry itself: its folder's key and its name). */
        childKey: (name: string) => childBase + name,
        /** null when no child holds a dead property; else their properties, by key, for a group of child keys. */
        childProps,
        /** Whether any lock covers the resource or anything in it (else every lockdiscovery is empty). */
        anyLocks: locks.length > 0,
        /** Locks covering `key`: its own, and depth-infinity ones of its ancestors. */
        locks: (key: string) => {
          const at = key === selfKey ? selfLockKey : key;
          return locks.filter((l) => l.resource === at || (l.depth === 'infinity' && isWithin(l.resource, at)));
        },
      };
    },

    /**
     * PROPPATCH (RFC 4918 section 9.2): dead properties set and removed in order, all or none. A
     * live property cannot be changed (403, and 424 for the others). Needs modify or create.
     */
    async proppatch(user: UserRecord, rawPath: string, root: XmlElement | null, globalRules: readonly Rule[], cond: Conditions) {
      const p = await resolveVisible(user, rawPath, { globalRules, mustExist: true });
      if (!user.perm.modify && !user.perm.create) throw new Forbidden('needs the modify permission');
      if (!root || !isDav(root, 'propertyupdate')) throw new BadRequest('expected DAV:propertyupdate');
      await checkLocks(user, cond, p, globalRules, [{ p, tree: false, parent: false }]);
      const changes: Parameters<DavRepository['patchProps']>[1] = [];
      for (const op of elements(root)) {
        if (!isDav(op, 'set') && !isDav(op, 'remove')) continue;
        const prop = child(op, 'prop');
        for (const e of prop ? elements(prop) : []) {
          if (isDav(op, 'set')) changes.push({ op: 'set', ns: e.ns, name: e.local, value: innerXml(e) });
          else changes.push({ op: 'remove', ns: e.ns, name: e.local });
        }
      }
      const refused = changes.filter((c) => isLiveProp(c.ns, c.name));
      const key = await files.storageKey(p);
      // Bounded, so that properties cannot fill the database: RFC 4918 section 9.2.1's 507.
      const large = changes.some((c) => c.op === 'set' && c.value.length > MAX_PROP_VALUE);
      if (large || (await repo.countProps(key)) + changes.length > MAX_PROPS_PER_RESOURCE) throw new HttpError(507, 'too many or too large properties');
      const after = new Map((await repo.props(key)).map((d) => [`${d.ns} ${d.name}`, d.value.length]));
      for (const c of changes) {
        if (c.op === 'set') after.set(`${c.ns} ${c.name}`, c.value.length);
        else after.delete(`${c.ns} ${c.name}`);
      }
      if ([...after.values()].reduce((a, b) => a + b, 0) > MAX_PROPS_TOTAL) throw new HttpError(507, 'too many or too large properties');
      if (refused.length === 0) await repo.patchProps(key, changes);
      return { p, changes, refused };
    },

    /**
     * LOCK (RFC 4918 section 9.10): a new write lock, or with no body a refresh of one the If
     * header names. An unmapped URL gets an empty file (201). Needs create or modify.
     */
    async lock(
      user: UserRecord,
      rawPath: string,
      info: { exclusive: boolean; owner: string } | null,
      opts: { depth: '0' | 'infinity'; timeoutS: number; globalRules: readonly Rule[] },
      cond: Conditions,
    ): Promise<{ lock: DavLock; created: boolean; p: ScopedPath }> {
      const { globalRules } = opts;
      const p = await resolveVisible(user, rawPath, { globalRules, forWrite: true });
      if (!user.perm.modify && !user.perm.create) throw new Forbidden('locking needs the create or modify permission');
      const key = await lockKey(p);
      if (!info) {
        if (!p.exists) throw new NotFound();
        if (cond.ifHeader === undefined) throw new BadRequest('a refresh names its lock in the If header');
        const submitted = await checkLocks(user, cond, p, globalRules, []);
        const lock = (await repo.locksCovering(key)).find((l) => submitted.has(l.token) && l.userId === user.id);
        if (!lock) throw new PreconditionFailed('no such lock');
        await repo.refreshLock(lock.token, opts.timeoutS);
        return { lock: { ...lock, timeoutS: opts.timeoutS }, created: false, p };
      }
      // Bounded like dead properties: a lock is a row, and its owner is repeated in every
      // lockdiscovery of what it covers (a Depth 1 listing of a locked folder: once per member).
      if (info.owner.length > MAX_LOCK_OWNER) throw new HttpError(507, 'too large an owner');
      await checkLocks(user, cond, p, globalRules, []);
      if (!p.exists) {
        if (!user.perm.create) throw new Forbidden('needs the create permission');
        await requireParent(user, p, globalRules);
        await checkLocks(user, cond, p, globalRules, [{ p, tree: false, parent: true }]);
      }
      const lock: DavLock = {
        token: newLockToken(),
        resource: key,
        depth: p.stat?.isDirectory() ? opts.depth : '0',
        exclusive: info.exclusive,
        owner: info.owner,
        userId: user.id,
        timeoutS: opts.timeoutS,
        expiresAt: repo.now() + opts.timeoutS * 1000,
      };
      // Whether a conflicting lock is held and the taking are one step in the database (two LOCKs
      // at once, on one instance or two: one gets it, the other 423). Taken before the lock-null
      // file is made, so that the one refused never touches the disk.
      const refused = await repo.takeLock(lock, MAX_LOCKS_PER_USER);
      if (refused === 'locked') throw new Locked();
      if (refused === 'too-many') throw new HttpError(507, 'too many locks');
      let created = false;
      if (!p.exists) {
        try {
          const ctx = ctxOf(user, p);
          await events.before('upload', ctx);
          // A Conflict: made meanwhile by another (shared) LOCK or a write; it exists, as asked.
          created = await writeAtomic(p, new Uint8Array(0), { exclusive: true, io: io() }).then(
            () => true,
            (err: unknown) => {
              if (err instanceof Conflict) return false;
              throw err;
            },
          );
          if (created) await events.after('upload', ctx);
        } catch (err) {
          await repo.deleteLock(lock.token);
          throw err;
        }
      }
      return { lock, created, p };
    },

    /** UNLOCK (RFC 4918 section 9.11): the lock named by Lock-Token, if it covers the resource and is the user's. */
    async unlock(user: UserRecord, rawPath: string, token: string, globalRules: readonly Rule[]): Promise<void> {
      const p = await resolveVisible(user, rawPath, { globalRules, mustExist: true });
      const keys = new Set([await files.storageKey(p), await lockKey(p)]);
      const lock = (await Promise.all([...keys].map((k) => repo.locksCovering(k)))).flat().find((l) => l.token === token);
      if (!lock) throw new Conflict('no such lock on this resource');
      if (lock.userId !== user.id) throw new Forbidden('the lock is another user\'s');
      await repo.deleteLock(token);
    },

    /** GET/HEAD: a regular file the user may download. */
    async download(user: UserRecord, rawPath: string, globalRules: readonly Rule[]): Promise<ScopedPath> {
      const p = await resolveVisible(user, rawPath, { globalRules, mustExist: true });
      if (!user.perm.download) throw new Forbidden('downloading needs the download permission');
      return p;
    },

    /**
     * PUT: the body streamed to a staging file beside the target, fsynced, renamed into place
     * (fs/atomic.ts): a failed or cut upload leaves the old file (or nothing) behind. The If header
     * and the locks are checked first. Returns whether the file was created.
     */
    async put(
      user: UserRecord,
      rawPath: string,
      body: () => ByteSource,
      globalRules: readonly Rule[],
      cond: Conditions,
      declared?: number,
    ): Promise<{ created: boolean }> {
      const canon = canonicalPath(rawPath);
      if (canon.trailingSlash || canon.path === '/') throw new MethodNotAllowed();
      const p = await resolveVisible(user, rawPath, { globalRules, forWrite: true });
      if (p.exists && p.stat?.isDirectory()) throw new MethodNotAllowed();
      if (p.exists ? !user.perm.modify : !user.perm.create) throw new Forbidden(p.exists ? 'needs the modify permission' : 'needs the create permission');
      if (!p.exists) await requireParent(user, p, globalRules);
      await checkLocks(user, cond, p, globalRules, [{ p, tree: false, parent: !p.exists }]);
      // Counted as it streams (with or without a length): the chunk that would pass the quota stops the write.
      const freeing = p.exists && p.stat?.isFile() ? p.stat.size : 0;
      const limited = deps.quota ? await deps.quota.limit(user, body, { declared, freeing, target: p.real }) : body;
      const ctx = ctxOf(user, p);
      const event = p.exists ? 'save' : 'upload';
      await events.before(event, ctx);
      await writeAtomic(p, limited(), { exclusive: !p.exists, mode: p.exists ? permissionBits(p) : undefined, io: io() }).catch((err: unknown) => {
        // Nothing landed: the body's hold (features/quota) goes now, not after the landing time.
        deps.quota?.changed(p.real);
        throw err;
      });
      await events.after(event, ctx);
      return { created: !p.exists };
    },

    /** MKCOL: one new folder in an existing one; a body is 415 (RFC 4918 section 9.3). */
    async mkcol(user: UserRecord, rawPath: string, hasBody: boolean, globalRules: readonly Rule[], cond: Conditions): Promise<void> {
      if (hasBody) throw new UnsupportedMediaType();
      if (!user.perm.create) throw new Forbidden('needs the create permission');
      const p = await resolveVisible(user, rawPath, { globalRules, forWrite: true });
      if (p.exists) throw new MethodNotAllowed();
      await requireParent(user, p, globalRules);
      await checkLocks(user, cond, p, globalRules, [{ p, tree: false, parent: true }]);
      const ctx = ctxOf(user, p);
      await events.before('upload', ctx);
      await keepDirs(p.real, io());
      await events.after('upload', ctx);
    },

    /** DELETE: the web API's delete (denied descendants stay, S7; the scope root never, S13). */
    async remove(user: UserRecord, rawPath: string, globalRules: readonly Rule[], cond: Conditions): Promise<void> {
      if (!user.perm.delete) throw new Forbidden('needs the delete permission');
      const p = await resolveVisible(user, rawPath, { globalRules, mustExist: true });
      if (p.virtual === '/') throw new Forbidden('the scope root cannot be deleted');
      await checkLocks(user, cond, p, globalRules, [{ p, tree: true, parent: true }]);
      // Its properties and locks follow the delete event (follow.ts), as for the web API.
      await resources.remove(user, p.virtual);
    },

    /**
     * COPY and MOVE (RFC 4918 section 9.8, section 9.9) with `dest` already taken from the Destination header
     * (routes.ts: same host, under /dav/). Both ends are resolved in the user's own scope. Answers
     * whether the destination was created (201) or replaced (204).
     */
    async copyMove(
      user: UserRecord,
      action: 'copy' | 'rename',
      rawPath: string,
      dest: CanonicalPath,
      opts: { depth: Depth; overwrite: boolean; globalRules: readonly Rule[] },
      cond: Conditions,
    ): Promise<{ created: boolean; src: ScopedPath; dst: ScopedPath }> {
      const { globalRules } = opts;
      if (!user.perm.create) throw new Forbidden('needs the create permission');
      if (action === 'rename' && !user.perm.rename) throw new Forbidden('moving needs the rename permission');
      const src = await resolveVisible(user, rawPath, { globalRules, mustExist: true });
      const dst = await files.resolve(user, dest, { globalRules, forWrite: true });
      if (src.virtual === '/' || dst.virtual === '/') throw new Forbidden('the scope root is not an operand');
      if (isWithin(src.virtual, dst.virtual) || src.entry === dst.entry) throw new Forbidden('the destination is the source or inside it');
      if (action === 'rename' && opts.depth !== 'infinity') throw new HttpError(400, 'MOVE needs Depth: infinity');
      await requireParent(user, dst, globalRules);
      const moving = action === 'rename';
      await checkLocks(user, cond, src, globalRules, [
        ...(moving ? [{ p: src, tree: true, parent: true }] : []),
        { p: dst, tree: true, parent: true },
      ]);
      const replacing = dst.exists;
      if (replacing) {
        if (!opts.overwrite) throw new PreconditionFailed('the destination exists');
        if (!user.perm.modify) throw new Forbidden('replacing needs the modify permission');
        const eitherFolder = !!src.stat?.isDirectory() || !!dst.stat?.isDirectory();
        // RFC 4918 section 9.8.4/section 9.9.3: the destination is deleted first. A file replacing a file is
        // one atomic rename instead (fs/atomic.ts), so the old one is never missing.
        if (eitherFolder) {
          if (!user.perm.delete) throw new Forbidden('replacing a folder needs the delete permission');
          await resources.remove(user, dst.virtual);
        }
      }
      if (action === 'copy' && opts.depth === '0' && src.stat?.isDirectory()) {
        // Depth 0: the folder alone, without its members, nor their properties (the copy event
        // copies those of the tree: follow.ts).
        const ctx = { ...ctxOf(user, src), destination: dst };
        await events.before('copy', ctx);
        await keepDirs(dst.real, io());
        await events.after('copy', ctx);
        await repo.dropPropsBelow(await files.storageKey(dst));
      } else {
        await resources.patch(user, src.virtual, { action, destination: { path: dst.virtual, trailingSlash: false }, override: replacing, autoRename: false });
      }
      // Dead properties and locks followed the copy or move event (follow.ts), as for the web API.
      return { created: !replacing, src, dst };
    },
  };
}
export type DavService = ReturnType<typeof createDavService>;
