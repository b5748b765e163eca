import type { Kysely } from 'kysely';

/**
 * Trashed items (docs/api.md §22). A row is written before its item moves and changes `state` as
 * it moves (moving → trashed → restoring or purging → row gone), so the reconciliation at start
 * can repair an interrupted step from what it finds on disk. `scope` is the scope root's path
 * below the server root ("/" or "/users/bob"): users with one scope share one trash. Times are
 * Unix milliseconds; `size` is -1 until measured.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('trash')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('is_dir', 'integer', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint', (c) => c.notNull())
    .addColumn('deleted_by', 'integer', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('trash_scope').on('trash').column('scope').execute();
  await db.schema.createIndex('trash_deleted_at').on('trash').column('deleted_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('trash').execute();
}
