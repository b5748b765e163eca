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
  /** Bytes the scope and its trash may hold; 0 = no quota (migration 014). */
  quota: number;
  /** Unix seconds of the last change (drives X-Renew-Token, docs/api.md §2.3). */
  updated_at: number;
}

export interface SessionsTable {
  jti: string;
  user_id: number;
  issued_at: number;
  expires_at: number;
  /** Migration 005: the sign-in this token descends from (renewals keep it). */
  family: string;
  /** When the family signed in, and when any of its tokens was last used (Unix seconds). */
  created_at: number;
  last_seen: number;
  /** As sent at sign-in, at most 512 characters ('' when none). */
  user_agent: string;
  address: string;
  /** Migration 015: password | passkey | oidc | proxy | hook | noauth, '' before it (renewals keep it). */
  signed_in_with: Generated<string>;
}

/** Migration 015: a user's identity at an OpenID provider (docs/api.md §2.13). */
export interface OidcIdentitiesTable {
  issuer: string;
  subject: string;
  user_id: number;
  created_at: number;
}

/** Migration 005: passwords for WebDAV and scripts (docs/api.md §2.10). */
export interface PasskeysTable {
  id: Generated<number>;
  user_id: number;
  /** base64url, as the browser names the credential. */
  credential_id: string;
  /** COSE public key, base64url. */
  public_key: string;
  counter: number;
  /** The authenticator's transports, comma-separated. */
  transports: string;
  rp_id: string;
  name: string;
  created_at: number;
  /** Unix seconds; 0 = never used. */
  last_used: number;
}

export interface WebauthnChallengesTable {
  challenge: string;
  purpose: string;
  user_id: number;
  expires_at: number;
}

export interface AppPasswordsTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  /** SHA-256 (hex) of the secret; the secret itself is shown once and never stored. */
  secret_hash: string;
  read_only: number;
  created_at: number;
  /** Unix seconds; 0 = never. */
  expires_at: number;
  /** Unix seconds; 0 = never used. */
  last_used: number;
  last_address: string;
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
  /** SHA-256 (hex) of the download token a share imported from File Browser had; "" otherwise (migration 006). */
  legacy_token_sha256: Generated<string>;
  /** `normal` or `upload` (migration 011, docs/api.md §23). */
  kind: Generated<string>;
  /** Upload shares: the owner's message to uploaders; limits, 0 = none; uploads admitted so far. */
  message: Generated<string>;
  max_file_size: Generated<number>;
  max_files: Generated<number>;
  max_bytes: Generated<number>;
  files_taken: Generated<number>;
  bytes_taken: Generated<number>;
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
  /** The upload share a visitor's upload goes through (migration 011); NULL for signed-in uploads. */
  share_hash: string | null;
}

/** A job (migration 007, features/jobs). */
export interface JobsTable {
  /** Random 32 hex digits. */
  id: string;
  kind: string;
  user_id: number;
  /** JSON: what the job was asked to do (virtual paths in the user's scope, options). */
  inputs: string;
  /** queued | running | done | failed | cancelled */
  state: string;
  progress_done: number;
  progress_total: number;
  /** Why it failed, in words fit for the user (never a server path). */
  error: string | null;
  /** JSON: what it made (e.g. `{ "path": "/dest/" }`). */
  result: string | null;
  /** The process running it (JobService.instance). */
  instance: string;
  cancel_requested: number;
  /** Unix milliseconds; `updated_at` is the running process's heartbeat. */
  created_at: number;
  updated_at: number;
  finished_at: number | null;
}

/** Migration 008: a user's TOTP secret (docs/api.md §2.12). */
export interface TotpTable {
  user_id: number;
  /** Base32, as the authenticator app got it. */
  secret: string;
  /** 0 while enrolment waits for the first code. */
  confirmed: number;
  created_at: number;
  /** The last 30-second step whose code was accepted: that code and older ones are refused. */
  last_step: number;
}

/** Migration 008: unused recovery codes, SHA-256 (hex) of the normalised code. */
export interface RecoveryCodesTable {
  user_id: number;
  code_hash: string;
}

/** A WebDAV dead property (migration 009, features/webdav). */
export interface DavPropsTable {
  /** Place relative to the server root (fs/service.ts storageKey). */
  resource: string;
  ns: string;
  name: string;
  /** The property's content as XML text. */
  value: string;
}

/** A WebDAV write lock (migration 009, features/webdav). */
export interface DavLocksTable {
  token: string;
  resource: string;
  /** '0' | 'infinity' */
  depth: string;
  exclusive: number;
  /** The owner element's XML as the client sent it ('' when none). */
  owner: string;
  user_id: number;
  timeout_s: number;
  /** Unix milliseconds. */
  expires_at: number;
}

/** A trashed item (migration 010, docs/api.md §22). */
export interface TrashTable {
  /** Random 32 hex digits; also the item's name in the trash folder. */
  id: string;
  /** The scope root below the server root: "/" or "/users/bob". */
  scope: string;
  /** Canonical virtual path inside the scope it was deleted from. */
  path: string;
  is_dir: number;
  /** Bytes; -1 until measured. */
  size: number;
  /** Unix milliseconds. */
  deleted_at: number;
  /** Id of the user who deleted it (0: unknown). */
  deleted_by: number;
  state: 'moving' | 'trashed' | 'restoring' | 'purging';
  updated_at: number;
}

/** One entry of the file index (migration 013, features/index). */
export interface FileIndexTable {
  id: number;
  /** Id of the parent folder's row (0 for the root). */
  parent: number;
  /** Relative to the server root: "" for the root, "/a/b" below it. */
  path: string;
  name: string;
  is_dir: number;
  is_link: number;
  /** Bytes (lstat). */
  size: number;
  /** A folder's recursive size in bytes (a file's own size). */
  tree_size: number;
  /** Unix milliseconds. */
  mtime: number;
  inode: number;
}

export interface FileIndexStateTable {
  key: string;
  value: string;
}

/** Who maintains the file index (migration 016): one row, `name` 'maintainer'. */
export interface FileIndexLeaseTable {
  name: string;
  /** A random id of the holding process. */
  holder: string;
  /** Unix ms (the database's clock). */
  expires_at: number;
}

/** A change another process made, for the index's maintainer to apply (migration 016). */
export interface FileIndexChangesTable {
  id: Generated<number>;
  /** Relative to the server root as the index stores it ("" or "/a/b"). */
  path: string;
  deep: number;
}

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  oidc_identities: OidcIdentitiesTable;
  kv: KvTable;
  shares: SharesTable;
  uploads: UploadsTable;
  app_passwords: AppPasswordsTable;
  passkeys: PasskeysTable;
  webauthn_challenges: WebauthnChallengesTable;
  jobs: JobsTable;
  totp: TotpTable;
  recovery_codes: RecoveryCodesTable;
  dav_props: DavPropsTable;
  dav_locks: DavLocksTable;
  trash: TrashTable;
  file_index: FileIndexTable;
  file_index_state: FileIndexStateTable;
  file_index_lease: FileIndexLeaseTable;
  file_index_changes: FileIndexChangesTable;
}
