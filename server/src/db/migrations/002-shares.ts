import type { Kysely } from 'kysely';

/**
 * Share links (docs/api.md §14). `dev`/`ino` identify the target at creation (S40, S46) and `real_path`
 * is its real location then (S48: deleting a path removes the shares on it); both are text so
 * 64-bit inode numbers survive either engine. Times are Unix seconds.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('shares')
    .addColumn('hash', 'text', (c) => c.primaryKey())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('expire', 'bigint', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('dev', 'text', (c) => c.notNull())
    .addColumn('ino', 'text', (c) => c.notNull())
    .addColumn('real_path', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  // Paths can be longer than a PostgreSQL btree entry may be: they are not indexed.
  await db.schema.createIndex('shares_user').on('shares').column('user_id').execute();
  await db.schema.createIndex('shares_expire').on('shares').column('expire').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('shares').execute();
}
