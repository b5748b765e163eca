import type { Kysely } from 'kysely';

/**
 * Unfinished tus uploads (docs/api.md §13: state in the database, so an upload survives a restart and
 * works behind several instances). `target_key` is the sha256 of the real target path: its
 * unique index is "one upload per path" (S53) across instances (paths themselves can be longer
 * than a PostgreSQL btree entry). Times are Unix milliseconds; `id` names the staging file.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('uploads')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('target_key', 'text', (c) => c.notNull().unique())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('virtual_path', 'text', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('session_jti', 'text', (c) => c.notNull())
    .addColumn('length', 'bigint', (c) => c.notNull())
    .addColumn('upload_offset', 'bigint', (c) => c.notNull())
    .addColumn('override', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('uploads_updated').on('uploads').column('updated_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('uploads').execute();
}
