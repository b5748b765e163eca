// The file index over a generated tree of ~1,000,000 entries (docs/api.md §24): the cold build
// (time, peak RSS of the server, /health latency meanwhile), a name query's complete answer from
// the index against `find -iname` and against the walk (--disable-index) on the same tree in the
// same run, and what folder sizes add to a listing of 10,000 subfolders.
// Goals: build ≤ 90 s, peak RSS ≤ 400 MB, /health p99 < 50 ms during the build; query ≤ 50 ms
// median; folder sizes add ≤ 50 ms.
//
//   [COFFER_BENCH_DIR=/dev/shm] node bench/index/run.mjs [--runs 5] [--keep] [--build-only] [--bin <coffer.js>]
//   (after `npm run build`; --keep keeps the tree for the next run; --build-only stops after the
//   cold build; --bin builds with another build's server/bin/coffer.js, e.g. a copy of the previous
//   one, to take before and after in turns)
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, ftruncateSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fmt, get, median, sampleRss, startCoffer, timedGet } from '../download/common.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const RUNS = arg('runs', 5);
const KEEP = process.argv.includes('--keep');
const BUILD_ONLY = process.argv.includes('--build-only');
const bi = process.argv.indexOf('--bin');
const BIN = bi > 0 ? path.resolve(process.argv[bi + 1]) : undefined;
const TOP = 98;
const SUB = 100;
const FILES = 100;
const WIDE = 10_000;
const WORDS = Array.from({ length: 50 }, (_, i) => (i === 17 ? 'Report' : `word${i}`));

// --- the tree (not timed) ---
// The tree's folder: COFFER_BENCH_DIR (e.g. /dev/shm: a million files are made in seconds on
// tmpfs, in minutes on a busy disk), else the temp folder.
const base = process.env.COFFER_BENCH_DIR || tmpdir();
const treeDir = KEEP ? path.join(base, 'coffer-bench-index-tree') : mkdtempSync(path.join(base, 'coffer-bench-index-'));
const root = path.join(treeDir, 'root');
const made = path.join(treeDir, 'complete');
let entries = 0;
if (!existsSync(made)) {
  const t0 = performance.now();
  rmSync(root, { recursive: true, force: true });
  let n = 0;
  const file = (p, size) => {
    const fd = openSync(p, 'w');
    if (size) ftruncateSync(fd, size);
    closeSync(fd);
  };
  for (let t = 0; t < TOP; t++) {
    for (let s = 0; s < SUB; s++) {
      const d = path.join(root, 'tree', `top-${t}`, `sub-${s}`);
      mkdirSync(d, { recursive: true });
      for (let f = 0; f < FILES; f++, n++) {
        // One name in 10,000 holds "Zebra": the selective query.
        const word = n % 10_000 === 1234 ? 'Zebra' : WORDS[(t * 7 + s * 3 + f) % WORDS.length];
        file(path.join(d, `item-${f}-${word}.dat`), (n % 97) * 10);
      }
    }
  }
  for (let w = 0; w < WIDE; w++) {
    const d = path.join(root, 'wide', `folder-${w}`);
    mkdirSync(d, { recursive: true });
    file(path.join(d, 'content.bin'), 100 + w);
  }
  writeFileSync(made, '');
  console.error(`tree made in ${fmt((performance.now() - t0) / 1000, 0)} s`);
}
entries = 2 + TOP + TOP * SUB + TOP * SUB * FILES + 1 + 2 * WIDE;

function timedSearch(port, token, from, query) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.request({ host: '127.0.0.1', port, path: `/api/search${from}?query=${encodeURIComponent(query)}`, headers: { 'X-Auth': token } }, (res) => {
      let lines = 0;
      res.setEncoding('utf8');
      res.on('data', (c) => {
        for (const l of c.split('\n')) if (l.startsWith('{')) lines++;
      });
      res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - t0, lines }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const p99 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))];

let indexed;
let walked;
const dbDirs = [mkdtempSync(path.join(tmpdir(), 'coffer-bench-index-db-')), mkdtempSync(path.join(tmpdir(), 'coffer-bench-index-db-'))];
try {
  execFileSync('find', [root], { stdio: 'ignore' }); // warm the dentry cache
  const load = loadavg().map((l) => l.toFixed(1)).join(' ');

  // The walk's server first (idle during the build; a start beside a build can outlast the wait).
  if (!BUILD_ONLY) walked = await startCoffer(dbDirs[1], root, ['--disable-index']);

  // --- cold build ---
  const t0 = performance.now();
  indexed = await startCoffer(dbDirs[0], root, [], BIN);
  const rss = sampleRss(indexed.pid, 50);
  const health = [];
  let status;
  let polling = true;
  const healthLoop = (async () => {
    while (polling) {
      const r = await timedGet(indexed.port, '/health');
      health.push(r.totalMs);
      await new Promise((res) => setTimeout(res, 20));
    }
  })();
  for (;;) {
    const r = await get(indexed.port, '/api/index', { 'X-Auth': indexed.token });
    status = JSON.parse(r.body.toString());
    if (status.status === 'ready') break;
    if (performance.now() - t0 > 600_000) throw new Error('the index was not ready within 10 minutes');
    await new Promise((res) => setTimeout(res, 200));
  }
  const buildS = (performance.now() - t0) / 1000;
  polling = false;
  await healthLoop;
  const { peakMiB } = rss.stop();
  const healthP99 = p99(health);
  const peakMB = (peakMiB * 1024 * 1024) / 1e6;
  const healthMax = Math.max(...health);
  console.error(`build: ${fmt(buildS, 1)} s, ${status.entries} entries, peak RSS ${fmt(peakMB, 0)} MB, /health p99 ${fmt(healthP99, 1)} ms, max ${fmt(healthMax, 1)} ms (${health.length})`);
  if (BUILD_ONLY) {
    console.log(`index --build-only${BIN ? ` (${BIN})` : ''}: load average at start ${load}, at end ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    console.log(`| build ${fmt(buildS, 1)} s | peak RSS ${fmt(peakMB, 0)} MB | /health p50 ${fmt(median(health), 1)} ms, p99 ${fmt(healthP99, 1)} ms, max ${fmt(healthMax, 1)} ms (${health.length}) |`);
    process.exitCode = buildS <= 90 && peakMB <= 400 && healthP99 < 50 ? 0 : 1;
  } else {

  // --- name query: index, walk, find ---
  const QUERY = 'zebra';
  const findTimes = [];
  let findCount = 0;
  for (let r = 0; r < RUNS; r++) {
    const s = performance.now();
    const out = execFileSync('find', [root, '-mindepth', '1', '-iname', `*${QUERY}*`], { maxBuffer: 64 << 20 }).toString();
    findTimes.push(performance.now() - s);
    findCount = out.split('\n').filter(Boolean).length;
  }
  await timedSearch(indexed.port, indexed.token, '/', QUERY);
  const fromIndex = [];
  for (let r = 0; r < RUNS; r++) fromIndex.push(await timedSearch(indexed.port, indexed.token, '/', QUERY));
  const fromWalk = [];
  for (let r = 0; r < Math.min(RUNS, 3); r++) fromWalk.push(await timedSearch(walked.port, walked.token, '/', QUERY));
  for (const r of [...fromIndex, ...fromWalk]) if (r.status !== 200 || r.lines !== findCount) throw new Error(`result counts differ: find ${findCount}, Coffer ${r.lines}`);
  const broad = await timedSearch(indexed.port, indexed.token, '/', 'report');

  // --- folder sizes on a listing of 10,000 subfolders ---
  const list = async (srv) => {
    await timedGet(srv.port, '/api/resources/wide/', { 'X-Auth': srv.token });
    const times = [];
    for (let r = 0; r < RUNS; r++) times.push((await timedGet(srv.port, '/api/resources/wide/', { 'X-Auth': srv.token })).totalMs);
    return median(times);
  };
  const sized = JSON.parse((await get(indexed.port, '/api/resources/wide/', { 'X-Auth': indexed.token })).body.toString());
  if (sized.items.filter((i) => typeof i.folderSize === 'number').length !== WIDE) throw new Error('the listing lacks folder sizes');
  const withSizes = await list(indexed);
  const without = await list(walked);

  const indexMs = median(fromIndex.map((r) => r.ms));
  const walkMs = median(fromWalk.map((r) => r.ms));
  const findMs = median(findTimes);
  console.log(`index: ${cpus().length} CPUs, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${entries.toLocaleString('en')} entries, load average at start ${load}, at end ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log('| measure | value | goal |');
  console.log('|---|---|---|');
  console.log(`| cold build (start → ready) | ${fmt(buildS, 1)} s (${status.entries.toLocaleString('en')} entries) | ≤ 90 s |`);
  console.log(`| peak RSS of the server during the build | ${fmt(peakMB, 0)} MB | ≤ 400 MB |`);
  console.log(`| /health p99 during the build (${health.length} requests) | ${fmt(healthP99, 1)} ms | < 50 ms |`);
  console.log(`| "${QUERY}" (${findCount} matches), complete answer from the index, median of ${RUNS} | ${fmt(indexMs, 1)} ms | ≤ 50 ms |`);
  console.log(`| same query, find -iname | ${fmt(findMs, 0)} ms | |`);
  console.log(`| same query, the walk (--disable-index) | ${fmt(walkMs, 0)} ms | |`);
  console.log(`| "report" (${broad.lines} matches) from the index | ${fmt(broad.ms, 0)} ms | |`);
  console.log(`| listing of ${WIDE.toLocaleString('en')} subfolders with folder sizes / without | ${fmt(withSizes, 0)} / ${fmt(without, 0)} ms (+${fmt(withSizes - without, 0)} ms) | ≤ +50 ms |`);
  const met = buildS <= 90 && peakMB <= 400 && healthP99 < 50 && indexMs <= 50 && withSizes - without <= 50;
  console.log(`goals: ${met ? 'met' : 'MISSED'}`);
  }
} finally {
  await indexed?.stop();
  await walked?.stop();
  for (const d of dbDirs) rmSync(d, { recursive: true, force: true });
  if (!KEEP) rmSync(treeDir, { recursive: true, force: true });
}
