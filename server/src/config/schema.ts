/**
 * Every server setting, declared once. The flag `--some-name`, the variable `COFFER_SOME_NAME`
 * and the config-file key `someName` (or `some-name`) all derive from `flag` (docs/configuration.md).
 */
export type OptionKind = 'string' | 'boolean' | 'number' | 'duration' | 'list' | 'url';

export interface OptionSpec<K extends keyof ServerConfig = keyof ServerConfig> {
  key: K;
  flag: string;
  short?: string;
  kind: OptionKind;
  default: ServerConfig[K];
  description: string;
  /** Persisted in the database as a server setting (docs/configuration.md, "Where server options come from"). */
  stored: boolean;
  /** Only read on first run (creates the first admin / auther). */
  firstRunOnly?: boolean;
}

export interface ServerConfig {
  root: string;
  database: string;
  address: string;
  port: number;
  baseURL: string;
  log: string;
  cacheDir: string;
  dataDir: string;
  /** Seconds without a PATCH after which an unfinished tus upload is removed (S52); 0 = never. */
  uploadExpiry: number;
  /** Days a deleted item stays in the trash before the sweeper removes it (docs/api.md §22); 0 = no trash, deletes are final. */
  trashDays: number;
  /** Largest upload in bytes (tus Upload-Length, plain POST body); 0 = unlimited. */
  maxUploadSize: number;
  cert: string;
  key: string;
  socket: string;
  socketPerm: string;
  /** Token lifetime in seconds (parsed from a Go-style duration). */
  tokenExpirationTime: number;
  disableExec: boolean;
  /** Seconds a command or hook may run before its process group is killed (0 = no limit). */
  commandTimeout: number;
  /** Bytes of output a command may send before it is killed (0 = no limit). */
  commandOutputLimit: number;
  /** Commands and hooks may use the network (default: a sandbox without network). */
  commandNetwork: boolean;
  /** Bytes of address space per process of a command or hook (0 = no limit). */
  commandMemoryLimit: number;
  /** Seconds of CPU time per process of a command or hook (0 = no limit). */
  commandCpuLimit: number;
  /** Processes of one command or hook at once (0 = no limit; not applied when Coffer runs as root). */
  commandProcessLimit: number;
  /** bubblewrap, the sandbox of commands and hooks. */
  bwrapPath: string;
  /** Run commands and hooks without a sandbox (the operator's explicit choice when none can be set up). */
  unsafeUnconfinedExec: boolean;
  /** ffmpeg for video thumbnails and posters: a path, or a name looked up on PATH; "" = none. */
  ffmpegPath: string;
  disableThumbnails: boolean;
  disablePreviewResize: boolean;
  disableTypeDetectionByHeader: boolean;
  disableImageResolutionCalc: boolean;
  imgProcessors: number;
  noauth: boolean;
  username: string;
  password: string;
  trustedProxies: string[];
  metricsToken: string;
  rateLimit: string;
  /** Redis shared by several instances (throttles, rate limits, upload locks, invalidation); '' = none. */
  redisUrl: string;
  /** Archive downloads one user (public links: one client address) may run at once; 0 = no limit. */
  archiveDownloadsPerUser: number;
  /** Archive downloads the server runs at once; 0 = no limit. */
  archiveDownloads: number;
  /** Jobs (extract, compress) one user may have queued or running at once, in all instances; 0 = no limit. */
  jobsPerUser: number;
  /** Jobs one instance runs at once; more wait queued. 0 = no limit. */
  jobs: number;
  /** Bytes an extracted archive may unpack to in all. */
  extractMaxSize: number;
  /** Entries an extracted archive may hold. */
  extractMaxEntries: number;
  /** Largest uncompressed ÷ compressed ratio of an extracted archive (archive bombs). */
  extractMaxRatio: number;
  shutdownTimeout: number;
  /** Request processes sharing the port (server/src/cluster/): a count, or "auto" = one per core. */
  workers: string;
  /** The project's home page, linked from the client's sidebar; "" = no link. */
  projectURL: string;
  /** Where users report problems (the client's "Report issue" on error toasts); "" = no button. */
  issuesURL: string;
  /** No OpenAPI document (/api/openapi.json) and no reference page (/api/docs). */
  disableApiDocs: boolean;
  /** No WebDAV at <base>/dav/ (issue 19; docs/webdav.md). */
  disableWebdav: boolean;
  /** No file index: search walks, listings carry no folder sizes (features/index). */
  disableIndex: boolean;
  /** Seconds between the file index's reconciliations with the disk (0 = at start and after watcher errors only). */
  indexReconcileInterval: number;
  /**
   * Seconds in which a WebDAV PUT body must bring, and a GET answer must be taken, at least
   * webdav/idle.ts's MIN_BYTES_PER_PERIOD, or the connection is closed (0 = never).
   */
  webdavIdleTimeout: number;
  /** Who must sign in with a second factor (docs/api.md §2.12): none, admins or all. */
  requireSecondFactor: string;
  /**
   * The address people open Coffer at, for passkeys (docs/api.md §2.13): its origin is the only
   * one accepted and its host name the RP ID; "" = each request's Host (X-Forwarded-* from a
   * trusted proxy).
   */
  passkeyOrigin: string;
}

export const DEFAULT_TOKEN_LIFETIME_S = 2 * 60 * 60; // docs/api.md §2.1: default 2h

export const OPTIONS: OptionSpec[] = [
  { key: 'root', flag: 'root', short: 'r', kind: 'string', default: '.', stored: true, description: 'root folder to serve; every scope lives inside it' },
  { key: 'database', flag: 'database', short: 'd', kind: 'string', default: './coffer.db', stored: false, description: 'SQLite file, or a postgres:// URL' },
  { key: 'address', flag: 'address', short: 'a', kind: 'string', default: '127.0.0.1', stored: true, description: 'address to listen on' },
  { key: 'port', flag: 'port', short: 'p', kind: 'number', default: 8080, stored: true, description: 'port to listen on (0 = any free port)' },
  { key: 'baseURL', flag: 'baseurl', short: 'b', kind: 'string', default: '', stored: true, description: 'URL prefix the server is mounted under, e.g. /coffer' },
  { key: 'log', flag: 'log', short: 'l', kind: 'string', default: 'stdout', stored: true, description: 'log destination: stdout, stderr, "" (discard) or a file path' },
  { key: 'cacheDir', flag: 'cache-dir', kind: 'string', default: '', stored: true, description: 'folder for the preview cache (no cache when empty)' },
  { key: 'dataDir', flag: 'data-dir', kind: 'string', default: '', stored: true, description: 'folder for upload staging; default: "<database folder>/coffer-data". Keep it on the same filesystem as the root' },
  { key: 'uploadExpiry', flag: 'upload-expiry', kind: 'duration', default: 24 * 60 * 60, stored: true, description: 'remove an unfinished upload after this long without new data (S52; 0 = never)' },
  { key: 'trashDays', flag: 'trash-days', kind: 'number', default: 30, stored: true, description: 'days a deleted file or folder stays in the trash, restorable (0 = no trash: deletes are final at once)' },
  { key: 'maxUploadSize', flag: 'max-upload-size', kind: 'number', default: 0, stored: true, description: 'largest upload in bytes (0 = unlimited); larger ones answer 413' },
  { key: 'cert', flag: 'cert', short: 't', kind: 'string', default: '', stored: true, description: 'TLS certificate file (TLS on when cert and key are set)' },
  { key: 'key', flag: 'key', short: 'k', kind: 'string', default: '', stored: true, description: 'TLS key file' },
  { key: 'socket', flag: 'socket', kind: 'string', default: '', stored: true, description: 'listen on this Unix socket instead of address/port' },
  { key: 'socketPerm', flag: 'socket-perm', kind: 'string', default: '0666', stored: true, description: 'Unix socket file mode' },
  { key: 'tokenExpirationTime', flag: 'token-expiration-time', kind: 'duration', default: DEFAULT_TOKEN_LIFETIME_S, stored: true, description: 'session token lifetime as a Go duration (2h, 30m, 90s)' },
  { key: 'disableExec', flag: 'disable-exec', kind: 'boolean', default: true, stored: true, description: 'command execution and event hooks off (default true; --disable-exec=false enables them)' },
  { key: 'commandTimeout', flag: 'command-timeout', kind: 'duration', default: 600, stored: true, description: 'time limit of a command or event hook; its process group is killed after it (0 = none)' },
  { key: 'commandOutputLimit', flag: 'command-output-limit', kind: 'number', default: 10 * 1024 * 1024, stored: true, description: 'bytes of output a command may send over the shell socket before it is killed (0 = none)' },
  { key: 'commandNetwork', flag: 'command-network', kind: 'boolean', default: false, stored: true, description: 'commands and hooks may use the network (default false: their sandbox has none)' },
  { key: 'commandMemoryLimit', flag: 'command-memory-limit', kind: 'number', default: 2 * 1024 * 1024 * 1024, stored: true, description: 'bytes of address space each process of a command or hook may use (0 = none)' },
  { key: 'commandCpuLimit', flag: 'command-cpu-limit', kind: 'duration', default: 300, stored: true, description: 'CPU time each process of a command or hook may use (0 = none)' },
  { key: 'commandProcessLimit', flag: 'command-process-limit', kind: 'number', default: 256, stored: true, description: 'processes one command or hook may run at once (0 = none; Linux does not apply it to root)' },
  { key: 'bwrapPath', flag: 'bwrap-path', kind: 'string', default: '/usr/bin/bwrap', stored: true, description: 'bubblewrap, the sandbox commands and hooks run in' },
  { key: 'ffmpegPath', flag: 'ffmpeg-path', kind: 'string', default: 'ffmpeg', stored: true, description: 'ffmpeg for video thumbnails and posters: a path or a name looked up on PATH ("" = no video thumbnails)' },
  { key: 'unsafeUnconfinedExec', flag: 'unsafe-unconfined-exec', kind: 'boolean', default: false, stored: false, description: 'UNSAFE: run commands and hooks without a sandbox, with every right of the server account (needed to start with execution on where bubblewrap cannot run)' },
  { key: 'disableThumbnails', flag: 'disable-thumbnails', kind: 'boolean', default: false, stored: true, description: 'no image thumbnails' },
  { key: 'disablePreviewResize', flag: 'disable-preview-resize', kind: 'boolean', default: false, stored: true, description: 'big previews serve the original image' },
  { key: 'disableTypeDetectionByHeader', flag: 'disable-type-detection-by-header', kind: 'boolean', default: false, stored: true, description: 'detect file types by extension only' },
  { key: 'disableImageResolutionCalc', flag: 'disable-image-resolution-calc', kind: 'boolean', default: false, stored: true, description: 'do not read image dimensions' },
  { key: 'imgProcessors', flag: 'img-processors', kind: 'number', default: 4, stored: true, description: 'parallel image resize workers (>= 1)' },
  { key: 'noauth', flag: 'noauth', kind: 'boolean', default: false, stored: false, firstRunOnly: true, description: 'first run only: no authentication (everyone is user 1)' },
  { key: 'username', flag: 'username', kind: 'string', default: 'admin', stored: false, firstRunOnly: true, description: 'first run only: name of the first admin (env COFFER_ADMIN_USERNAME too)' },
  { key: 'password', flag: 'password', kind: 'string', default: '', stored: false, firstRunOnly: true, description: 'first run only: password of the first admin (env COFFER_ADMIN_PASSWORD), or its bcrypt hash as File Browser takes it; random and printed once when empty' },
  { key: 'trustedProxies', flag: 'trusted-proxies', kind: 'list', default: [], stored: true, description: 'comma-separated addresses or CIDR ranges whose X-Forwarded-For and proxy-auth header are trusted' },
  { key: 'metricsToken', flag: 'metrics-token', kind: 'string', default: '', stored: false, description: 'bearer token for /metrics (loopback only without it)' },
  { key: 'redisUrl', flag: 'redis-url', kind: 'string', default: '', stored: false, description: 'redis:// or rediss:// address of a Redis that several instances share: login, signup, second-factor and share-password throttles, --rate-limit and upload locks count across instances, and changes reach every cache at once (empty: this instance alone)' },
  { key: 'rateLimit', flag: 'rate-limit', kind: 'string', default: '', stored: true, description: 'optional general limits, e.g. "anon=300/min,user=1200/min" (off when empty)' },
  // No public home or tracker of Coffer is known to this code: empty by default, and the client
  // then shows no link (docs/configuration.md "Server options").
  { key: 'projectURL', flag: 'project-url', kind: 'url', default: '', stored: true, description: 'http(s) address of the project\'s home page, linked from the sidebar (no link when empty, or when branding disables external links)' },
  { key: 'issuesURL', flag: 'issues-url', kind: 'url', default: '', stored: true, description: 'http(s) address where users report problems: the "Report issue" button of error messages (none when empty, or when branding disables external links)' },
  { key: 'archiveDownloadsPerUser', flag: 'archive-downloads-per-user', kind: 'number', default: 2, stored: true, description: 'archive downloads one user (on public links: one client address) may run at once; past it 429 (0 = no limit)' },
  { key: 'jobsPerUser', flag: 'jobs-per-user', kind: 'number', default: 2, stored: true, description: 'jobs (extract, compress) one user may have queued or running at once; past it 429 (0 = no limit)' },
  { key: 'extractMaxSize', flag: 'extract-max-size', kind: 'number', default: 10 * 1024 ** 3, stored: true, description: 'bytes an extracted archive may unpack to in all; past it the extraction fails and leaves nothing' },
  { key: 'extractMaxEntries', flag: 'extract-max-entries', kind: 'number', default: 100_000, stored: true, description: 'entries an extracted archive may hold' },
  { key: 'extractMaxRatio', flag: 'extract-max-ratio', kind: 'number', default: 1000, stored: true, description: 'largest compression ratio (uncompressed ÷ compressed) of an extracted archive, against archive bombs' },
  { key: 'jobs', flag: 'jobs', kind: 'number', default: 4, stored: true, description: 'jobs the server runs at once; more wait queued (0 = no limit)' },
  { key: 'archiveDownloads', flag: 'archive-downloads', kind: 'number', default: 8, stored: true, description: 'archive downloads the server runs at once; past it 429 (0 = no limit)' },
  { key: 'passkeyOrigin', flag: 'passkey-origin', kind: 'url', default: '', stored: true, description: 'http(s) address people open Coffer at, e.g. https://files.example.org: passkeys accept only its origin and are made for its host name (empty: the Host of each request; docs/api.md §2.13)' },
  { key: 'requireSecondFactor', flag: 'require-second-factor', kind: 'string', default: 'none', stored: true, description: 'who must sign in with a second factor: none, admins or all (docs/api.md §2.12)' },
  { key: 'disableWebdav', flag: 'disable-webdav', kind: 'boolean', default: false, stored: true, description: 'no WebDAV server at /dav/ (on by default; docs/webdav.md)' },
  { key: 'disableIndex', flag: 'disable-index', kind: 'boolean', default: false, stored: true, description: 'no file index: search walks the folders on every query and listings carry no folder sizes (docs/api.md §24)' },
  { key: 'indexReconcileInterval', flag: 'index-reconcile-interval', kind: 'duration', default: 3600, stored: true, description: 'how often the file index re-reads the folders whose modification time changed, catching what the watcher missed (0 = at start and after watcher errors only)' },
  { key: 'webdavIdleTimeout', flag: 'webdav-idle-timeout', kind: 'duration', default: 60, stored: true, description: 'a WebDAV upload or download that moves less than 16 KiB in this long is cut off: the upload leaves nothing, the file is closed (0 = never)' },
  { key: 'disableApiDocs', flag: 'disable-api-docs', kind: 'boolean', default: false, stored: false, description: 'no OpenAPI document at /api/openapi.json and no reference page at /api/docs' },
  { key: 'workers', flag: 'workers', kind: 'string', default: '1', stored: false, description: 'request processes sharing the port: a number (1-64) or "auto" (one per core)' },
  { key: 'shutdownTimeout', flag: 'shutdown-timeout', kind: 'duration', default: 10, stored: false, description: 'how long in-flight requests may run after SIGTERM/SIGINT' },
];

export function envName(flag: string): string {
  return 'COFFER_' + flag.replace(/-/g, '_').toUpperCase();
}

export function camel(flag: string): string {
  return flag.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
}
