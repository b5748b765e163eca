import type { Kysely } from 'kysely';

/**
 * WebDAV's state (features/webdav, docs/api.md §21), in the database so that several instances
 * agree. `resource` is a file's or folder's place relative to the server root ("/alice/a.txt",
 * fs/service.ts `storageKey`), the same whoever's scope it is seen from.
 *
 * `dav_props`: dead properties set by PROPPATCH — namespace, local name, and the value as XML text.
 * `dav_locks`: write locks (RFC 4918 section 6-7) — the opaque token, depth (0 or infinity),
 * exclusive or shared, the owner's XML as sent, who took it, and when it expires (Unix ms).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('dav_props')
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('ns', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('dav_props_pk', ['resource', 'ns', 'name'])
    .execute();
  await db.schema
    .createTable('dav_locks')
    .addColumn('token', 'text', (c) => c.primaryKey())
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('depth', 'text', (c) => c.notNull())
    .addColumn('exclusive', 'integer', (c) => c.notNull())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('timeout_s', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('dav_locks_resource').on('dav_locks').column('resource').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('dav_locks').execute();
  await db.schema.dropTable('dav_props').execute();
}
