import type { Kysely } from 'kysely';

/**
 * tus chunks are answered before they are synced (bench/README.md "Uploads"): `upload_offset`
 * now counts only bytes known to be on stable storage, and `writer` names the kernel that may
 * hold written-but-unsynced bytes past it (`StagingArea.writerId`). Only that kernel trusts them;
 * anyone else cuts the staging file back to `upload_offset`. NULL: nobody (rows from before, or a
 * failed sync).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('uploads').addColumn('writer', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('uploads').dropColumn('writer').execute();
}
