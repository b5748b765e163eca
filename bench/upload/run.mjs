// Upload throughput: 1 GiB through Coffer's tus endpoint (tus-js-client, 10 MiB chunks, one
// connection: File Browser's client settings), through a plain POST /api/resources, through
// @tus/server + @tus/file-store (same client, same chunk size, same disk), and `cp` of the same
// file (also followed by `sync` of it, since Coffer fsyncs every chunk as api.md §14 asks). A
// minimal tus client (one PATCH per chunk streamed from the file) runs against both servers too,
// to show the servers apart from tus-js-client's own cost. Each measurement starts after a global
// `sync`; the summary gives medians. Server RSS is sampled from /proc every 50 ms. Every upload is
// checked by sha256.
//
//   node bench/upload/run.mjs [--mib 1024] [--chunk-mib 10] [--runs 2]   (after `npm run build`)
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

/** Samples a process's resident set from /proc while `fn` runs. */
async function withRss(pid, fn) {
  const read = () => {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  };
  const before = read();
  let max = before;
  const timer = setInterval(() => (max = Math.max(max, read())), 50);
  try {
    const value = await fn();
    return { value, before, max };
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

function tusUpload(endpoint, file, headers = {}, uploadSize = undefined) {
  return new Promise((resolve, reject) => {
    const up = new tus.Upload(createReadStream(file), {
      endpoint,
      uploadSize,
      chunkSize: CHUNK,
      retryDelays: [0, 1000, 2000, 4000, 8000],
      parallelUploads: 1,
      storeFingerprintForResuming: false,
      headers,
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

function plainPost(port, urlPath, file, token) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: 'POST', path: urlPath, headers: { 'X-Auth': token, 'Content-Type': 'application/octet-stream', 'Content-Length': SIZE } },
      (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`POST answered ${res.statusCode}`))));
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

  // @tus/server + @tus/file-store, as its own process, store on the same disk.
  const refPort = await freePort();
  const store = path.join(dir, 'tus-store');
  mkdirSync(store);
  const ref = startProcess([path.join(repo, 'bench/upload/tus-reference.mjs'), String(refPort), store]);
  children.push(ref.proc);
  await ref.ready;

  // Warm-up, not measured: one small upload to each server (JIT, first files and folders).
  {
    const warm = path.join(dir, 'warm.bin');
    writeFileSync(warm, randomBytes(32 * MIB));
    await tusUpload(`${cofferUrl}/api/tus/warm.bin?override=false`, warm, { 'X-Auth': token }, 32 * MIB);
    await tusUpload(`http://127.0.0.1:${refPort}/files/`, warm, {}, 32 * MIB);
    rmSync(path.join(root, 'warm.bin'));
  }

  const results = { cofferTus: [], reference: [], cofferTusRaw: [], referenceRaw: [], cofferPost: [], cp: [], cpSync: [] };
  const record = (list, name, r) => {
    list.push({ mibs: SIZE / MIB / r.seconds, rssBefore: r.rss?.before, rssMax: r.rss?.max });
    const rss = r.rss ? `, server RSS ${(r.rss.before / MIB).toFixed(0)} → max ${(r.rss.max / MIB).toFixed(0)} MiB` : '';
    console.log(`${name}: ${(SIZE / MIB / r.seconds).toFixed(0)} MiB/s (${r.seconds.toFixed(2)} s)${rss}`);
  };
  for (let run = 1; run <= RUNS; run++) {
    console.log(`-- run ${run}`);
    if (step('cofferTus')) {
      const target = path.join(root, `tus-${run}.bin`);
      const rss = await withRss(coffer.pid, () => timed(() => tusUpload(`${cofferUrl}/api/tus/tus-${run}.bin?override=false`, src, { 'X-Auth': token })));
      if ((await sha256File(target)) !== want) throw new Error('coffer tus: wrong bytes');
      record(results.cofferTus, 'Coffer tus', { seconds: rss.value.seconds, rss });
      rmSync(target);
    }
    if (step('reference')) {
      const url = await (async () => {
        const rss = await withRss(ref.proc.pid, () => timed(() => tusUpload(`http://127.0.0.1:${refPort}/files/`, src)));
        record(results.reference, '@tus/server + @tus/file-store', { seconds: rss.value.seconds, rss });
        return rss.value.value;
      })();
      const id = url.split('/').pop();
      if ((await sha256File(path.join(store, id))) !== want) throw new Error('reference: wrong bytes');
      rmSync(path.join(store, id), { force: true });
      rmSync(path.join(store, `${id}.json`), { force: true });
    }
    if (step('cofferTusRaw')) {
      const target = path.join(root, `raw-${run}.bin`);
      const rss = await withRss(coffer.pid, () => timed(() => rawTus(cofferPort, `/api/tus/raw-${run}.bin?override=false`, { 'X-Auth': token })));
      if ((await sha256File(target)) !== want) throw new Error('coffer raw tus: wrong bytes');
      record(results.cofferTusRaw, 'Coffer tus, minimal client', { seconds: rss.value.seconds, rss });
      rmSync(target);
    }
    if (step('referenceRaw')) {
      const rss = await withRss(ref.proc.pid, () => timed(() => rawTus(refPort, '/files/')));
      record(results.referenceRaw, '@tus/server + @tus/file-store, minimal client', { seconds: rss.value.seconds, rss });
      const id = rss.value.value.split('/').pop();
      if ((await sha256File(path.join(store, id))) !== want) throw new Error('reference raw: wrong bytes');
      rmSync(path.join(store, id), { force: true });
      rmSync(path.join(store, `${id}.json`), { force: true });
    }
    if (step('cofferPost')) {
      const target = path.join(root, `post-${run}.bin`);
      const rss = await withRss(coffer.pid, () => timed(() => plainPost(cofferPort, `/api/resources/post-${run}.bin?override=false`, src, token)));
      if ((await sha256File(target)) !== want) throw new Error('coffer POST: wrong bytes');
      record(results.cofferPost, 'Coffer plain POST', { seconds: rss.value.seconds, rss });
      rmSync(target);
    }
    if (step('cp')) {
      const target = path.join(dir, `cp-${run}.bin`);
      const r = await timed(async () => spawnSync('cp', [src, target]));
      if ((await sha256File(target)) !== want) throw new Error('cp: wrong bytes');
      record(results.cp, 'cp', r);
      rmSync(target);
      const r2 = await timed(async () => {
        spawnSync('cp', [src, target]);
        spawnSync('sync', [target]);
      });
      record(results.cpSync, 'cp + sync of the file', r2);
      rmSync(target);
    }
  }
  const best = (list) => {
    if (list.length === 0) return NaN;
    const v = list.map((x) => x.mibs).sort((a, b) => a - b);
    return v[Math.floor(v.length / 2)]; // median
  };
  const summary = {
    date: new Date().toISOString(),
    sizeMiB: SIZE / MIB,
    chunkMiB: CHUNK / MIB,
    runs: RUNS,
    loadAverage: (await import('node:os')).loadavg().map((x) => +x.toFixed(1)),
    medianMiBs: Object.fromEntries(Object.entries(results).map(([k, v]) => [k, Math.round(best(v))])),
    maxRssMiB: Object.fromEntries(
      Object.entries(results)
        .filter(([, v]) => v.length && v[0].rssMax !== undefined)
        .map(([k, v]) => [k, Math.round(Math.max(...v.map((x) => x.rssMax)) / MIB)]),
    ),
  };
  summary.ratios = {
    tusVsReference: +(summary.medianMiBs.cofferTus / summary.medianMiBs.reference).toFixed(2),
    tusVsCp: +(summary.medianMiBs.cofferTus / summary.medianMiBs.cp).toFixed(2),
    tusVsCpSync: +(summary.medianMiBs.cofferTus / summary.medianMiBs.cpSync).toFixed(2),
    postVsReference: +(summary.medianMiBs.cofferPost / summary.medianMiBs.reference).toFixed(2),
    postVsCp: +(summary.medianMiBs.cofferPost / summary.medianMiBs.cp).toFixed(2),
    postVsCpSync: +(summary.medianMiBs.cofferPost / summary.medianMiBs.cpSync).toFixed(2),
  };
  console.log(JSON.stringify(summary, null, 2));
  const out = path.join(repo, 'bench/results');
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'upload.json'), JSON.stringify(summary, null, 2) + '\n');
} finally {
  await cleanup();
}
