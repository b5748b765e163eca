/** Kysely queries on `uploads` — the only SQL about tus uploads. */
import { createHash } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import type { Db } from '../../db/index.js';
import type { UploadsTable } from '../../db/schema.js';

export interface UploadRecord {
  id: string;
  /** Real path the finished file goes to. */
  target: string;
  virtualPath: string;
  userId: number;
  sessionJti: string;
  length: number;
  /** The recorded offset: bytes known to be synced in the staging file (README.md). */
  offset: number;
  override: boolean;
  createdAt: number;
  updatedAt: number;
  /** Kernel whose unsynced bytes past `offset` may be trusted (StagingArea.writerId); null: none. */
  writer: string | null;
  /** The upload share a visitor's upload goes through (docs/api.md §23.3); null for signed-in uploads. */
  shareHash: string | null;
}

export function targetKey(realPath: string): string {
  return createHash('sha256').update(realPath).digest('hex');
}

function fromRow(r: Selectable<UploadsTable>): UploadRecord {
  return {
    id: r.id,
    target: r.target,
    virtualPath: r.virtual_path,
    userId: Number(r.user_id),
    sessionJti: r.session_jti,
    length: Number(r.length),
    offset: Number(r.upload_offset),
    override: Boolean(r.override),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    writer: r.writer,
    shareHash: r.share_hash ?? null,
  };
}

/** SQLite and PostgreSQL spellings of a unique-constraint violation. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * Since when an unfinished upload counts (promisedUnder): one that has received bytes if touched
 * since `sending`, one made with headers alone if made since `empty` (Unix ms each).
 */
export interface Since {
  sending: number;
  empty: number;
}

export function createUploadRepository(db: Db) {
  const k = db.kysely;
  /** The unfinished uploads into `root` or below it (promisedUnder). */
  function unfinishedUnder(root: string, since: Since, except?: string, olderThan?: Pick<UploadRecord, 'createdAt' | 'id'>) {
    const prefix = root.endsWith('/') ? root : `${root}/`;
    // The length is the database's own, in the unit its substr counts: characters on SQLite and
    // on a UTF8 PostgreSQL, bytes on a SQL_ASCII one (a cluster made under the C locale).
    let q = k
      .selectFrom('uploads')
      // One that has bytes: touched since `sending`; one without (headers alone): since `empty`.
      .where((eb) => eb.or([eb.and([eb('upload_offset', '>', 0), eb('updated_at', '>=', since.sending)]), eb('updated_at', '>=', Math.max(since.sending, since.empty))]))
      .where(sql<boolean>`substr(target, 1, length(cast(${prefix} as text))) = ${prefix}`);
    if (except !== undefined) q = q.where('id', '!=', except);
    if (olderThan) {
      const { createdAt, id } = olderThan;
      q = q.where((eb) => eb.or([eb('created_at', '<', createdAt), eb.and([eb('created_at', '=', createdAt), eb('id', '<', id)])]));
    }
    return q;
  }
  return {
    /** Inserts a new upload; a unique violation (another upload on the target) is rethrown as is. */
    async insert(u: UploadRecord): Promise<void> {
      await k
        .insertInto('uploads')
        .values({
          id: u.id,
          target_key: targetKey(u.target),
          target: u.target,
          virtual_path: u.virtualPath,
          user_id: u.userId,
          session_jti: u.sessionJti,
          length: u.length,
          upload_offset: u.offset,
          override: u.override ? 1 : 0,
          created_at: u.createdAt,
          updated_at: u.updatedAt,
          writer: u.writer,
          share_hash: u.shareHash,
        })
        .execute();
    },
    async byTarget(realPath: string): Promise<UploadRecord | undefined> {
      const r = await k.selectFrom('uploads').selectAll().where('target_key', '=', targetKey(realPath)).executeTakeFirst();
      return r && r.target === realPath ? fromRow(r) : undefined;
    },
    async byId(id: string): Promise<UploadRecord | undefined> {
      const r = await k.selectFrom('uploads').selectAll().where('id', '=', id).executeTakeFirst();
      return r ? fromRow(r) : undefined;
    },
    /**
     * Records that the bytes up to `offset` are durable, unless another kernel took the upload
     * over meanwhile (it may have cut the file back) or a larger offset is already recorded.
     */
    async promote(id: string, offset: number, writer: string, now: number): Promise<void> {
      await k
        .updateTable('uploads')
        .set({ upload_offset: offset, updated_at: now })
        .where('id', '=', id)
        .where('writer', '=', writer)
        .where('upload_offset', '<', offset)
        .execute();
    },
    /** Lowers the durable offset to `offset` when it is above (the file was cut back to it). */
    async lowerOffset(id: string, offset: number): Promise<void> {
      await k.updateTable('uploads').set({ upload_offset: offset }).where('id', '=', id).where('upload_offset', '>', offset).execute();
    },
    /**
     * Makes `writer` the upload's writer and returns the durable offset as of that moment (no
     * promotion by the previous writer lands after it); undefined when the row is gone.
     */
    async claim(id: string, writer: string | null, now: number): Promise<number | undefined> {
      const r = await k.updateTable('uploads').set({ writer, updated_at: now }).where('id', '=', id).returning('upload_offset').executeTakeFirst();
      return r ? Number(r.upload_offset) : undefined;
    },
    /** Withdraws the trust in `writer`'s unsynced bytes (their sync failed). */
    async distrust(id: string, writer: string): Promise<void> {
      await k.updateTable('uploads').set({ writer: null }).where('id', '=', id).where('writer', '=', writer).execute();
    },
    async touch(id: string, now: number): Promise<void> {
      await k.updateTable('uploads').set({ updated_at: now }).where('id', '=', id).execute();
    },
    /** Deletes the row; true when this call removed it. */
    async remove(id: string): Promise<boolean> {
      const r = await k.deleteFrom('uploads').where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
    /** Deletes the row only if it is still untouched since `before` (the expiry sweep). */
    async removeIfStale(id: string, before: number): Promise<boolean> {
      const r = await k.deleteFrom('uploads').where('id', '=', id).where('updated_at', '<', before).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
    async staleIds(before: number, limit = 500): Promise<string[]> {
      const rows = await k.selectFrom('uploads').select('id').where('updated_at', '<', before).limit(limit).execute();
      return rows.map((r) => r.id);
    },
    async allIds(): Promise<Set<string>> {
      const rows = await k.selectFrom('uploads').select('id').execute();
      return new Set(rows.map((r) => r.id));
    },
    /**
     * Bytes promised to unfinished uploads into the folder `root` (a real path) or below it: their
     * whole lengths (their bytes wait in the staging folder, outside every scope), those touched
     * since `since` only (older ones are idle or expired; Since), `except` left out; with `olderThan`, only the
     * uploads created before it (by creation time, then id: one order every instance agrees on).
     * Byte-exact prefix on any engine (no LIKE: SQLite's ignores case).
     */
    async promisedUnder(root: string, since: Since, except?: string, olderThan?: Pick<UploadRecord, 'createdAt' | 'id'>): Promise<number> {
      const r = await unfinishedUnder(root, since, except, olderThan)
        .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('length'), sql<number>`0`).as('n'))
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
    /** Of those (`promisedUnder`), the ones that replace a file (override): their targets and lengths. */
    async replacingUnder(root: string, since: Since, except?: string, olderThan?: Pick<UploadRecord, 'createdAt' | 'id'>): Promise<{ target: string; length: number }[]> {
      const rows = await unfinishedUnder(root, since, except, olderThan).where('override', '=', 1).select(['target', 'length']).execute();
      return rows.map((r) => ({ target: r.target, length: Number(r.length) }));
    },
    async count(): Promise<number> {
      const r = await k.selectFrom('uploads').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      return Number(r.n);
    },
  };
}
export type UploadRepository = ReturnType<typeof createUploadRepository>;
