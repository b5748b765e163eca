// Shared by bench/download, bench/archive and bench/search: start the built Coffer, nginx and a
// minimal Node file server on loopback, time HTTP requests, sample a process's RSS.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const ADMIN = { username: 'admin', password: 'bench-admin-password-123' };

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

async function waitFor(port, urlPath, timeoutMs = 20000) {
  const t0 = Date.now();
  for (;;) {
    try {
      const r = await get(port, urlPath);
      if (r.status < 500) return;
    } catch {
      /* not up yet */
    }
    if (Date.now() - t0 > timeoutMs) throw new Error(`server on ${port} did not start`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function stopper(child) {
  const exited = new Promise((resolve) => child.on('exit', resolve));
  return async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
    }
  };
}

/** The built server (`npm run build` first) on `root`, with its own SQLite file in `dir`. */
export async function startCoffer(dir, root, extraArgs = [], bin = path.join(repo, 'server/bin/coffer.js')) {
  if (!existsSync(path.join(path.dirname(bin), '../dist/main.js')))
    throw new Error('server/dist is missing: run `npm run build` first');
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      // BENCH_NODE_ARGS: node options for the server alone (e.g. "--cpu-prof --cpu-prof-dir=/tmp/p").
      ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
      bin,
      'serve',
      '--root',
      root,
      '--database',
      path.join(dir, 'coffer.db'),
      '--address',
      '127.0.0.1',
      '--port',
      String(port),
      ...extraArgs,
    ],
    {
      cwd: dir,
      env: { ...process.env, COFFER_ADMIN_USERNAME: ADMIN.username, COFFER_ADMIN_PASSWORD: ADMIN.password },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const stop = stopper(child);
  await waitFor(port, '/health', 120_000);
  const login = await request(port, 'POST', '/api/login', JSON.stringify({ ...ADMIN, recaptcha: '' }));
  if (login.status !== 200) throw new Error(`login failed: ${login.status}`);
  return { port, pid: child.pid, token: login.body.toString(), stop };
}

/** nginx (Debian package; installed with apt-get when missing) serving `root` statically. */
export async function startNginx(dir, root) {
  if (!existsSync('/usr/sbin/nginx')) {
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
    const r = spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'nginx'], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    if (r.status !== 0) throw new Error('nginx is missing and could not be installed');
  }
  const port = await freePort();
  const prefix = path.join(dir, 'nginx');
  mkdirSync(path.join(prefix, 'logs'), { recursive: true });
  const conf = path.join(prefix, 'nginx.conf');
  writeFileSync(
    conf,
    `worker_processes 2;
${process.getuid?.() === 0 ? 'user root;' : ''}
pid ${prefix}/nginx.pid;
error_log ${prefix}/logs/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 100000;
  client_body_temp_path ${prefix}/body; proxy_temp_path ${prefix}/proxy; fastcgi_temp_path ${prefix}/fcgi; uwsgi_temp_path ${prefix}/uwsgi; scgi_temp_path ${prefix}/scgi;
  server { listen 127.0.0.1:${port}; root ${root}; }
}
`,
  );
  const child = spawn('/usr/sbin/nginx', ['-p', prefix, '-c', conf, '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const stop = stopper(child);
  await waitFor(port, '/');
  return { port, pid: child.pid, stop };
}

/** The reference Node server: stat + createReadStream + pipeline, nothing else. */
export async function startMinimalNode(root) {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [path.join(repo, 'bench/download/minimal-node.mjs'), root, String(port)],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const stop = stopper(child);
  await waitFor(port, '/');
  return { port, pid: child.pid, stop };
}

export function request(port, method, urlPath, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: urlPath,
        headers: {
          ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}),
          ...headers,
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export const get = (port, urlPath, headers) => request(port, 'GET', urlPath, undefined, headers);

/**
 * Streams a GET to its end, discarding the body: times of the response head, the first body byte
 * and the end, and the byte count.
 */
export function timedGet(port, urlPath, headers = {}) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.request({ host: '127.0.0.1', port, path: urlPath, headers }, (res) => {
      const head = performance.now() - t0;
      let first;
      let bytes = 0;
      res.on('data', (c) => {
        first ??= performance.now() - t0;
        bytes += c.length;
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode,
          headMs: head,
          firstByteMs: first ?? head,
          totalMs: performance.now() - t0,
          bytes,
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Samples a process's resident set size (KiB) every `everyMs` until stopped. */
export function sampleRss(pid, everyMs = 20) {
  const read = () => {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      return m ? Number(m[1]) : 0;
    } catch {
      return 0;
    }
  };
  const base = read();
  let peak = base;
  const t = setInterval(() => (peak = Math.max(peak, read())), everyMs);
  return {
    base,
    stop: () => (clearInterval(t), { baseMiB: base / 1024, peakMiB: Math.max(peak, read()) / 1024 }),
  };
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
export const fmt = (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '-');

/**
 * With `--workers N`: waits until N different workers have answered /metrics (one connection per
 * request, so the primary hands them out in turn), i.e. every worker listens.
 */
export async function waitForWorkers(port, n, timeoutMs = 60_000) {
  const seen = new Set();
  const until = performance.now() + timeoutMs;
  while (seen.size < n) {
    if (performance.now() > until) throw new Error(`only ${seen.size} of ${n} workers answered`);
    const res = await request(port, 'GET', '/metrics', undefined, { connection: 'close' }).catch(() => null);
    const m = res && /^coffer_worker_info\{[^}]*worker="(\d+)"/m.exec(res.body.toString());
    if (m) seen.add(m[1]);
    else await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Waits until the file index's cold build at start is over (GET /api/index says "ready"), so that
 * a bench measures a settled server and not the build's walk of the whole root beside it (an
 * archive download of the bench tree measured during the build spent a third of the event loop
 * in the build's lstat calls). Returns the seconds waited.
 */
export async function waitForIndex(port, token, timeoutMs = 600_000) {
  const t0 = performance.now();
  for (;;) {
    const r = await get(port, '/api/index', { 'X-Auth': token });
    if (r.status === 200 && JSON.parse(r.body.toString()).status === 'ready') return (performance.now() - t0) / 1000;
    if (performance.now() - t0 > timeoutMs) throw new Error('the file index was not ready in time');
    await new Promise((res) => setTimeout(res, 200));
  }
}
