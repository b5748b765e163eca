import type { Kysely } from 'kysely';

/**
 * Long work that runs as a job (features/jobs): who asked, what, how far it got and how it ended.
 * `inputs` and `result` are JSON text. `instance` names the process running it and `updated_at` is
 * its heartbeat: a running job whose heartbeat stopped (its process died) is marked failed by the
 * next start or sweep, never silently lost. `cancel_requested` reaches a job running in another
 * instance. Progress counts are bigint (bytes). Times are Unix milliseconds.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('inputs', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('progress_done', 'bigint', (c) => c.notNull())
    .addColumn('progress_total', 'bigint', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('result', 'text')
    .addColumn('instance', 'text', (c) => c.notNull())
    .addColumn('cancel_requested', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('finished_at', 'bigint')
    .execute();
  await db.schema.createIndex('jobs_user').on('jobs').columns(['user_id', 'created_at']).execute();
  await db.schema.createIndex('jobs_state').on('jobs').columns(['state', 'updated_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('jobs').execute();
}
