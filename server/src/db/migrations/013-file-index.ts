import { sql, type Kysely } from 'kysely';

/**
 * The file index (features/index, docs/api.md §24): one row per entry below the server root —
 * `path` relative to the root ("" for the root itself, "/a/b" below it), its parent's id, name,
 * type, size, modification time (Unix ms) and inode; `tree_size` is a folder's recursive size
 * (a file's own size). `file_index_state` holds the build's progress (one row per key).
 *
 * The name search structure: SQLite's FTS5 trigram table over `name` (external content, kept by
 * triggers); PostgreSQL's pg_trgm GIN index over lower(name). pg_trgm ships with Debian's
 * postgresql package (postgresql-contrib) and is a trusted extension (PostgreSQL 13+), so a
 * database owner may create it; where it cannot be created the index works without it (scans).
 */
export async function up(db: Kysely<unknown>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  await db.schema
    .createTable('file_index')
    .addColumn('id', 'bigint', (c) => c.primaryKey())
    .addColumn('parent', 'bigint', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('is_dir', 'integer', (c) => c.notNull())
    .addColumn('is_link', 'integer', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('tree_size', 'bigint', (c) => c.notNull())
    .addColumn('mtime', 'bigint', (c) => c.notNull())
    .addColumn('inode', 'bigint', (c) => c.notNull())
    .execute();
  if (dialect === 'postgres') {
    // Byte order, whatever the database's locale: the prefix ranges of scopes rely on it.
    await sql`CREATE UNIQUE INDEX file_index_path ON file_index (path COLLATE "C")`.execute(db);
  } else {
    await db.schema.createIndex('file_index_path').on('file_index').column('path').unique().execute();
  }
  await db.schema.createIndex('file_index_parent').on('file_index').column('parent').execute();
  await db.schema
    .createTable('file_index_state')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
  if (dialect === 'postgres') {
    await sql`DO $$ BEGIN
      CREATE EXTENSION IF NOT EXISTS pg_trgm;
    EXCEPTION WHEN others THEN
      RAISE NOTICE 'pg_trgm unavailable: the file index searches names without it';
    END $$`.execute(db);
    await sql`DO $$ BEGIN
      IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
        CREATE INDEX file_index_name_trgm ON file_index USING gin (lower(name) gin_trgm_ops);
      END IF;
    END $$`.execute(db);
    return;
  }
  await sql`CREATE VIRTUAL TABLE file_index_names USING fts5(name, content='file_index', content_rowid='id', tokenize='trigram')`.execute(db);
  await sql`CREATE TRIGGER file_index_ai AFTER INSERT ON file_index BEGIN
    INSERT INTO file_index_names(rowid, name) VALUES (new.id, new.name);
  END`.execute(db);
  await sql`CREATE TRIGGER file_index_ad AFTER DELETE ON file_index BEGIN
    INSERT INTO file_index_names(file_index_names, rowid, name) VALUES ('delete', old.id, old.name);
  END`.execute(db);
  await sql`CREATE TRIGGER file_index_au AFTER UPDATE OF name ON file_index BEGIN
    INSERT INTO file_index_names(file_index_names, rowid, name) VALUES ('delete', old.id, old.name);
    INSERT INTO file_index_names(rowid, name) VALUES (new.id, new.name);
  END`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS file_index_names`.execute(db);
  await db.schema.dropTable('file_index_state').execute();
  await db.schema.dropTable('file_index').execute();
}
