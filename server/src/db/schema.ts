/** Table types for Kysely. Booleans are 0/1 integers and JSON is text, so both engines agree. */
import type { Generated } from 'kysely';

export interface UsersTable {
  id: Generated<number>;
  username: string;
  password_hash: string;
  scope: string;
  locale: string;
  lock_password: number;
  view_mode: string;
  single_click: number;
  redirect_after_copy_move: number;
  perm: string;
  commands: string;
  sorting: string;
  rules: string;
  hide_dotfiles: number;
  date_format: number;
  ace_editor_theme: string;
  /** Unix seconds of the last change (drives X-Renew-Token, api.md §1). */
  updated_at: number;
}

export interface SessionsTable {
  jti: string;
  user_id: number;
  issued_at: number;
  expires_at: number;
}

export interface KvTable {
  key: string;
  value: string;
}

export interface SharesTable {
  hash: string;
  /** Canonical path relative to the owner's scope; a trailing "/" sent at creation is kept. */
  path: string;
  user_id: number;
  /** Unix seconds; 0 = permanent. */
  expire: number;
  /** argon2id (or imported bcrypt) hash; "" = no password. */
  password_hash: string;
  /** Identity of the target at creation (S40, S46); "" for imported links. */
  dev: string;
  ino: string;
  /** Real location of the target at creation (S48). */
  real_path: string;
  created_at: number;
}

/** An unfinished tus upload (migrations 003, 004). */
export interface UploadsTable {
  /** Random 32 hex digits; also the staging file's name. */
  id: string;
  /** sha256 (hex) of `target`: unique, one upload per path (S53). */
  target_key: string;
  /** Real path the finished file goes to. */
  target: string;
  /** Canonical virtual path in the uploader's scope at creation. */
  virtual_path: string;
  user_id: number;
  /** Session that created it: its token may finish the upload after it expired. */
  session_jti: string;
  length: number;
  /** Bytes known to be on stable storage (fdatasync'd before this was written). */
  upload_offset: number;
  override: number;
  /** Unix milliseconds. */
  created_at: number;
  updated_at: number;
  /** Kernel that may hold written-but-unsynced bytes past `upload_offset` (StagingArea.writerId); NULL: none trusted. */
  writer: string | null;
}

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  kv: KvTable;
  shares: SharesTable;
  uploads: UploadsTable;
}
