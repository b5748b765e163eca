/**
 * The SQL of WebDAV's state (migration 009): dead properties and locks, keyed by a resource's
 * place relative to the server root (fs/service.ts storageKey). A tree is the key and every key
 * below it, matched with substr so that `%` and `_` in names mean nothing (and the comparison is
 * by code point on SQLite and PostgreSQL alike).
 */
import { sql, type Kysely } from 'kysely';
import { inKeyedTransaction, type Db } from '../../db/index.js';
import type { Database } from '../../db/schema.js';

export interface DeadProp {
  ns: string;
  name: string;
  value: string;
}

export interface DavLock {
  token: string;
  resource: string;
  depth: '0' | 'infinity';
  exclusive: boolean;
  owner: string;
  userId: number;
  timeoutS: number;
  expiresAt: number;
}

/** The keys above `key`, outermost first ("/a/b" → "/", "/a"). */
export function ancestorsOf(key: string): string[] {
  if (key === '/') return [];
  const parts = key.split('/').slice(1, -1);
  const out = ['/'];
  for (let i = 0; i < parts.length; i++) out.push('/' + parts.slice(0, i + 1).join('/'));
  return out;
}

/** The advisory key that makes taking a lock one step on every instance (any constant). */
const LOCK_TAKING_KEY = 0x4461764c6f63; // "DavLoc"

/** Why a lock could not be taken: one that conflicts is held, or the user holds too many. */
export type TakeRefusal = 'locked' | 'too-many';

function underPrefix(key: string): string {
  return key === '/' ? '/' : key + '/';
}

export function createDavRepository(db: Db, now: () => number = Date.now) {
  const k: Kysely<Database> = db.kysely;

  /** Rows of `key` and below it. */
  const inTree = (key: string) => {
    const prefix = underPrefix(key);
    return sql<boolean>`(resource = ${key} OR substr(resource, 1, ${[...prefix].length}) = ${prefix})`;
  };

  function lockOf(r: Database['dav_locks']): DavLock {
    return {
      token: r.token,
      resource: r.resource,
      depth: r.depth === '0' ? '0' : 'infinity',
      exclusive: Number(r.exclusive) === 1,
      owner: r.owner,
      userId: Number(r.user_id),
      timeoutS: Number(r.timeout_s),
      expiresAt: Number(r.expires_at),
    };
  }

  /** Unexpired locks that cover `key` (its own, depth-infinity ones above) and, with `below`, those under it. */
  function lockQuery(q: Kysely<Database>, key: string, below: boolean, at: number) {
    const above = ancestorsOf(key);
    return q
      .selectFrom('dav_locks')
      .selectAll()
      .where('expires_at', '>', at)
      .where((eb) =>
        eb.or([
          eb('resource', '=', key),
          ...(above.length ? [eb.and([eb('resource', 'in', above), eb('depth', '=', 'infinity')])] : []),
          ...(below ? [inTree(key)] : []),
        ]),
      );
  }

  return {
    async props(key: string): Promise<DeadProp[]> {
      return k.selectFrom('dav_props').select(['ns', 'name', 'value']).where('resource', '=', key).orderBy('ns').orderBy('name').execute();
    },

    /**
     * The keys of the direct children of `key` that hold properties — the keys only, never the
     * values: a PROPFIND Depth 1 reads those a few entries at a time (propsOf, dead.ts).
     */
    async childrenWithProps(key: string): Promise<Set<string>> {
      const prefix = underPrefix(key);
      const len = [...prefix].length;
      const find = db.dialect === 'postgres' ? sql`strpos(substr(resource, ${len + 1}), '/')` : sql`instr(substr(resource, ${len + 1}), '/')`;
      const rows = await k
        .selectFrom('dav_props')
        .select('resource')
        .distinct()
        .where(sql<boolean>`(resource != ${key} AND substr(resource, 1, ${len}) = ${prefix} AND ${find} = 0)`)
        .execute();
      return new Set(rows.map((r) => r.resource));
    },

    /** The properties of each of `keys` (a few at a time: the caller bounds how many). */
    async propsOf(keys: readonly string[]): Promise<(DeadProp & { resource: string })[]> {
      if (keys.length === 0) return [];
      return k
        .selectFrom('dav_props')
        .select(['resource', 'ns', 'name', 'value'])
        .where('resource', 'in', keys)
        .orderBy('resource')
        .orderBy('ns')
        .orderBy('name')
        .execute();
    },

    /** How many dead properties a resource holds (PROPPATCH's bound). */
    async countProps(key: string): Promise<number> {
      const r = await k.selectFrom('dav_props').select((eb) => eb.fn.countAll<number>().as('n')).where('resource', '=', key).executeTakeFirstOrThrow();
      return Number(r.n);
    },

    /** PROPPATCH's changes, all or nothing. */
    async patchProps(key: string, changes: ({ op: 'set'; ns: string; name: string; value: string } | { op: 'remove'; ns: string; name: string })[]): Promise<void> {
      await k.transaction().execute(async (trx) => {
        for (const c of changes) {
          await trx.deleteFrom('dav_props').where('resource', '=', key).where('ns', '=', c.ns).where('name', '=', c.name).execute();
          if (c.op === 'set') await trx.insertInto('dav_props').values({ resource: key, ns: c.ns, name: c.name, value: c.value }).execute();
        }
      });
    },

    /** The properties of `from` and below go along to `to` (MOVE) or are copied there (COPY); what `to` had goes. */
    async carryProps(from: string, to: string, mode: 'move' | 'copy'): Promise<void> {
      await k.transaction().execute(async (trx) => {
        await trx.deleteFrom('dav_props').where(inTree(to)).execute();
        const rows = await trx.selectFrom('dav_props').selectAll().where(inTree(from)).execute();
        if (mode === 'move') await trx.deleteFrom('dav_props').where(inTree(from)).execute();
        for (const r of rows) {
          await trx.insertInto('dav_props').values({ ...r, resource: to === '/' ? r.resource : to + r.resource.slice(from.length) }).execute();
        }
      });
    },

    /** The properties of what is below `key` (not its own) go: a folder copied without its members. */
    async dropPropsBelow(key: string): Promise<void> {
      await k.deleteFrom('dav_props').where(inTree(key)).where('resource', '!=', key).execute();
    },

    /** The resources at `key` and below that hold properties or locks (expired ones too). */
    async keysIn(key: string): Promise<string[]> {
      const props = await k.selectFrom('dav_props').select('resource').distinct().where(inTree(key)).execute();
      const locks = await k.selectFrom('dav_locks').select('resource').distinct().where(inTree(key)).execute();
      return [...new Set([...props, ...locks].map((r) => r.resource))];
    },

    /** DELETE: the properties and locks of `key` and below go. */
    async dropTree(key: string): Promise<void> {
      await k.deleteFrom('dav_props').where(inTree(key)).execute();
      await k.deleteFrom('dav_locks').where(inTree(key)).execute();
    },

    /** Locks that cover `key`: its own and the depth-infinity locks of its ancestors, unexpired. */
    async locksCovering(key: string): Promise<DavLock[]> {
      return (await lockQuery(k, key, false, now()).execute()).map(lockOf);
    },

    /** Unexpired locks on `key` or below it. */
    async locksBelow(key: string): Promise<DavLock[]> {
      return (await k.selectFrom('dav_locks').selectAll().where('expires_at', '>', now()).where(inTree(key)).execute()).map(lockOf);
    },

    async lockByToken(token: string): Promise<DavLock | undefined> {
      const r = await k.selectFrom('dav_locks').selectAll().where('token', '=', token).where('expires_at', '>', now()).executeTakeFirst();
      return r && lockOf(r);
    },

    /**
     * Takes `l` unless a lock in the way is held (any, when `l` is exclusive; an exclusive one, when
     * shared) on its resource, above it, or below it for a depth-infinity lock, or unless its user
     * holds `maxPerUser`. The check and the insert are one step for every instance on the database
     * (db/index.ts inKeyedTransaction): of two requests at once, one gets the lock.
     */
    async takeLock(l: DavLock, maxPerUser: number): Promise<TakeRefusal | null> {
      return inKeyedTransaction(db, LOCK_TAKING_KEY, function* (t) {
        const at = now();
        yield t.deleteFrom('dav_locks').where('expires_at', '<=', at);
        const held = (yield lockQuery(t, l.resource, l.depth === 'infinity', at)) as Database['dav_locks'][];
        if (held.some((h) => l.exclusive || Number(h.exclusive) === 1)) return 'locked';
        const [mine] = (yield t
          .selectFrom('dav_locks')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('user_id', '=', l.userId)
          .where('expires_at', '>', at)) as { n: number }[];
        if (Number(mine?.n ?? 0) >= maxPerUser) return 'too-many';
        yield t
          .insertInto('dav_locks')
          .values({ token: l.token, resource: l.resource, depth: l.depth, exclusive: l.exclusive ? 1 : 0, owner: l.owner, user_id: l.userId, timeout_s: l.timeoutS, expires_at: l.expiresAt });
        return null;
      });
    },

    async refreshLock(token: string, timeoutS: number): Promise<void> {
      await k.updateTable('dav_locks').set({ timeout_s: timeoutS, expires_at: now() + timeoutS * 1000 }).where('token', '=', token).execute();
    },

    async deleteLock(token: string): Promise<void> {
      await k.deleteFrom('dav_locks').where('token', '=', token).execute();
    },

    /** MOVE: locks stay with the place they were taken on, so those of the moved tree end (RFC 4918 section 7.7). */
    async dropLocks(key: string): Promise<void> {
      await k.deleteFrom('dav_locks').where(inTree(key)).execute();
    },
    now,
  };
}
export type DavRepository = ReturnType<typeof createDavRepository>;
