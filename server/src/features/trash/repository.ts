/** Kysely queries on `trash` (migration 010) — the only SQL about trashed items. */
import type { Selectable } from 'kysely';
import type { Db } from '../../db/index.js';
import type { TrashTable } from '../../db/schema.js';

export type TrashRow = Selectable<TrashTable>;
export type TrashState = TrashRow['state'];

export function createTrashRepository(db: Db) {
  const k = db.kysely;
  return {
    async insert(row: TrashRow): Promise<void> {
      await k.insertInto('trash').values(row).execute();
    },
    async get(id: string): Promise<TrashRow | undefined> {
      return k.selectFrom('trash').selectAll().where('id', '=', id).executeTakeFirst();
    },
    /** Trashed items (not those in the middle of a step), newest first; of one scope or of all. */
    async list(scope?: string): Promise<TrashRow[]> {
      let q = k.selectFrom('trash').selectAll().where('state', '=', 'trashed');
      if (scope !== undefined) q = q.where('scope', '=', scope);
      return q.orderBy('deleted_at', 'desc').orderBy('id').execute();
    },
    /** Moves a row from one state to another; false when it was not in `from` (another request won). */
    async setState(id: string, from: TrashState, to: TrashState, now: number): Promise<boolean> {
      const r = await k.updateTable('trash').set({ state: to, updated_at: now }).where('id', '=', id).where('state', '=', from).executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
    async setSize(id: string, size: number): Promise<void> {
      await k.updateTable('trash').set({ size }).where('id', '=', id).execute();
    },
    async remove(id: string): Promise<void> {
      await k.deleteFrom('trash').where('id', '=', id).execute();
    },
    /** Rows left in a step (moving, restoring, purging) since before `before`. */
    async unsettled(before: number): Promise<TrashRow[]> {
      return k.selectFrom('trash').selectAll().where('state', '!=', 'trashed').where('updated_at', '<', before).execute();
    },
    async unmeasured(): Promise<TrashRow[]> {
      return k.selectFrom('trash').selectAll().where('state', '=', 'trashed').where('size', '<', 0).execute();
    },
    async expired(deletedBefore: number): Promise<TrashRow[]> {
      return k.selectFrom('trash').selectAll().where('state', '=', 'trashed').where('deleted_at', '<=', deletedBefore).execute();
    },
    async ids(): Promise<Set<string>> {
      return new Set((await k.selectFrom('trash').select('id').execute()).map((r) => r.id));
    },
    /** Bytes measured so far in one scope's trash. */
    async bytes(scope: string): Promise<number> {
      const r = await k
        .selectFrom('trash')
        .select((eb) => eb.fn.sum<number | string | null>('size').as('total'))
        .where('scope', '=', scope)
        .where('size', '>', 0)
        .executeTakeFirst();
      return Number(r?.total ?? 0);
    },
  };
}

export type TrashRepository = ReturnType<typeof createTrashRepository>;
