/**
 * Helpers for tests that run the built CLI (`node server/bin/coffer.js`) as a subprocess, on a
 * temp folder and a temp SQLite file, or a fresh PostgreSQL database when COFFER_TEST_PG_URL is
 * set. The CLI must be built (`npx tsc -b server`; `npm test` builds first); `ensureBuilt` builds
 * it when server/dist is missing.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import pg from 'pg';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(repo, 'server/bin/coffer.js');

export function ensureBuilt(): void {
  if (existsSync(path.join(repo, 'server/dist/main.js'))) return;
  spawnSync('npx', ['tsc', '-b', 'server'], { cwd: repo, stdio: 'ignore' });
  if (!existsSync(path.join(repo, 'server/dist/main.js'))) throw new Error('could not build the server (npx tsc -b server)');
}

export interface Workspace {
  dir: string;
  root: string;
  /** SQLite file or postgres:// URL. */
  database: string;
  /** Environment for the subprocess: no COFFER_* from the test runner, HOME inside the workspace. */
  env(extra?: Record<string, string>): Record<string, string>;
  dispose(): Promise<void>;
}

export async function workspace(): Promise<Workspace> {
  const dir = await mkdtemp(path.join(tmpdir(), 'coffer-cli-'));
  let database = path.join(dir, 'coffer.db');
  let drop = async () => undefined;
  const admin = process.env.COFFER_TEST_PG_URL;
  if (admin) {
    const name = `coffer_cli_${randomBytes(6).toString('hex')}`;
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    await c.query(`CREATE DATABASE ${name}`);
    await c.end();
    const u = new URL(admin);
    u.pathname = `/${name}`;
    database = u.toString();
    drop = async () => {
      const d = new pg.Client({ connectionString: admin });
      await d.connect();
      await d.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await d.end();
    };
  }
  return {
    dir,
    root: path.join(dir, 'root'),
    database,
    env: (extra = {}) => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, ...extra }),
    async dispose() {
      await drop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs one CLI command to completion. */
export function run(ws: Workspace, args: string[], extraEnv: Record<string, string> = {}): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: ws.dir, env: ws.env(extraEnv), timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

export interface ServeProcess {
  proc: ChildProcess;
  /** http(s)://127.0.0.1:<port> (no base URL). */
  origin: string;
  port: number;
  /** Every stdout line so far (JSON log lines). */
  lines: string[];
  stderr(): string;
  /** Resolves with the first line (past or future) that matches. */
  waitFor(re: RegExp, timeoutMs?: number): Promise<string>;
  exited: Promise<number | null>;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `coffer serve …` and waits until it listens (killed when it does not within `startTimeoutMs`). */
export async function serve(ws: Workspace, args: string[], extraEnv: Record<string, string> = {}, startTimeoutMs = 20_000): Promise<ServeProcess> {
  const proc = spawn(process.execPath, [BIN, 'serve', ...args], { cwd: ws.dir, env: ws.env(extraEnv), stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let err = '';
  let partial = '';
  const waiters: { re: RegExp; resolve: (l: string) => void }[] = [];
  proc.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    partial += chunk;
    const parts = partial.split('\n');
    partial = parts.pop()!;
    for (const line of parts) {
      lines.push(line);
      for (const w of [...waiters]) {
        if (w.re.test(line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    }
  });
  proc.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const waitFor = (re: RegExp, timeoutMs = 20_000) =>
    new Promise<string>((resolve, reject) => {
      const found = lines.find((l) => re.test(l));
      if (found) return resolve(found);
      const timer = setTimeout(() => reject(new Error(`no line matching ${re} within ${timeoutMs} ms; stdout:\n${lines.join('\n')}\nstderr:\n${err}`)), timeoutMs);
      waiters.push({ re, resolve: (l) => (clearTimeout(timer), resolve(l)) });
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`the server exited (${code}) before a line matching ${re}; stdout:\n${lines.join('\n')}\nstderr:\n${err}`));
      });
    });
  const listening = await waitFor(/Server listening at https?:\/\/127\.0\.0\.1:\d+/, startTimeoutMs).catch((err: unknown) => {
    proc.kill('SIGKILL');
    throw err;
  });
  const [, scheme, portText] = /(https?):\/\/127\.0\.0\.1:(\d+)/.exec(listening)!;
  const port = Number(portText);
  return {
    proc,
    origin: `${scheme}://127.0.0.1:${port}`,
    port,
    lines,
    stderr: () => err,
    waitFor,
    exited,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      return exited;
    },
  };
}

/** A port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** window.FileBrowser of a served page, evaluated as the browser would. */
export function pageConfig(html: string): Record<string, unknown> {
  const m = /<script nonce="[^"]+">([\s\S]*?)<\/script>/.exec(html);
  if (!m) throw new Error('no injected configuration in the page');
  const window: Record<string, unknown> = {};
  vm.runInNewContext(m[1]!, { window });
  return window.FileBrowser as Record<string, unknown>;
}

export async function login(origin: string, username: string, password: string): Promise<Response> {
  return fetch(`${origin}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password, recaptcha: '' }) });
}
