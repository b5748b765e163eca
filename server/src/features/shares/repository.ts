/** Kysely queries on `shares` — the only SQL about shares. */
import type { Selectable } from 'kysely';
import type { Db } from '../../db/index.js';
import type { SharesTable } from '../../db/schema.js';

/** A share as the server works with it. Never leaves the server as is: see present.ts. */
export interface ShareRecord {
  hash: string;
  /** Canonical path relative to the owner's scope; a trailing "/" sent at creation is kept. */
  path: string;
  userId: number;
  /** Unix seconds; 0 = permanent. */
  expire: number;
  /** "" when the share has no password. */
  passwordHash: string;
  /** Identity of the target at creation; "" when unknown (imported links). */
  dev: string;
  ino: string;
  /** Real location of the target at creation. */
  realPath: string;
  createdAt: number;
}

function fromRow(r: Selectable<SharesTable>): ShareRecord {
  return {
    hash: r.hash,
    path: r.path,
    userId: Number(r.user_id),
    expire: Number(r.expire),
    passwordHash: r.password_hash,
    dev: r.dev,
    ino: r.ino,
    realPath: r.real_path,
    createdAt: Number(r.created_at),
  };
}

/** api.md §16.0: by owner, then permanent links first, then soonest expiry; hash keeps it stable. */
function sorted(rows: Selectable<SharesTable>[]): ShareRecord[] {
  return rows
    .map(fromRow)
    .sort((a, b) => a.userId - b.userId || a.expire - b.expire || (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
}

export function createShareRepository(db: Db) {
  const k = db.kysely;
  /** Rows not expired at `now` (0 = permanent). */
  const live = (now: number) =>
    k.selectFrom('shares').selectAll().where((eb) => eb.or([eb('expire', '=', 0), eb('expire', '>', now)]));
  return {
    async insert(s: ShareRecord): Promise<void> {
      await k
        .insertInto('shares')
        .values({
          hash: s.hash,
          path: s.path,
          user_id: s.userId,
          expire: s.expire,
          password_hash: s.passwordHash,
          dev: s.dev,
          ino: s.ino,
          real_path: s.realPath,
          created_at: s.createdAt,
        })
        .execute();
    },
    async byHash(hash: string): Promise<ShareRecord | undefined> {
      const r = await k.selectFrom('shares').selectAll().where('hash', '=', hash).executeTakeFirst();
      return r && fromRow(r);
    },
    async listLive(now: number): Promise<ShareRecord[]> {
      return sorted(await live(now).execute());
    },
    async listLiveByUser(userId: number, now: number): Promise<ShareRecord[]> {
      return sorted(await live(now).where('user_id', '=', userId).execute());
    },
    async listLiveByUserPath(userId: number, path: string, now: number): Promise<ShareRecord[]> {
      return sorted(await live(now).where('user_id', '=', userId).where('path', '=', path).execute());
    },
    /** A user's shares plus every share whose real location is `real` or below it. */
    async candidatesUnder(userId: number, real: string): Promise<ShareRecord[]> {
      const prefix = real.endsWith('/') ? real : real + '/';
      // Both engines count characters (code points) in substr, not UTF-16 units.
      const chars = [...prefix].length;
      const rows = await k
        .selectFrom('shares')
        .selectAll()
        .where((eb) =>
          eb.or([
            eb('user_id', '=', userId),
            eb('real_path', '=', real),
            // substr(…, 1, n) exists in both engines; LIKE would need escaping of % and _.
            eb(eb.fn('substr', ['real_path', eb.val(1), eb.val(chars)]), '=', prefix),
          ]),
        )
        .execute();
      return rows.map(fromRow);
    },
    /** Moves the shares of one target identity at `realPath` to the target's new identity. */
    async retarget(realPath: string, from: { dev: string; ino: string }, to: { dev: string; ino: string }): Promise<number> {
      const r = await k
        .updateTable('shares')
        .set({ dev: to.dev, ino: to.ino })
        .where('real_path', '=', realPath)
        .where('dev', '=', from.dev)
        .where('ino', '=', from.ino)
        .executeTakeFirst();
      return Number(r.numUpdatedRows);
    },
    async delete(hash: string): Promise<boolean> {
      const r = await k.deleteFrom('shares').where('hash', '=', hash).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
    async deleteMany(hashes: string[]): Promise<number> {
      let n = 0;
      // Bounded parameter lists (SQLite allows 32766 at most).
      for (let i = 0; i < hashes.length; i += 500) {
        const r = await k.deleteFrom('shares').where('hash', 'in', hashes.slice(i, i + 500)).executeTakeFirst();
        n += Number(r.numDeletedRows);
      }
      return n;
    },
    /** Deletes the shares expired at `now`; returns how many. */
    async deleteExpired(now: number): Promise<number> {
      const r = await k.deleteFrom('shares').where('expire', '!=', 0).where('expire', '<=', now).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
    /** Deletes the shares whose owner no longer exists. */
    async deleteOrphans(): Promise<number> {
      const r = await k
        .deleteFrom('shares')
        .where('user_id', 'not in', (eb) => eb.selectFrom('users').select('id'))
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
export type ShareRepository = ReturnType<typeof createShareRepository>;
