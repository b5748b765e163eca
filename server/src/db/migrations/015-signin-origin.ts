import type { Kysely } from 'kysely';

/**
 * How a session signed in, and who a user is at an OpenID provider (docs/api.md §2.11, §2.13).
 *
 * `sessions.signed_in_with`: `password`, `passkey`, `oidc`, `proxy`, `hook` or `noauth`, kept by
 * renewals. Changes to a user's sign-in (app passwords, second factors, the password) are confirmed
 * according to it (docs/oidc.md "Confirming changes"). Sessions from before are '' (unknown).
 *
 * `oidc_identities`: the provider's `sub` for an issuer, stored at the first sign-in; later
 * sign-ins find the user by it, not by name. One user per (issuer, subject).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('signed_in_with', 'text', (c) => c.notNull().defaultTo('')).execute();
  await db.schema
    .createTable('oidc_identities')
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('oidc_identities_pk', ['issuer', 'subject'])
    .execute();
  await db.schema.createIndex('oidc_identities_user').on('oidc_identities').column('user_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('oidc_identities').execute();
  await db.schema.alterTable('sessions').dropColumn('signed_in_with').execute();
}
