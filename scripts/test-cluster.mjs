// `npm run test:cluster` (and a step of `npm test`): two Coffer instances (the built server,
// server/dist/main.js) behind nginx round-robin, on one throw-away PostgreSQL, one Redis and one
// shared folder, all on 127.0.0.1 — the several-instances shape of docs/deployment.md, checked
// end to end. Prints one line per check and "N passed, N failed"; `--summary=FILE` writes
// {"passed","failed","skipped"} for scripts/test-all.mjs. Needs postgresql, redis-server and nginx
// (scripts/system-deps.mjs).
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as tus from 'tus-js-client';
import { startPostgres } from './pg.mjs';
import { freePort, startRedis } from './redis.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MAIN = path.join(REPO, 'server', 'dist', 'main.js');
const NGINX = '/usr/sbin/nginx';
const LOGIN_ADDRESS_LIMIT = 10; // server/src/auth/throttle.ts (S30)
const summaryArg = process.argv.find((a) => a.startsWith('--summary='));

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const sha256 = (b) => createHash('sha256').update(b).digest('hex');

async function waitFor(what, fn, timeoutMs = 20_000, everyMs = 100) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

function assert(cond, message) {
  if (!cond) throw new Error(message);
}

// --- the pieces -------------------------------------------------------------------------------

const cleanups = [];
const dir = await mkdtemp(path.join(tmpdir(), 'coffer-cluster-'));
cleanups.push(() => rm(dir, { recursive: true, force: true }));
const root = path.join(dir, 'root');
const dataDir = path.join(dir, 'data');
await mkdir(root);
await mkdir(dataDir);

function nginxConfig(port, upstreams) {
  const d = path.join(dir, 'nginx');
  return `worker_processes 1;
daemon off;
pid ${d}/nginx.pid;
error_log ${d}/error.log warn;
events { worker_connections 512; }
http {
  access_log off;
  client_body_temp_path ${d}/body;
  proxy_temp_path ${d}/proxy;
  fastcgi_temp_path ${d}/fastcgi;
  uwsgi_temp_path ${d}/uwsgi;
  scgi_temp_path ${d}/scgi;
  client_max_body_size 0;
  upstream coffer {
${upstreams.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=1s;`).join('\n')}
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://coffer;
      proxy_http_version 1.1;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_request_buffering off;
      proxy_buffering off;
      proxy_connect_timeout 2s;
      add_header X-Upstream $upstream_addr always;
    }
  }
}
`;
}

async function startNginx(port, upstreams) {
  const d = path.join(dir, 'nginx');
  await mkdir(d, { recursive: true });
  const conf = path.join(d, 'nginx.conf');
  await writeFile(conf, nginxConfig(port, upstreams));
  const child = spawn(NGINX, ['-p', d, '-e', path.join(d, 'error.log'), '-c', conf], { stdio: ['ignore', 'ignore', 'inherit'] });
  cleanups.push(
    () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  );
  await waitFor('nginx', async () => (await fetch(`http://127.0.0.1:${port}/nginx-probe`).catch(() => null)) !== null);
  return child;
}

/** One Coffer instance: the built server with its own port and log file. */
function instance(name, port, env) {
  const log = path.join(dir, `${name}.log`);
  const self = {
    name,
    port,
    log,
    url: `http://127.0.0.1:${port}`,
    child: null,
    start() {
      const args = [MAIN, 'serve', '--root', root, '--data-dir', dataDir, '--address', '127.0.0.1', '--port', String(port), '--log', log];
      self.child = spawn(process.execPath, args, {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, ...env, COFFER_INSTANCE: name },
      });
      let stderr = '';
      self.child.stderr.on('data', (d) => (stderr += d));
      self.child.once('exit', (code, signal) => {
        if (code && !self.stopping) console.error(`instance ${name} exited ${code}${signal ? ` (${signal})` : ''}: ${stderr.slice(-2000)}`);
      });
      return self;
    },
    stopping: false,
    kill9() {
      self.stopping = true;
      self.child.kill('SIGKILL');
    },
    async stop() {
      if (!self.child || self.child.exitCode !== null || self.child.signalCode) return;
      self.stopping = true;
      await new Promise((resolve) => {
        self.child.once('exit', resolve);
        self.child.kill('SIGTERM');
      });
    },
    async ready() {
      return waitFor(`${name} /ready`, async () => (await fetch(`${self.url}/ready`)).status === 200, 60_000);
    },
  };
  cleanups.push(() => self.stop());
  return self;
}

async function cleanup() {
  for (const fn of cleanups.reverse()) {
    try {
      await fn();
    } catch (err) {
      console.error('cleanup:', err.message);
    }
  }
}

// --- a tiny runner ------------------------------------------------------------------------------

const results = { passed: 0, failed: 0, skipped: 0 };
async function check(name, fn) {
  const t0 = Date.now();
  try {
    await fn();
    results.passed++;
    console.log(`  ✓ ${name} (${Date.now() - t0} ms)`);
  } catch (err) {
    results.failed++;
    console.log(`  ✗ ${name} (${Date.now() - t0} ms)\n      ${err.stack ?? err}`);
  }
}

// --- the run --------------------------------------------------------------------------------------

const started = Date.now();
let a;
let b;
let lb;
let redis;
// About 80 s on a busy 2-core machine; the bound only keeps a hung piece from stalling CI.
const hardStop = setTimeout(() => {
  console.error('test-cluster: over 240 s, giving up');
  results.failed++;
  void finish();
}, 240_000);

async function finish() {
  clearTimeout(hardStop);
  await cleanup();
  console.log(`\ncluster: ${results.passed} passed, ${results.failed} failed, ${results.skipped} skipped (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  if (summaryArg) await writeFile(summaryArg.slice('--summary='.length), JSON.stringify(results));
  process.exit(results.failed ? 1 : 0);
}

try {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: build the server first (npm run build)`);
  const pg = await startPostgres();
  cleanups.push(() => pg.stop());
  redis = await startRedis();
  cleanups.push(() => redis.stop());
  const [pa, pb, pn] = [await freePort(), await freePort(), await freePort()];
  const env = { COFFER_DATABASE: pg.url, COFFER_REDIS_URL: redis.url, COFFER_TRUSTED_PROXIES: '127.0.0.1' };
  a = instance('a', pa, env);
  b = instance('b', pb, env);
  await startNginx(pn, [pa, pb]);
  lb = `http://127.0.0.1:${pn}`;
  console.log(`cluster: PostgreSQL, Redis ${redis.port}, nginx ${pn} → instances a ${pa}, b ${pb}`);

  let password = '';
  let token = '';
  const login = (base, pw = password, headers = {}) =>
    fetch(`${base}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ username: 'admin', password: pw, recaptcha: '' }) });
  const api = (base, p, init = {}) => fetch(base + p, { ...init, headers: { 'X-Auth': token, ...(init.headers ?? {}) } });

  await check('both instances start at once on an empty database: one admin, one password, both ready', async () => {
    a.start();
    b.start();
    await Promise.all([a.ready(), b.ready()]);
    const logs = await Promise.all([readFile(a.log, 'utf8'), readFile(b.log, 'utf8')]);
    const found = logs.map((l) => /randomly generated password: (\S+?)"/.exec(l)?.[1]);
    assert(found.filter(Boolean).length === 1, `exactly one instance prints the generated password, got ${JSON.stringify(found)}`);
    password = found.find(Boolean);
    for (const inst of [a, b]) assert((await login(inst.url)).status === 200, `the password works on ${inst.name}`);
    for (const inst of [a, b]) assert((await (await fetch(`${inst.url}/ready`)).json()).status === 'ready', 'ready');
  });

  await check('a token from one instance is accepted by the other', async () => {
    const res = await login(a.url);
    token = await res.text();
    const users = await api(b.url, '/api/users');
    assert(users.status === 200, `b answers ${users.status}`);
    const list = await users.json();
    assert(list.length === 1 && list[0].username === 'admin', `one user, got ${list.length}`);
  });

  await check('tus chunks alternating between the instances give the right bytes', async () => {
    const data = randomBytes(6 * 64 * 1024 + 123);
    const created = await api(lb, '/api/tus/alternate.bin?override=false', { method: 'POST', headers: { 'Tus-Resumable': '1.0.0', 'Upload-Length': String(data.length) } });
    assert(created.status === 201, `create: ${created.status}`);
    const served = new Set();
    for (let offset = 0; offset < data.length; ) {
      const chunk = data.subarray(offset, offset + 64 * 1024);
      const res = await api(lb, '/api/tus/alternate.bin', {
        method: 'PATCH',
        headers: { 'Tus-Resumable': '1.0.0', 'Upload-Offset': String(offset), 'Content-Type': 'application/offset+octet-stream' },
        body: chunk,
      });
      assert(res.status === 204, `PATCH at ${offset}: ${res.status} ${await res.text()}`);
      served.add(res.headers.get('x-upstream'));
      offset = Number(res.headers.get('upload-offset'));
    }
    assert(served.size === 2, `chunks went to both instances, got ${[...served]}`);
    assert(sha256(await readFile(path.join(root, 'alternate.bin'))) === sha256(data), 'the bytes are right');
  });

  await check('kill -9 of one instance mid-upload: the client finishes through the other with the right bytes', async () => {
    const data = randomBytes(8 * 1024 * 1024);
    let killed = '';
    const chunks = [];
    await new Promise((resolve, reject) => {
      const upload = new tus.Upload(data, {
        endpoint: `${lb}/api/tus/killed.bin?override=false`,
        chunkSize: 256 * 1024,
        retryDelays: [0, 300, 600, 1000, 1000, 2000, 2000, 3000, 3000],
        parallelUploads: 1,
        storeFingerprintForResuming: false,
        headers: { 'X-Auth': token },
        onShouldRetry: (err) => (err.originalResponse ? err.originalResponse.getStatus() : 0) !== 409,
        onAfterResponse: (_req, res) => {
          if (killed || chunks.length < 4) return;
          // The next chunk goes to the instance that did not answer this one: kill that one
          // while the chunk is on its way, if possible.
          const upstream = res.getHeader('X-Upstream') ?? '';
          const victim = upstream.endsWith(`:${a.port}`) ? b : a;
          killed = victim.name;
          setTimeout(() => victim.kill9(), 5);
        },
        onChunkComplete: (_size, accepted) => chunks.push(accepted),
        onError: reject,
        onSuccess: resolve,
      });
      upload.start();
    });
    assert(killed, 'an instance was killed');
    assert(sha256(await readFile(path.join(root, 'killed.bin'))) === sha256(data), 'the bytes are right');
    // Bring the killed one back for the rest.
    const victim = killed === 'a' ? a : b;
    victim.stopping = false;
    victim.start();
    await victim.ready();
  });

  await check('a share and a settings change made on one instance are seen by the other', async () => {
    const share = await api(a.url, '/api/share/alternate.bin', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert(share.status === 200, `share: ${share.status}`);
    const { hash } = await share.json();
    const pub = await fetch(`${b.url}/api/public/share/${hash}`);
    assert(pub.status === 200, `public share on b: ${pub.status}`);
    const settings = await (await api(a.url, '/api/settings')).json();
    const chunkSize = settings.tus.chunkSize + 4096;
    const put = await api(a.url, '/api/settings', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...settings, tus: { ...settings.tus, chunkSize } }) });
    assert(put.status === 200, `PUT settings: ${put.status}`);
    const seen = await (await api(b.url, '/api/settings')).json();
    assert(seen.tus.chunkSize === chunkSize, `b sees chunkSize ${seen.tus.chunkSize}, wanted ${chunkSize}`);
  });

  await check('the file index: one instance maintains it; writes through either show in both (search, folder sizes)', async () => {
    const progress = async (inst) => (await api(inst.url, '/api/index')).json();
    // After the kill -9 above the lease may still name the dead process: it is taken once expired (≤ 40 s).
    await waitFor(
      'one maintainer and both ready',
      async () => {
        const [pa, pb] = [await progress(a), await progress(b)];
        return pa.status === 'ready' && pb.status === 'ready' && [pa.role, pb.role].sort().join() === 'maintainer,reader';
      },
      60_000,
      500,
    );
    const size = async (inst) => (await (await api(inst.url, '/api/resources/')).json()).items.find((it) => it.name === 'indexed')?.folderSize;
    const found = async (inst) => (await (await api(inst.url, '/api/search/?query=pear-')).text()).split('\n').filter((l) => l).length;
    for (const [i, inst] of [a, b, a, b].entries()) {
      const up = await api(inst.url, `/api/resources/indexed/pear-${i}.bin?override=false`, { method: 'POST', body: 'x'.repeat(100) });
      assert(up.status === 200, `upload to ${inst.name}: ${up.status}`);
      // The writer's next listing and search have it; the other instance within moments.
      assert((await size(inst)) === 100 * (i + 1), `${inst.name}'s folder size after its own write: ${await size(inst)}`);
      assert((await found(inst)) === i + 1, `${inst.name}'s search after its own write`);
      const other = inst === a ? b : a;
      await waitFor(`the size on ${other.name}`, async () => (await size(other)) === 100 * (i + 1), 3000, 50);
      assert((await found(other)) === i + 1, `${other.name}'s search`);
    }
  });

  await check('wrong passwords spread over both instances reach 429 at the same total as on one', async () => {
    const from = { 'X-Forwarded-For': '198.51.100.77' };
    const statuses = [];
    const served = new Set();
    for (let i = 0; i < LOGIN_ADDRESS_LIMIT + 1; i++) {
      const res = await login(lb, 'wrong-password', from);
      statuses.push(res.status);
      served.add(res.headers.get('x-upstream'));
    }
    assert(served.size === 2, `both instances answered, got ${[...served]}`);
    const expected = [...Array(LOGIN_ADDRESS_LIMIT).fill(403), 429];
    assert(JSON.stringify(statuses) === JSON.stringify(expected), `statuses ${statuses}, wanted ${expected}`);
    // Both instances refuse that address now, the right password too; another address is fine.
    for (const inst of [a, b]) {
      const res = await login(inst.url, password, from);
      assert(res.status === 429, `${inst.name} answers ${res.status} to the throttled address`);
    }
    assert((await login(lb, password, { 'X-Forwarded-For': '198.51.100.78' })).status === 200, 'another address signs in');
  });

  await check('Redis stopped mid-test: requests keep working, /ready says degraded; started again: recovered', async () => {
    await redis.stop();
    for (const inst of [a, b]) {
      const body = await waitFor(`${inst.name} degraded`, async () => {
        const res = await fetch(`${inst.url}/ready`);
        const j = await res.json();
        return res.status === 200 && j.detail?.shared === 'degraded' ? j : null;
      });
      assert(body.status === 'ready', 'still ready');
    }
    for (let i = 0; i < 4; i++) {
      const t0 = Date.now();
      const res = await api(lb, '/api/resources/');
      assert(res.status === 200, `listing while Redis is down: ${res.status}`);
      assert(Date.now() - t0 < 2000, 'answered without waiting for Redis');
    }
    assert((await login(lb, password, { 'X-Forwarded-For': '198.51.100.79' })).status === 200, 'sign-in works while Redis is down');
    const logs = (await readFile(a.log, 'utf8')) + (await readFile(b.log, 'utf8'));
    assert(/Redis is unreachable/.test(logs), 'the log says Redis is unreachable');
    await redis.start();
    for (const inst of [a, b]) {
      await waitFor(`${inst.name} recovered`, async () => {
        const j = await (await fetch(`${inst.url}/ready`)).json();
        return j.status === 'ready' && !j.detail;
      });
    }
    // Shared again: wrong passwords through both instances count together.
    const from = { 'X-Forwarded-For': '198.51.100.80' };
    const statuses = [];
    for (let i = 0; i < LOGIN_ADDRESS_LIMIT + 1; i++) statuses.push((await login(lb, 'wrong-password', from)).status);
    assert(statuses.at(-1) === 429 && statuses.filter((s) => s === 403).length === LOGIN_ADDRESS_LIMIT, `after recovery: ${statuses}`);
  });
} catch (err) {
  results.failed++;
  console.error(`test-cluster: ${err.stack ?? err}`);
}
await finish();
