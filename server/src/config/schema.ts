/**
 * Every server setting, declared once. The flag `--some-name`, the variable `COFFER_SOME_NAME`
 * and the config-file key `someName` (or `some-name`) all derive from `flag` (api.md §6).
 */
export type OptionKind = 'string' | 'boolean' | 'number' | 'duration' | 'list';

export interface OptionSpec<K extends keyof ServerConfig = keyof ServerConfig> {
  key: K;
  flag: string;
  short?: string;
  kind: OptionKind;
  default: ServerConfig[K];
  description: string;
  /** Persisted in the database as a server setting (api.md §6: "also persisted"). */
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
  shutdownTimeout: number;
}

export const DEFAULT_TOKEN_LIFETIME_S = 2 * 60 * 60; // api.md §1: default 2h

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
  { key: 'maxUploadSize', flag: 'max-upload-size', kind: 'number', default: 0, stored: true, description: 'largest upload in bytes (0 = unlimited); larger ones answer 413' },
  { key: 'cert', flag: 'cert', short: 't', kind: 'string', default: '', stored: true, description: 'TLS certificate file (TLS on when cert and key are set)' },
  { key: 'key', flag: 'key', short: 'k', kind: 'string', default: '', stored: true, description: 'TLS key file' },
  { key: 'socket', flag: 'socket', kind: 'string', default: '', stored: true, description: 'listen on this Unix socket instead of address/port' },
  { key: 'socketPerm', flag: 'socket-perm', kind: 'string', default: '0666', stored: true, description: 'Unix socket file mode' },
  { key: 'tokenExpirationTime', flag: 'token-expiration-time', kind: 'duration', default: DEFAULT_TOKEN_LIFETIME_S, stored: true, description: 'session token lifetime as a Go duration (2h, 30m, 90s)' },
  { key: 'disableExec', flag: 'disable-exec', kind: 'boolean', default: true, stored: true, description: 'command execution and event hooks off (default true; --disable-exec=false enables them)' },
  { key: 'commandTimeout', flag: 'command-timeout', kind: 'duration', default: 600, stored: true, description: 'time limit of a command or event hook; its process group is killed after it (0 = none)' },
  { key: 'commandOutputLimit', flag: 'command-output-limit', kind: 'number', default: 10 * 1024 * 1024, stored: true, description: 'bytes of output a command may send over the shell socket before it is killed (0 = none)' },
  { key: 'disableThumbnails', flag: 'disable-thumbnails', kind: 'boolean', default: false, stored: true, description: 'no image thumbnails' },
  { key: 'disablePreviewResize', flag: 'disable-preview-resize', kind: 'boolean', default: false, stored: true, description: 'big previews serve the original image' },
  { key: 'disableTypeDetectionByHeader', flag: 'disable-type-detection-by-header', kind: 'boolean', default: false, stored: true, description: 'detect file types by extension only' },
  { key: 'disableImageResolutionCalc', flag: 'disable-image-resolution-calc', kind: 'boolean', default: false, stored: true, description: 'do not read image dimensions' },
  { key: 'imgProcessors', flag: 'img-processors', kind: 'number', default: 4, stored: true, description: 'parallel image resize workers (>= 1)' },
  { key: 'noauth', flag: 'noauth', kind: 'boolean', default: false, stored: false, firstRunOnly: true, description: 'first run only: no authentication (everyone is user 1)' },
  { key: 'username', flag: 'username', kind: 'string', default: 'admin', stored: false, firstRunOnly: true, description: 'first run only: name of the first admin (env COFFER_ADMIN_USERNAME too)' },
  { key: 'password', flag: 'password', kind: 'string', default: '', stored: false, firstRunOnly: true, description: 'first run only: password of the first admin (env COFFER_ADMIN_PASSWORD); random and printed once when empty' },
  { key: 'trustedProxies', flag: 'trusted-proxies', kind: 'list', default: [], stored: true, description: 'comma-separated addresses or CIDR ranges whose X-Forwarded-For and proxy-auth header are trusted' },
  { key: 'metricsToken', flag: 'metrics-token', kind: 'string', default: '', stored: false, description: 'bearer token for /metrics (loopback only without it)' },
  { key: 'rateLimit', flag: 'rate-limit', kind: 'string', default: '', stored: true, description: 'optional general limits, e.g. "anon=300/min,user=1200/min" (off when empty)' },
  { key: 'shutdownTimeout', flag: 'shutdown-timeout', kind: 'duration', default: 10, stored: false, description: 'how long in-flight requests may run after SIGTERM/SIGINT' },
];

export function envName(flag: string): string {
  return 'COFFER_' + flag.replace(/-/g, '_').toUpperCase();
}

export function camel(flag: string): string {
  return flag.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
}
