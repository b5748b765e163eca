/**
 * Starts the real built server (server/dist + web/dist) on a temporary root and SQLite file, on
 * a free 127.0.0.1 port, and waits for /health (E1). Nothing is mocked.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, createWriteStream } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const REPO = path.resolve(import.meta.dirname, '..', '..');
const BIN = path.join(REPO, 'server', 'bin', 'coffer.js');
export const ARTIFACTS = path.join(REPO, 'e2e', 'artifacts');

export const ADMIN = { username: 'admin', password: 'e2e-admin-password-2024' };

export interface StartOptions {
  /** Extra `serve` flags, e.g. ['--baseurl', '/coffer']. */
  args?: string[];
  /** `coffer config init` flags applied to the fresh database before the first start. */
  init?: string[];
  /** Runs before the first start, e.g. to import a database or place files (after `init`). */
  beforeStart?: (paths: { dir: string; root: string; database: string; bin: string }) => void;
  env?: Record<string, string>;
  /** URL prefix the server was given with --baseurl (for the returned URLs). */
  baseurl?: string;
}

export interface RunningServer {
  /** http://127.0.0.1:PORT plus the base URL, no trailing slash. */
  url: string;
  origin: string;
  root: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

// Generous: on a machine shared by many jobs a cold start (imports, first-run hashing) can take half a minute.
async function waitForHealth(url: string, child: ChildProcess, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      const res = await fetch(`${url}/health`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server at ${url} did not answer /health within ${ms} ms`);
}

let counter = 0;

export async function startServer(options: StartOptions = {}): Promise<RunningServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'coffer-e2e-'));
  const root = path.join(dir, 'root');
  mkdirSync(root);
  const database = path.join(dir, 'coffer.db');
  if (options.init) {
    const r = spawnSync(process.execPath, [BIN, 'config', 'init', '-d', database, ...options.init], {
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`config init failed: ${r.stderr}`);
  }
  options.beforeStart?.({ dir, root, database, bin: BIN });
  const port = await freePort();
  mkdirSync(path.join(ARTIFACTS, 'logs'), { recursive: true });
  const log = createWriteStream(path.join(ARTIFACTS, 'logs', `server-${process.pid}-${++counter}.log`));
  const child = spawn(
    process.execPath,
    [
      BIN,
      'serve',
      '--root',
      root,
      '--database',
      database,
      '--address',
      '127.0.0.1',
      '--port',
      String(port),
      ...(options.args ?? []),
    ],
    {
      env: {
        ...process.env,
        COFFER_ADMIN_USERNAME: ADMIN.username,
        COFFER_ADMIN_PASSWORD: ADMIN.password,
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const origin = `http://127.0.0.1:${port}`;
  const url = origin + (options.baseurl ?? '');
  try {
    await waitForHealth(url, child);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return {
    url,
    origin,
    root,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
