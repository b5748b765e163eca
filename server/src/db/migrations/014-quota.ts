import type { Kysely } from 'kysely';

/**
 * Per-user byte quotas (docs/api.md §3.1 `quota`, §11): the most bytes the user's scope and that
 * scope's trash may hold together; 0 = no quota. Users sharing a scope are each held to their own
 * quota over the same bytes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('quota', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('quota').execute();
}
