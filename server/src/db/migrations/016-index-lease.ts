import type { Kysely } from 'kysely';

/**
 * Several processes on one database share one file index (features/index, docs/deployment.md
 * "Several instances"): `file_index_lease` names the one process that maintains it (builds,
 * watches, reconciles, applies changes) until `expires_at` (Unix ms, the database's clock);
 * `file_index_changes` carries the writes the other processes made (a path relative to the root
 * as the index stores it, and whether the whole subtree changed) to that process.
 */
export async function up(db: Kysely<unknown>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  await db.schema
    .createTable('file_index_lease')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('file_index_changes')
    .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (c) =>
      dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('deep', 'integer', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('file_index_changes').execute();
  await db.schema.dropTable('file_index_lease').execute();
}
