// Upload throughput: 1 GiB through Coffer's tus endpoint (tus-js-client, 10 MiB chunks, one
// connection: File Browser's client settings), the same client as an anonymous visitor of an
// upload-only share (docs/api.md §23; goal ≥ 90 % of the signed-in speed), through a plain POST /api/resources, through
// @tus/server + @tus/file-store (same client, same chunk size, same disk), and `cp` of the same
// file (also followed by `sync` of it). A minimal tus client (one PATCH per chunk streamed from the
// file) runs against both servers too, to show the servers apart from tus-js-client's own cost.
// Three ceilings measure the machine itself (bench/upload/ceiling-server.mjs, own processes): a
// raw Node HTTP PUT of the file to a server that drops the body, the same PUT to the smallest Node
// server that writes it to a file (pipeline, fsync, rename), and tus-js-client against a tus server
// that drops the bytes. Every step runs once per round, rounds interleaved; the summary gives
// medians, CPU seconds per GiB of the server process and of this client process, and the load
// average before and after. Server RSS is sampled from /proc every 50 ms. Every upload to disk is
// checked by sha256.
//
//   node bench/upload/run.mjs [--mib 1024] [--chunk-mib 10] [--runs 3] [--only cofferTus,ceiling,…]
//   (after `npm run build`)
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as tus from 'tus-js-client';
import { ADMIN, freePort, repo } from '../download/common.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const MIB = 1024 * 1024;
const SIZE = arg('mib', 1024) * MIB;
const CHUNK = arg('chunk-mib', 10) * MIB;
const RUNS = arg('runs', 3);
const ONLY = (() => {
  const i = process.argv.indexOf('--only');
  return i > 0 ? new Set(process.argv[i + 1].split(',')) : null;
})();
const step = (k) => !ONLY || ONLY.has(k);

if (!existsSync(path.join(repo, 'server/dist/main.js'))) {
  console.error('server/dist is missing: run `npm run build` first');
  process.exit(2);
}

function startProcess(args, env = {}) {
  const proc = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  proc.stderr.on('data', (c) => (err += c));
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start: ${err}`)), 30_000);
    proc.stdout.on('data', () => {
      clearTimeout(timer);
      resolve();
    });
    proc.on('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
  });
  return { proc, ready };
}

async function waitHttp(url) {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} never answered`);
}

/** CPU seconds (user + system) a process has used so far; `self-children` for waited-for children of this one. */
function cpuSeconds(pid) {
  const f = readFileSync(`/proc/${pid === 'self-children' ? 'self' : pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const ticks = pid === 'self-children' ? Number(f[13]) + Number(f[14]) : Number(f[11]) + Number(f[12]);
  return ticks / 100; // USER_HZ
}

/** Samples a process's resident set from /proc while `fn` runs, and counts its CPU time and ours. */
async function withRss(pid, fn) {
  const read = () => {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  };
  const before = read();
  let max = before;
  const timer = setInterval(() => (max = Math.max(max, read())), 50);
  const cpu0 = cpuSeconds(pid);
  const own0 = process.cpuUsage();
  try {
    const value = await fn();
    const own = process.cpuUsage(own0);
    return { value, before, max, serverCpu: cpuSeconds(pid) - cpu0, clientCpu: (own.user + own.system) / 1e6 };
  } finally {
    clearInterval(timer);
  }
}

function sha256File(file) {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(file)
      .on('data', (c) => h.update(c))
      .on('end', () => resolve(h.digest('hex')))
      .on('error', reject);
  });
}

function tusUpload(endpoint, file, headers = {}, uploadSize = undefined, metadata = {}) {
  return new Promise((resolve, reject) => {
    const up = new tus.Upload(createReadStream(file), {
      endpoint,
      uploadSize,
      chunkSize: CHUNK,
      retryDelays: [0, 1000, 2000, 4000, 8000],
      parallelUploads: 1,
      storeFingerprintForResuming: false,
      headers,
      metadata,
      onShouldRetry: (err) => (err.originalResponse ? err.originalResponse.getStatus() : 0) !== 409,
      onError: reject,
      onSuccess: () => resolve(up.url),
    });
    up.start();
  });
}

/** A minimal tus client: POST, then one PATCH per chunk streamed from the file by range. */
async function rawTus(port, createPath, headers = {}) {
  const send = (method, urlPath, extra, body) =>
    new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method, path: urlPath, headers: { 'Tus-Resumable': '1.0.0', ...headers, ...extra } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res));
      });
      req.on('error', reject);
      if (body) body.pipe(req);
      else req.end();
    });
  const created = await send('POST', createPath, { 'Upload-Length': String(SIZE) });
  if (created.statusCode !== 201) throw new Error(`create answered ${created.statusCode}`);
  const location = new URL(created.headers.location, `http://127.0.0.1:${port}`).pathname;
  for (let off = 0; off < SIZE; off += CHUNK) {
    const len = Math.min(CHUNK, SIZE - off);
    const res = await send(
      'PATCH',
      location,
      { 'Content-Type': 'application/offset+octet-stream', 'Upload-Offset': String(off), 'Content-Length': String(len) },
      createReadStream(globalThis.src, { start: off, end: off + len - 1, highWaterMark: MIB }),
    );
    if (res.statusCode !== 204) throw new Error(`PATCH answered ${res.statusCode}`);
  }
  return location;
}

/** One request with the file streamed as its body (1 MiB reads). */
function plainPost(port, urlPath, file, headers = {}, method = 'POST') {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method, path: urlPath, headers: { ...headers, 'Content-Type': 'application/octet-stream', 'Content-Length': SIZE } },
      (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${method} answered ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    createReadStream(file, { highWaterMark: MIB }).pipe(req);
  });
}

/** Every measurement starts with no dirty pages of the previous one: `sync`, then a short pause. */
async function timed(fn) {
  spawnSync('sync');
  await new Promise((r) => setTimeout(r, 500));
  const t0 = performance.now();
  const value = await fn();
  return { seconds: (performance.now() - t0) / 1000, value };
}

const dir = mkdtempSync(path.join(tmpdir(), 'coffer-bench-upload-'));
const children = [];
async function cleanup() {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}
process.on('SIGINT', () => void cleanup().then(() => process.exit(130)));

try {
  // The source: 1 GiB made of a random 16 MiB block, each copy with its index stamped in.
  const src = path.join(dir, 'source.bin');
  const block = randomBytes(16 * MIB);
  const fh = await open(src, 'w');
  for (let off = 0; off < SIZE; off += block.length) {
    block.writeUInt32BE(off / block.length, 0);
    await fh.write(block, 0, Math.min(block.length, SIZE - off));
  }
  await fh.close();
  const want = await sha256File(src);
  globalThis.src = src;

  // Coffer, built, as its own process.
  const cofferPort = await freePort();
  const root = path.join(dir, 'root');
  mkdirSync(root);
  const coffer = spawn(
    process.execPath,
    [path.join(repo, 'server/bin/coffer.js'), 'serve', '--root', root, '--database', path.join(dir, 'coffer.db'), '--address', '127.0.0.1', '--port', String(cofferPort), '--log', ''],
    { cwd: dir, env: { ...process.env, COFFER_ADMIN_USERNAME: ADMIN.username, COFFER_ADMIN_PASSWORD: ADMIN.password }, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  children.push(coffer);
  const cofferUrl = `http://127.0.0.1:${cofferPort}`;
  await waitHttp(`${cofferUrl}/health`);
  const login = await fetch(`${cofferUrl}/api/login`, { method: 'POST', body: JSON.stringify({ ...ADMIN, recaptcha: '' }) });
  const token = await login.text();
  // An upload-only share of /drop (docs/api.md §23): an anonymous visitor's uploads go there.
  mkdirSync(path.join(root, 'drop'));
  const shared = await fetch(`${cofferUrl}/api/share/drop/`, { method: 'POST', headers: { 'X-Auth': token, 'Content-Type': 'application/json' }, body: JSON.stringify({ kind: 'upload' }) });
  if (!shared.ok) throw new Error(`upload share: ${shared.status}`);
  const dropHash = (await shared.json()).hash;

  // @tus/server + @tus/file-store, as its own process, store on the same disk.
  const refPort = await freePort();
  const store = path.join(dir, 'tus-store');
  mkdirSync(store);
  const ref = startProcess([path.join(repo, 'bench/upload/tus-reference.mjs'), String(refPort), store]);
  children.push(ref.proc);

  // The ceilings (bench/upload/ceiling-server.mjs), each its own process.
  const ceilingDir = path.join(dir, 'ceiling');
  mkdirSync(ceilingDir);
  const ceilings = {};
  for (const mode of ['discard', 'file', 'tus']) {
    const port = await freePort();
    const p = startProcess([path.join(repo, 'bench/upload/ceiling-server.mjs'), String(port), mode, ceilingDir]);
    children.push(p.proc);
    ceilings[mode] = { port, proc: p.proc, ready: p.ready };
  }
  await Promise.all([ref.ready, ...Object.values(ceilings).map((c) => c.ready)]);

  // Warm-up, not measured: one small upload to each server (JIT, first files and folders).
  {
    const warm = path.join(dir, 'warm.bin');
    writeFileSync(warm, randomBytes(32 * MIB));
    await tusUpload(`${cofferUrl}/api/tus/warm.bin?override=false`, warm, { 'X-Auth': token }, 32 * MIB);
    await tusUpload(`http://127.0.0.1:${refPort}/files/`, warm, {}, 32 * MIB);
    await tusUpload(`http://127.0.0.1:${ceilings.tus.port}/files/`, warm, {}, 32 * MIB);
    await tusUpload(`${cofferUrl}/api/public/tus/${dropHash}`, warm, {}, 32 * MIB, { filename: 'warm.bin' });
    rmSync(path.join(root, 'warm.bin'));
    rmSync(path.join(root, 'drop', 'warm.bin'));
  }

  const checked = async (file, what) => {
    if ((await sha256File(file)) !== want) throw new Error(`${what}: wrong bytes`);
    rmSync(file);
  };
  const dropReference = (url) => checked(path.join(store, url.split('/').pop()), 'reference').then(() => rmSync(`${path.join(store, url.split('/').pop())}.json`, { force: true }));
  /** Every measurement: key, label, the server process (none for cp), what to run in round `n`, and the check of its result. */
  const steps = [
    { key: 'ceiling', label: 'ceiling: Node HTTP PUT → server that drops the body', pid: () => ceilings.discard.proc.pid, run: () => plainPost(ceilings.discard.port, '/drop', src, {}, 'PUT') },
    {
      key: 'ceilingFile',
      label: 'ceiling: Node HTTP PUT → minimal Node file writer (pipeline, fsync, rename)',
      pid: () => ceilings.file.proc.pid,
      run: (n) => plainPost(ceilings.file.port, `/put-${n}.bin`, src, {}, 'PUT'),
      check: (n) => checked(path.join(ceilingDir, `put-${n}.bin`), 'minimal writer'),
    },
    { key: 'tusClientCeiling', label: 'ceiling: tus-js-client → tus server that drops the bytes', pid: () => ceilings.tus.proc.pid, run: () => tusUpload(`http://127.0.0.1:${ceilings.tus.port}/files/`, src) },
    {
      key: 'cofferTus',
      label: 'Coffer tus, tus-js-client',
      pid: () => coffer.pid,
      run: (n) => tusUpload(`${cofferUrl}/api/tus/tus-${n}.bin?override=false`, src, { 'X-Auth': token }),
      check: (n) => checked(path.join(root, `tus-${n}.bin`), 'coffer tus'),
    },
    {
      key: 'cofferShareTus',
      label: 'Coffer upload-only share, anonymous, tus-js-client',
      pid: () => coffer.pid,
      run: (n) => tusUpload(`${cofferUrl}/api/public/tus/${dropHash}`, src, {}, undefined, { filename: `share-${n}.bin` }),
      check: (n) => checked(path.join(root, 'drop', `share-${n}.bin`), 'coffer upload share'),
    },
    { key: 'reference', label: '@tus/server + @tus/file-store, tus-js-client', pid: () => ref.proc.pid, run: () => tusUpload(`http://127.0.0.1:${refPort}/files/`, src), check: (_n, url) => dropReference(url) },
    {
      key: 'cofferTusRaw',
      label: 'Coffer tus, minimal client',
      pid: () => coffer.pid,
      run: (n) => rawTus(cofferPort, `/api/tus/raw-${n}.bin?override=false`, { 'X-Auth': token }),
      check: (n) => checked(path.join(root, `raw-${n}.bin`), 'coffer raw tus'),
    },
    { key: 'referenceRaw', label: '@tus/server + @tus/file-store, minimal client', pid: () => ref.proc.pid, run: () => rawTus(refPort, '/files/'), check: (_n, url) => dropReference(url) },
    {
      key: 'cofferPost',
      label: 'Coffer plain POST',
      pid: () => coffer.pid,
      run: (n) => plainPost(cofferPort, `/api/resources/post-${n}.bin?override=false`, src, { 'X-Auth': token }),
      check: (n) => checked(path.join(root, `post-${n}.bin`), 'coffer POST'),
    },
    { key: 'cp', label: 'cp', run: (n) => spawnSync('cp', [src, path.join(dir, `cp-${n}.bin`)]), check: (n) => checked(path.join(dir, `cp-${n}.bin`), 'cp') },
    {
      key: 'cpSync',
      label: 'cp + sync of the file',
      run: (n) => {
        spawnSync('cp', [src, path.join(dir, `cps-${n}.bin`)]);
        spawnSync('sync', [path.join(dir, `cps-${n}.bin`)]);
      },
      check: (n) => checked(path.join(dir, `cps-${n}.bin`), 'cp + sync'),
    },
  ].filter((s) => step(s.key));

  const os = await import('node:os');
  const loadBefore = os.loadavg().map((x) => +x.toFixed(1));
  const results = Object.fromEntries(steps.map((s) => [s.key, []]));
  const gib = SIZE / MIB / 1024;
  for (let run = 1; run <= RUNS; run++) {
    console.log(`-- run ${run} (load average ${os.loadavg()[0].toFixed(1)})`);
    for (const s of steps) {
      let r;
      if (s.pid) {
        r = await withRss(s.pid(), () => timed(() => s.run(run)));
        r = { seconds: r.value.seconds, value: r.value.value, rss: r, serverCpu: r.serverCpu, clientCpu: r.clientCpu };
      } else {
        const c0 = cpuSeconds('self-children');
        r = await timed(async () => s.run(run));
        r.clientCpu = cpuSeconds('self-children') - c0; // cp and sync themselves
      }
      await s.check?.(run, r.value);
      const mibs = SIZE / MIB / r.seconds;
      results[s.key].push({ mibs, rssBefore: r.rss?.before, rssMax: r.rss?.max, serverCpu: r.serverCpu, clientCpu: r.clientCpu });
      const cpu = `, CPU s/GiB: ${r.serverCpu !== undefined ? `server ${(r.serverCpu / gib).toFixed(2)}, ` : ''}client ${(r.clientCpu / gib).toFixed(2)}`;
      const rss = r.rss ? `, server RSS ${(r.rss.before / MIB).toFixed(0)} → max ${(r.rss.max / MIB).toFixed(0)} MiB` : '';
      console.log(`${s.label}: ${mibs.toFixed(0)} MiB/s (${r.seconds.toFixed(2)} s)${cpu}${rss}`);
    }
  }
  const median = (v) => {
    const d = v.filter((x) => x !== undefined).sort((a, b) => a - b);
    return d.length ? d[Math.floor(d.length / 2)] : NaN;
  };
  const med = (key, field) => median((results[key] ?? []).map((x) => x[field]));
  const summary = {
    date: new Date().toISOString(),
    node: process.version,
    sizeMiB: SIZE / MIB,
    chunkMiB: CHUNK / MIB,
    runs: RUNS,
    loadAverage: { before: loadBefore, after: os.loadavg().map((x) => +x.toFixed(1)) },
    medianMiBs: Object.fromEntries(steps.map((s) => [s.key, Math.round(med(s.key, 'mibs'))])),
    serverCpuSecondsPerGiB: Object.fromEntries(steps.filter((s) => s.pid).map((s) => [s.key, +(med(s.key, 'serverCpu') / gib).toFixed(2)])),
    clientCpuSecondsPerGiB: Object.fromEntries(steps.map((s) => [s.key, +(med(s.key, 'clientCpu') / gib).toFixed(2)])),
    maxRssMiB: Object.fromEntries(
      Object.entries(results)
        .filter(([, v]) => v.length && v[0].rssMax !== undefined)
        .map(([k, v]) => [k, Math.round(Math.max(...v.map((x) => x.rssMax)) / MIB)]),
    ),
  };
  const m = summary.medianMiBs;
  const ratio = (a, b) => +(a / b).toFixed(2);
  summary.ratios = {
    tusVsReference: ratio(m.cofferTus, m.reference),
    uploadShareVsTus: ratio(m.cofferShareTus, m.cofferTus),
    tusVsCp: ratio(m.cofferTus, m.cp),
    tusRawVsCp: ratio(m.cofferTusRaw, m.cp),
    postVsCp: ratio(m.cofferPost, m.cp),
    tusVsCpSync: ratio(m.cofferTus, m.cpSync),
    postVsCpSync: ratio(m.cofferPost, m.cpSync),
    ceilingVsCp: ratio(m.ceiling, m.cp),
    ceilingFileVsCp: ratio(m.ceilingFile, m.cp),
    tusVsTusClientCeiling: ratio(m.cofferTus, m.tusClientCeiling),
    tusRawVsCeilingFile: ratio(m.cofferTusRaw, m.ceilingFile),
    postVsCeilingFile: ratio(m.cofferPost, m.ceilingFile),
  };
  console.log(JSON.stringify(summary, null, 2));
  const out = path.join(repo, 'bench/results');
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'upload.json'), JSON.stringify(summary, null, 2) + '\n');
} finally {
  await cleanup();
}
