// Login under load: the built server as its own process on a temp root and SQLite file, N
// concurrent clients looping on POST /api/login with the right password (successful logins are
// never throttled, S30/S83) for D seconds, while a poller measures GET /health. The point:
// argon2id verification runs on libuv's pool, so /health must stay fast (goal p99 < 50 ms).
//
//   node bench/login/run.mjs [--clients 50] [--seconds 20] [--workers 1]   (after `npm run build`)
//   --workers N: the server runs N request processes (docs/deployment.md); /health is polled on
//   one kept-alive connection, so it measures the worker that connection reached.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { ADMIN, freePort, repo, waitForWorkers } from '../download/common.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const CLIENTS = arg('clients', 50);
const SECONDS = arg('seconds', 20);
const HEALTH_EVERY_MS = 20;
const WORKERS = arg('workers', 1);

const bin = path.join(repo, 'server/bin/coffer.js');
if (!existsSync(path.join(repo, 'server/dist/main.js'))) {
  console.error('server/dist is missing: run `npm run build` first');
  process.exit(2);
}

function request(agent, port, method, urlPath, body) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.request({ host: '127.0.0.1', port, method, path: urlPath, agent, headers: body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {} }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - t0, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

function pct(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
const fmt = (n) => (Number.isFinite(n) ? n.toFixed(1) : '-');

const dir = mkdtempSync(path.join(tmpdir(), 'coffer-bench-login-'));
const port = await freePort();
const server = spawn(
  process.execPath,
  [bin, 'serve', '--root', path.join(dir, 'root'), '--database', path.join(dir, 'coffer.db'), '--address', '127.0.0.1', '--port', String(port), '--workers', String(WORKERS)],
  {
    cwd: dir,
    env: { ...process.env, COFFER_ADMIN_USERNAME: ADMIN.username, COFFER_ADMIN_PASSWORD: ADMIN.password },
    stdio: ['ignore', 'ignore', 'pipe'],
  },
);
let stderr = '';
server.stderr.on('data', (c) => (stderr += c));
const exited = new Promise((resolve) => server.on('exit', resolve));

async function stop() {
  if (server.exitCode === null) {
    server.kill('SIGTERM');
    const timer = setTimeout(() => server.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
  rmSync(dir, { recursive: true, force: true });
}

try {
  const probe = new http.Agent({ keepAlive: false });
  const started = performance.now();
  for (;;) {
    try {
      if ((await request(probe, port, 'GET', '/health')).status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (server.exitCode !== null || performance.now() - started > 120_000) throw new Error(`server did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }

  if (WORKERS > 1) await waitForWorkers(port, WORKERS);
  const body = JSON.stringify({ ...ADMIN, recaptcha: '' });
  const loginAgent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
  const check = await request(loginAgent, port, 'POST', '/api/login', body);
  if (check.status !== 200) throw new Error(`login failed before the run: ${check.status} ${check.body}`);

  // Idle baseline for /health.
  const healthAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const idle = [];
  for (let i = 0; i < 100; i++) idle.push((await request(healthAgent, port, 'GET', '/health')).ms);

  const deadline = performance.now() + SECONDS * 1000;
  const loginMs = [];
  const statuses = {};
  let errors = 0;
  const client = async () => {
    while (performance.now() < deadline) {
      try {
        const r = await request(loginAgent, port, 'POST', '/api/login', body);
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        if (r.status === 200) loginMs.push(r.ms);
      } catch {
        errors++;
      }
    }
  };
  const healthMs = [];
  const poller = async () => {
    while (performance.now() < deadline) {
      const r = await request(healthAgent, port, 'GET', '/health');
      if (r.status === 200) healthMs.push(r.ms);
      await new Promise((res) => setTimeout(res, HEALTH_EVERY_MS));
    }
  };
  const t0 = performance.now();
  await Promise.all([...Array.from({ length: CLIENTS }, client), poller()]);
  const elapsed = (performance.now() - t0) / 1000;

  loginMs.sort((a, b) => a - b);
  healthMs.sort((a, b) => a - b);
  idle.sort((a, b) => a - b);
  const ok = statuses[200] ?? 0;
  const result = {
    date: new Date().toISOString().slice(0, 10),
    node: process.version,
    cpus: cpus().length,
    clients: CLIENTS,
    seconds: Number(elapsed.toFixed(1)),
    statuses,
    errors,
    loginPerSecond: Number((ok / elapsed).toFixed(1)),
    loginMs: { p50: fmt(pct(loginMs, 50)), p99: fmt(pct(loginMs, 99)), max: fmt(loginMs.at(-1)) },
    healthIdleMs: { p50: fmt(pct(idle, 50)), p99: fmt(pct(idle, 99)) },
    healthDuringMs: { samples: healthMs.length, p50: fmt(pct(healthMs, 50)), p99: fmt(pct(healthMs, 99)), max: fmt(healthMs.at(-1)) },
  };
  console.log(`login: ${CLIENTS} clients for ${result.seconds}s on ${result.cpus} CPUs (${result.node}), --workers ${WORKERS}`);
  console.log(`  POST /api/login  ${result.loginPerSecond} req/s  p50 ${result.loginMs.p50} ms  p99 ${result.loginMs.p99} ms  max ${result.loginMs.max} ms  statuses ${JSON.stringify(statuses)}  errors ${errors}`);
  console.log(`  GET /health idle p50 ${result.healthIdleMs.p50} ms  p99 ${result.healthIdleMs.p99} ms`);
  console.log(`  GET /health during the burst (${healthMs.length} samples)  p50 ${result.healthDuringMs.p50} ms  p99 ${result.healthDuringMs.p99} ms  max ${result.healthDuringMs.max} ms  (goal p99 < 50 ms)`);
  console.log(JSON.stringify(result));
  loginAgent.destroy();
  healthAgent.destroy();
  if (ok === 0 || errors > 0 || Object.keys(statuses).some((s) => s !== '200')) process.exitCode = 1;
} catch (err) {
  console.error(err);
  process.exitCode = 1;
} finally {
  await stop();
}
