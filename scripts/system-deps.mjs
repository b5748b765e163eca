// Installs the Debian packages the tests need when they are missing (CI runs as root on a fresh
// machine). Not root and missing → a clear message and exit 1.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** binary to look for → Debian package that provides it */
export const NEEDED = {
  '/usr/bin/chromium': 'chromium',
  '/usr/lib/postgresql/15/bin/initdb': 'postgresql',
  '/usr/bin/zip': 'zip',
  '/usr/bin/unzip': 'unzip',
  '/usr/bin/lz4': 'lz4',
  '/usr/bin/zstd': 'zstd',
  '/usr/bin/xz': 'xz-utils',
  '/usr/bin/bzip2': 'bzip2',
  '/usr/bin/brotli': 'brotli',
  // The sandbox of commands and hooks (server/src/features/command/confine.ts).
  '/usr/bin/bwrap': 'bubblewrap',
  '/usr/bin/prlimit': 'util-linux',
  // WebDAV's conformance suite (server/test/webdav-litmus.test.ts) and a real WebDAV client.
  '/usr/bin/litmus': 'litmus',
  '/usr/bin/rclone': 'rclone',
  // Video thumbnails (server/src/features/preview/video.ts) and the short videos their tests make.
  '/usr/bin/ffmpeg': 'ffmpeg',
  // Several instances (--redis-url) and the cluster test (scripts/test-cluster.mjs): a shared
  // Redis and nginx balancing two instances.
  '/usr/bin/redis-server': 'redis-server',
  '/usr/sbin/nginx': 'nginx',
};

export function ensureSystemDeps() {
  const missing = [...new Set(Object.entries(NEEDED).filter(([bin]) => !existsSync(bin)).map(([, pkg]) => pkg))];
  if (!missing.length) return;
  if (process.getuid?.() !== 0) {
    console.error(`missing system packages: ${missing.join(' ')} — install them with: sudo apt-get install -y ${missing.join(' ')}`);
    process.exit(1);
  }
  console.log(`installing system packages: ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  const r = spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], { stdio: 'inherit', env });
  if (r.status !== 0) {
    console.error('apt-get install failed');
    process.exit(1);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) ensureSystemDeps();
