/**
 * A Coffer server in a child process, for the tests that kill the server mid-upload (SIGKILL, no
 * graceful anything) and start it again, or run it under a file-size limit (a full disk).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openDb, type Db } from '../src/db/index.js';
import { ADMIN } from './harness.js';

const LAUNCHER = fileURLToPath(new URL('./tus-child.mjs', import.meta.url));

export interface ChildServer {
  url: string;
  root: string;
  dir: string;
  /** Starts (or restarts) the process; resolves once it listens. */
  start(opts?: { fileSizeLimitKiB?: number }): Promise<void>;
  /** SIGKILL: the process dies where it stands. */
  kill(): Promise<void>;
  login(): Promise<string>;
  /** Runs `fn` on the server's database (e.g. while the process is down). */
  withDb<T>(fn: (db: Db) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => (a && typeof a !== 'string' ? resolve(a.port) : reject(new Error('no port'))));
    });
  });
}

async function database(dir: string): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = process.env.COFFER_TEST_PG_URL;
  if (!admin) return { url: path.join(dir, 'coffer.db'), drop: async () => undefined };
  const name = `coffer_c_${randomBytes(6).toString('hex')}`;
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  const u = new URL(admin);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const d = new pg.Client({ connectionString: admin });
      await d.connect();
      await d.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await d.end();
    },
  };
}

export async function childServer(over: Record<string, unknown> = {}): Promise<ChildServer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'coffer-child-'));
  const root = path.join(dir, 'root');
  const db = await database(dir);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const config = { root, database: db.url, port, username: ADMIN.username, password: ADMIN.password, ...over };
  let proc: ChildProcess | undefined;

  const server: ChildServer = {
    url,
    root,
    dir,
    async start(opts = {}) {
      const env = { ...process.env, COFFER_CHILD_CONFIG: JSON.stringify(config) };
      const cmd = opts.fileSizeLimitKiB
        ? spawn('bash', ['-c', `ulimit -f ${opts.fileSizeLimitKiB} && exec "${process.execPath}" "${LAUNCHER}"`], { env, stdio: ['ignore', 'pipe', 'pipe'] })
        : spawn(process.execPath, [LAUNCHER], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      proc = cmd;
      let err = '';
      cmd.stderr?.on('data', (d: Buffer) => (err += d.toString()));
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`child did not start: ${err}`)), 30_000);
        cmd.stdout?.on('data', (d: Buffer) => {
          if (d.toString().includes('ready')) {
            clearTimeout(timer);
            resolve();
          }
        });
        cmd.on('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`child exited with ${code}: ${err}`));
        });
      });
    },
    async kill() {
      const p = proc;
      proc = undefined;
      if (!p || p.exitCode !== null) return;
      const gone = new Promise((r) => p.once('exit', r));
      p.kill('SIGKILL');
      await gone;
    },
    async login() {
      const res = await fetch(`${url}/api/login`, { method: 'POST', body: JSON.stringify({ ...ADMIN, recaptcha: '' }) });
      if (res.status !== 200) throw new Error(`login failed: ${res.status}`);
      return res.text();
    },
    async withDb(fn) {
      const handle = await openDb(db.url);
      try {
        return await fn(handle);
      } finally {
        await handle.close();
      }
    },
    async close() {
      await server.kill();
      await db.drop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return server;
}
