import type { Kysely } from 'kysely';

/**
 * Shares imported from File Browser (`coffer import filebrowser`) keep their old download token: a
 * File Browser link `/api/public/dl/<hash>?token=<token>` opens the password-protected share
 * without the password, for as long as the share lives. Only the token's SHA-256 (hex) is kept;
 * "" for every share made by Coffer, whose tokens are not stored (S44).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('shares')
    .addColumn('legacy_token_sha256', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('shares').dropColumn('legacy_token_sha256').execute();
}
