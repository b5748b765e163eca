import type { Kysely } from 'kysely';

/**
 * Upload-only shares, "file requests" (docs/api.md §23). `kind` says what a link does: `normal`
 * (every share before, File Browser's) or `upload` (visitors add files to the shared folder and
 * see nothing of it). The limits are 0 when unset. `files_taken`/`bytes_taken` count the uploads
 * admitted so far, finished or running: raised by one conditional UPDATE when an upload is
 * created (so concurrent creations on several instances cannot pass a limit together) and
 * lowered again when an unfinished upload is dropped. An upload of a share names it in
 * `uploads.share_hash` (NULL for signed-in uploads).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('shares')
    .addColumn('kind', 'text', (c) => c.notNull().defaultTo('normal'))
    .execute();
  for (const [name, type] of [
    ['message', 'text'],
    ['max_file_size', 'bigint'],
    ['max_files', 'bigint'],
    ['max_bytes', 'bigint'],
    ['files_taken', 'bigint'],
    ['bytes_taken', 'bigint'],
  ] as const) {
    await db.schema
      .alterTable('shares')
      .addColumn(name, type, (c) => c.notNull().defaultTo(type === 'text' ? '' : 0))
      .execute();
  }
  await db.schema.alterTable('uploads').addColumn('share_hash', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('uploads').dropColumn('share_hash').execute();
  for (const name of ['kind', 'message', 'max_file_size', 'max_files', 'max_bytes', 'files_taken', 'bytes_taken']) {
    await db.schema.alterTable('shares').dropColumn(name).execute();
  }
}
