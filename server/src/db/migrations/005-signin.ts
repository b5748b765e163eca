import { sql, type Kysely } from 'kysely';

/**
 * Sessions people can see and app passwords (docs/api.md §2.10, §2.11).
 *
 * `sessions` learns where a sign-in came from: `family` is the sign-in a token descends from
 * (a renewal keeps it, so the list shows one line per device), with its first time, the last
 * time it was used, the browser's User-Agent and the client address. Rows from before become
 * their own family.
 *
 * `app_passwords` holds passwords for WebDAV and scripts: only the SHA-256 of the random secret
 * is stored (it has 256 bits of entropy, so a slow hash adds nothing).
 */
export async function up(db: Kysely<unknown>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  // One column per statement: SQLite's ALTER TABLE adds one at a time.
  await db.schema.alterTable('sessions').addColumn('family', 'text').execute();
  await db.schema.alterTable('sessions').addColumn('created_at', 'bigint').execute();
  await db.schema.alterTable('sessions').addColumn('last_seen', 'bigint').execute();
  await db.schema.alterTable('sessions').addColumn('user_agent', 'text').execute();
  await db.schema.alterTable('sessions').addColumn('address', 'text').execute();
  // Sessions from before stand for themselves.
  await sql`UPDATE sessions SET family = jti, created_at = issued_at, last_seen = issued_at, user_agent = '', address = ''`.execute(db);
  await db.schema.createIndex('sessions_family').on('sessions').column('family').execute();
  await db.schema
    .createTable('app_passwords')
    .addColumn('id', dialect === 'postgres' ? 'serial' : 'integer', (c) =>
      dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .addColumn('read_only', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    /** 0 = never. */
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    /** 0 = never used. */
    .addColumn('last_used', 'bigint', (c) => c.notNull())
    .addColumn('last_address', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('app_passwords_user').on('app_passwords').column('user_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('app_passwords').execute();
  await db.schema.dropIndex('sessions_family').execute();
  for (const c of ['address', 'user_agent', 'last_seen', 'created_at', 'family']) {
    await db.schema.alterTable('sessions').dropColumn(c).execute();
  }
}
