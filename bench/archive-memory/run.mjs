// Memory per archive download: how much one running archive holds in the server, for every
// format, so that the defaults of --archive-downloads-per-user and --archive-downloads
// (docs/configuration.md) rest on numbers.
//
// For each format and each of two client kinds, a fresh server: one warm-up download of 2 s, then
// N downloads at once for a few seconds, the server's RSS sampled before and during them; (peak −
// before) / N is the cost of one. "reading" clients read as fast as the archive comes (a burst of
// downloads); "stalled" clients read the head and stop (TCP backpressure holds each archive with
// its buffers full). The limits are switched off for the run (0).
//
//   node bench/archive-memory/run.mjs [--clients 8] [--hold 4]   (after `npm run build`)
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { fmt, sampleRss, startCoffer } from '../download/common.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const CLIENTS = arg('clients', 8);
const HOLD_S = arg('hold', 4);
const FORMATS = ['zip', 'tar', 'targz', 'tarbz2', 'tarxz', 'tarlz4', 'tarsz', 'tarbr', 'tarzst'];

// 2,000 small text files (the read-ahead fills up) and four 16 MiB files of random bytes.
const dir = mkdtempSync(path.join(tmpdir(), 'coffer-bench-archive-memory-'));
const root = path.join(dir, 'root');
const words = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor '.repeat(60);
for (let d = 0; d < 20; d++) {
  const sub = path.join(root, 'tree', `d${d}`);
  mkdirSync(sub, { recursive: true });
  for (let f = 0; f < 100; f++) writeFileSync(path.join(sub, `f${f}.txt`), words.slice(0, 1000 + ((d * 100 + f) * 37) % 3000));
}
for (let i = 0; i < 4; i++) writeFileSync(path.join(root, 'tree', `big${i}.bin`), randomBytes(16 * 1024 * 1024));

/** A download; its client reads everything, or stops after the head. Resolves once the head arrived. */
function open(port, urlPath, headers, reading) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: urlPath, headers }, (res) => {
      if (reading) res.resume();
      else res.pause();
      resolve({ status: res.statusCode, close: () => req.destroy() });
    });
    req.on('error', (err) => (err.code === 'ECONNRESET' ? undefined : reject(err)));
    req.end();
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Peak RSS over `before` while `clients` downloads of `algo` run, on a fresh server. */
async function measure(algo, reading) {
  const coffer = await startCoffer(dir, root, ['--archive-downloads', '0', '--archive-downloads-per-user', '0']);
  try {
    const headers = { 'X-Auth': coffer.token };
    const url = `/api/raw/tree?algo=${algo}`;
    const warm = await open(coffer.port, url, headers, true);
    if (warm.status !== 200) throw new Error(`${algo}: ${warm.status}`);
    await sleep(2000);
    warm.close();
    await sleep(1500);
    const sampler = sampleRss(coffer.pid);
    const held = await Promise.all(Array.from({ length: CLIENTS }, () => open(coffer.port, url, headers, reading)));
    if (held.some((h) => h.status !== 200)) throw new Error(`${algo}: not every download started`);
    await sleep(HOLD_S * 1000);
    const mem = sampler.stop();
    for (const h of held) h.close();
    return mem;
  } finally {
    await coffer.stop();
  }
}

try {
  const rows = [];
  for (const algo of FORMATS) rows.push({ algo, reading: await measure(algo, true), stalled: await measure(algo, false) });
  console.log(`archive memory: ${cpus().length} CPUs, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${CLIENTS} downloads at once for ${HOLD_S} s`);
  console.log('| algo | reading: RSS before → peak | per download | stalled: RSS before → peak | per download |');
  console.log('|---|---|---|---|---|');
  const per = (m) => fmt((m.peakMiB - m.baseMiB) / CLIENTS, 1);
  for (const r of rows) {
    console.log(`| ${r.algo} | ${fmt(r.reading.baseMiB, 0)} → ${fmt(r.reading.peakMiB, 0)} MiB | ${per(r.reading)} MiB | ${fmt(r.stalled.baseMiB, 0)} → ${fmt(r.stalled.peakMiB, 0)} MiB | ${per(r.stalled)} MiB |`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
