/**
 * The trash (docs/api.md §22): a delete moves the item into the trash area (fs/trash-area.ts) with
 * a record, per scope; restore, delete for good, empty, the retention sweep and the reconciliation
 * at start. Every door that deletes (the web API, WebDAV) calls `trash()` and deletes for good
 * only when it answers false (the trash is off).
 *
 * Crash safety: the record is written (state `moving`) before the rename and settled after it; a
 * restore or a purge marks it `restoring` / `purging` first. `reconcile()` finishes or undoes what
 * an interrupted step left, from what it finds on disk: nothing is lost, nothing listed twice.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Rule, TrashItem } from '@coffer/protocol';
import type { Db } from '../../db/index.js';
import type { UserRecord } from '../users/repository.js';
import type { UserRepository } from '../users/repository.js';
import { Conflict, Forbidden, NotFound } from '../../http/errors.js';
import { resolveInArea, scopeRoot, serverRootReal, type ScopedPath } from '../../fs/resolve.js';
import { hasRules, isDenied } from '../../fs/rules.js';
import type { TrashArea } from '../../fs/trash-area.js';
import { numberedName } from '../resources/service.js';
import { Locked } from '../webdav/locks.js';
import { createTrashRepository, type TrashRow } from './repository.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** A step younger than this may still be running in another instance: the reconciliation waits. */
export const UNSETTLED_GRACE_MS = 60_000;
/** The last instant a Date holds: a --trash-days beyond it expires then (toISOString throws past it). */
const LAST_DATE_MS = 8.64e15;

export interface TrashLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface TrashServiceDeps {
  db: Db;
  area: TrashArea;
  users: Pick<UserRepository, 'byId'>;
  serverRoot: string;
  /** docs/configuration.md `--trash-days`: 0 = no trash. */
  retentionDays: number;
  now?: () => number;
  log?: TrashLog;
  /** Drops the shares left on the real path of an item deleted for good (shares.removeGoneUnder). */
  dropShares?: (real: string) => Promise<unknown>;
  /**
   * A WebDAV lock covers the place a restore puts an item (the name, below it) or the folder `into`
   * that gains a member (its parent, or the nearest one that exists when folders are made again):
   * the web API sends no lock token, so the restore is refused (423).
   */
  locked?: (target: ScopedPath, into: ScopedPath) => Promise<boolean>;
  /** Tests stop a trash between its steps here, as a kill -9 would. */
  step?: (name: 'recorded' | 'moved') => Promise<void>;
}

/** The scope root's place below the server root: "/" or "/users/bob" (one trash per scope). */
async function scopeKey(serverRoot: string, root: string): Promise<string> {
  const rel = path.relative(await serverRootReal(serverRoot), root);
  return rel === '' ? '/' : '/' + rel.split(path.sep).join('/');
}

function isDirOf(p: ScopedPath): boolean {
  return !p.isSymlink && !!p.stat?.isDirectory();
}

export function createTrashService(deps: TrashServiceDeps) {
  const repo = createTrashRepository(deps.db);
  const { area } = deps;
  const now = deps.now ?? Date.now;
  const measuring = new Set<Promise<void>>();
  const log: TrashLog = deps.log ?? { warn: () => undefined, error: () => undefined };

  function measure(id: string): void {
    const job = area
      .size(id)
      .then((size) => repo.setSize(id, size))
      .catch((err: unknown) => log.warn({ err, id }, 'trash item could not be measured'))
      .finally(() => measuring.delete(job));
    measuring.add(job);
  }

  async function userScope(user: Pick<UserRecord, 'scope'>): Promise<string> {
    return scopeKey(deps.serverRoot, (await scopeRoot(deps.serverRoot, user.scope)).root);
  }

  /** The item, if this user may act on it; any other case is 404 (another scope's ids are not told apart). */
  async function find(user: UserRecord, id: string, globalRules: readonly Rule[]): Promise<TrashRow> {
    const row = await repo.get(id);
    if (!row || row.state !== 'trashed') throw new NotFound();
    if (!user.perm.admin) {
      if (row.scope !== (await userScope(user))) throw new NotFound();
      if (isDenied(user, row.path, globalRules)) throw new NotFound();
    }
    return row;
  }

  /** The shares of a purged item go with it (a scope folder gone meanwhile took them along). */
  async function dropShares(row: TrashRow): Promise<void> {
    if (!deps.dropShares) return;
    const root = await scopeRoot(deps.serverRoot, row.scope).catch(() => undefined);
    if (root) await deps.dropShares(path.join(root.root, row.path));
  }

  /**
   * S7 as for a move or delete: a non-admin may not restore or purge a folder (trashed by someone
   * else in the scope) holding entries their rules deny — a restore under another name would put
   * them out of the rules' reach, a purge would delete what they may not delete.
   */
  async function refuseDenied(user: UserRecord, row: TrashRow, globalRules: readonly Rule[]): Promise<void> {
    if (user.perm.admin || (!hasRules(user, globalRules) && !user.hideDotfiles)) return;
    if (await area.some(row.id, (rel) => isDenied(user, path.posix.join(row.path, rel), globalRules))) {
      throw new Forbidden('the folder holds entries your rules deny');
    }
  }

  async function purge(row: TrashRow): Promise<void> {
    if (!(await repo.setState(row.id, 'trashed', 'purging', now()))) throw new NotFound();
    await area.remove(row.id);
    await repo.remove(row.id);
    await dropShares(row);
  }

  async function present(rows: TrashRow[]): Promise<TrashItem[]> {
    const names = new Map<number, string>();
    for (const id of new Set(rows.map((r) => r.deleted_by))) names.set(id, (await deps.users.byId(id))?.username ?? '');
    return rows.map((r) => ({
      id: r.id,
      name: path.posix.basename(r.path),
      path: r.path,
      scope: r.scope,
      isDir: r.is_dir === 1,
      size: r.size,
      deletedAt: new Date(r.deleted_at).toISOString(),
      deletedBy: names.get(r.deleted_by) ?? '',
      expiresAt: new Date(Math.min(r.deleted_at + deps.retentionDays * DAY_MS, LAST_DATE_MS)).toISOString(),
    }));
  }

  async function visibleRows(user: UserRecord, all: boolean, globalRules: readonly Rule[]): Promise<TrashRow[]> {
    if (all) {
      if (!user.perm.admin) throw new Forbidden('only an admin sees every trash');
      return repo.list();
    }
    const rows = await repo.list(await userScope(user));
    return rows.filter((r) => !isDenied(user, r.path, globalRules));
  }

  return {
    retentionDays: deps.retentionDays,
    /** The trash is on (retention > 0). */
    get enabled(): boolean {
      return deps.retentionDays > 0;
    },

    /**
     * Moves a resolved item to the trash (the caller checked the delete permission and that it is
     * not the scope root). False when the trash is off: the caller deletes for good.
     */
    async trash(user: UserRecord, p: ScopedPath, globalRules: readonly Rule[]): Promise<boolean> {
      if (deps.retentionDays <= 0) return false;
      const id = randomBytes(16).toString('hex');
      const isDir = isDirOf(p);
      const at = now();
      await repo.insert({
        id,
        scope: await scopeKey(deps.serverRoot, p.root),
        path: p.virtual,
        is_dir: isDir ? 1 : 0,
        size: isDir ? -1 : p.isSymlink ? 0 : (p.stat?.size ?? 0),
        deleted_at: at,
        deleted_by: user.id,
        state: 'moving',
        updated_at: at,
      });
      await deps.step?.('recorded');
      try {
        await area.moveIn(id, p, { user, globalRules });
      } catch (err) {
        // A folder moved piece by piece may be partly in the trash: kept then, as it is.
        if (await area.exists(id).catch(() => true)) await repo.setState(id, 'moving', 'trashed', now());
        else await repo.remove(id);
        throw err;
      }
      await deps.step?.('moved');
      await repo.setState(id, 'moving', 'trashed', now());
      if (isDir) measure(id);
      return true;
    },

    /** GET /api/trash: the caller's scope (`all`: every scope, admins only). */
    async list(user: UserRecord, opts: { all: boolean; globalRules: readonly Rule[] }): Promise<TrashItem[]> {
      return present(await visibleRows(user, opts.all, opts.globalRules));
    },

    /** Puts the item back where it was; a taken name gets name(N).ext, or 409 with `conflict: 'fail'`. */
    async restore(user: UserRecord, id: string, opts: { conflict: 'rename' | 'fail'; globalRules: readonly Rule[] }): Promise<string> {
      const row = await find(user, id, opts.globalRules);
      await refuseDenied(user, row, opts.globalRules);
      // The record's path is resolved again in its scope: a folder on the way that became a link
      // leading out is refused (403) like any request path.
      const root = await scopeRoot(deps.serverRoot, row.scope);
      const parent = path.posix.dirname(row.path);
      const name = path.posix.basename(row.path);
      const at = (n: number) => path.posix.join(parent, n === 0 ? name : numberedName(name, n));
      let target: ScopedPath | undefined;
      for (let n = 0; n <= 10_000 && !target; n++) {
        const virtual = at(n);
        if (n > 0 && !user.perm.admin && isDenied(user, virtual, opts.globalRules)) continue;
        const p = await resolveInArea(root, { path: virtual, trailingSlash: false }, { forWrite: true });
        if (!p.exists && !p.isSymlink) target = p;
        else if (opts.conflict === 'fail') throw new Conflict('the name is taken');
      }
      if (!target) throw new Conflict('no free name');
      if (deps.locked) {
        let into = await resolveInArea(root, { path: path.posix.dirname(target.virtual), trailingSlash: false }, { forWrite: true });
        while (!into.exists && into.virtual !== '/') {
          into = await resolveInArea(root, { path: path.posix.dirname(into.virtual), trailingSlash: false }, { forWrite: true });
        }
        if (await deps.locked(target, into)) throw new Locked();
      }
      if (!(await repo.setState(id, 'trashed', 'restoring', now()))) throw new NotFound();
      try {
        await area.moveOut(id, target);
      } catch (err) {
        await repo.setState(id, 'restoring', 'trashed', now());
        throw err;
      }
      await repo.remove(id);
      return target.virtual;
    },

    /** Deletes one item for good. */
    async purge(user: UserRecord, id: string, globalRules: readonly Rule[]): Promise<void> {
      const row = await find(user, id, globalRules);
      await refuseDenied(user, row, globalRules);
      await purge(row);
    },

    /** Deletes for good every item the caller sees (`all`: every scope, admins only). */
    async empty(user: UserRecord, opts: { all: boolean; globalRules: readonly Rule[] }): Promise<number> {
      let removed = 0;
      for (const row of await visibleRows(user, opts.all, opts.globalRules)) {
        try {
          await refuseDenied(user, row, opts.globalRules);
          await purge(row);
          removed++;
        } catch (err) {
          if (!(err instanceof NotFound) && !(err instanceof Forbidden)) throw err;
        }
      }
      return removed;
    },

    /** The item is on the trash folder's filesystem (trashing it is a rename). */
    sameDevice: (p: ScopedPath) => area.sameDevice(p),

    /** Bytes in the trash of the user's scope (the usage bar). */
    async bytes(user: Pick<UserRecord, 'scope'>): Promise<number> {
      return repo.bytes(await userScope(user));
    },

    /** Removes the items older than the retention (all of them when the trash is off). */
    async sweep(): Promise<number> {
      const before = now() - Math.max(0, deps.retentionDays) * DAY_MS;
      let removed = 0;
      for (const row of await repo.expired(before)) {
        try {
          await purge(row);
          removed++;
        } catch (err) {
          if (!(err instanceof NotFound)) log.error({ err, id: row.id }, 'expired trash item could not be removed');
        }
      }
      return removed;
    },

    /**
     * Repairs what interrupted steps left (at start and with each sweep): a `moving` record whose
     * item reached the trash is settled, one whose item never left is dropped; `restoring` the same
     * way; `purging` is finished. An item on disk without any record is adopted into the server
     * root's trash under its id, for an admin to restore or remove. Unmeasured folders are measured.
     */
    async reconcile(): Promise<{ settled: number; dropped: number; adopted: number }> {
      const out = { settled: 0, dropped: 0, adopted: 0 };
      for (const row of await repo.unsettled(now() - UNSETTLED_GRACE_MS)) {
        if (row.state === 'purging') {
          await area.remove(row.id);
          await repo.remove(row.id);
          out.dropped++;
        } else if (await area.exists(row.id)) {
          await repo.setState(row.id, row.state, 'trashed', now());
          out.settled++;
        } else {
          // `moving`: the rename never happened (the item is in place); `restoring`: it did.
          await area.remove(row.id); // a half-made copy from another filesystem
          await repo.remove(row.id);
          out.dropped++;
        }
      }
      const known = await repo.ids();
      for (const id of await area.list()) {
        if (known.has(id)) continue;
        const at = now();
        const size = await area.size(id).catch(() => -1);
        await repo.insert({ id, scope: '/', path: `/${id}`, is_dir: 0, size, deleted_at: at, deleted_by: 0, state: 'trashed', updated_at: at });
        log.warn({ id }, 'trash item without a record adopted into the root scope');
        out.adopted++;
      }
      for (const row of await repo.unmeasured()) measure(row.id);
      return out;
    },

    /** Waits for the background measurements (tests, shutdown). */
    async settle(): Promise<void> {
      while (measuring.size > 0) await Promise.all([...measuring]);
    },
  };
}

export type TrashService = ReturnType<typeof createTrashService>;
