// Archives: a folder of 10,000 small files (100 folders × 100 files, 200–4000 bytes of text)
// downloaded from Coffer as zip and as tar.gz, against `zip -r` and `tar czf` of the same folder
// in the same run. Goals: first byte ≤ 200 ms; total ≤ 1.5× the tool; RSS flat (the archive is
// never held in memory: peak RSS barely moves, and does not grow with the folder).
//
//   node bench/archive/run.mjs [--runs 3]   (after `npm run build`; needs zip and tar)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fmt, median, sampleRss, startCoffer, timedGet, waitForIndex } from '../download/common.mjs';
import { makeTree } from './tree.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const RUNS = arg('runs', 3);
const dir = mkdtempSync(path.join(tmpdir(), 'coffer-bench-archive-'));
const root = path.join(dir, 'root');
makeTree(root, 'small', 100);
makeTree(root, 'larger', 300); // 30,000 files: RSS must not grow with the count

function timeTool(cmd, args) {
  const times = [];
  for (let r = 0; r < RUNS; r++) {
    const out = path.join(dir, 'out.bin');
    rmSync(out, { force: true });
    const t0 = performance.now();
    execFileSync(cmd, args(out), { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    times.push(performance.now() - t0);
  }
  return median(times);
}

let coffer;
try {
  const zipMs = timeTool('zip', (out) => ['-q', '-r', out, 'small']);
  const tarMs = timeTool('tar', (out) => ['czf', out, 'small']);
  coffer = await startCoffer(dir, root);
  await waitForIndex(coffer.port, coffer.token);
  const headers = { 'X-Auth': coffer.token };
  const rows = [];
  for (const [label, algo, toolMs] of [
    ['zip', 'zip', zipMs],
    ['tar.gz', 'targz', tarMs],
  ]) {
    await timedGet(coffer.port, `/api/raw/small?algo=${algo}`, headers); // warm-up
    const runs = [];
    let rss;
    for (let r = 0; r < RUNS; r++) {
      const sampler = sampleRss(coffer.pid);
      const res = await timedGet(coffer.port, `/api/raw/small?algo=${algo}`, headers);
      const mem = sampler.stop();
      if (res.status !== 200) throw new Error(`${algo}: ${res.status}`);
      runs.push(res);
      rss = rss ?? mem;
      rss.peakMiB = Math.max(rss.peakMiB, mem.peakMiB);
    }
    const sampler = sampleRss(coffer.pid);
    const large = await timedGet(coffer.port, `/api/raw/larger?algo=${algo}`, headers);
    const largeRss = sampler.stop();
    rows.push({
      label,
      toolMs,
      headMs: median(runs.map((r) => r.headMs)),
      firstByteMs: median(runs.map((r) => r.firstByteMs)),
      totalMs: median(runs.map((r) => r.totalMs)),
      mib: runs[0].bytes / 1048576,
      rss,
      large: { totalMs: large.totalMs, rss: largeRss },
    });
  }
  console.log(
    `archive: ${cpus().length} CPUs, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}, load average ${loadavg()[0].toFixed(1)}, median of ${RUNS}`,
  );
  console.log(
    '| format | tool (zip -r / tar czf) | Coffer first byte (head / body) | Coffer total | × tool | size | RSS before → peak (10k files) | 30k files: total, RSS peak |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(
      `| ${r.label} | ${fmt(r.toolMs, 0)} ms | ${fmt(r.headMs)} / ${fmt(r.firstByteMs)} ms | ${fmt(r.totalMs, 0)} ms | ${fmt(r.totalMs / r.toolMs, 2)} | ${fmt(r.mib, 1)} MiB | ${fmt(r.rss.baseMiB, 0)} → ${fmt(r.rss.peakMiB, 0)} MiB | ${fmt(r.large.totalMs, 0)} ms, ${fmt(r.large.rss.peakMiB, 0)} MiB |`,
    );
  }
  const ok = rows.every((r) => r.firstByteMs <= 200 && r.totalMs <= 1.5 * r.toolMs);
  console.log(`goals (first byte ≤ 200 ms, total ≤ 1.5× tool): ${ok ? 'met' : 'MISSED'}`);
} finally {
  await coffer?.stop();
  rmSync(dir, { recursive: true, force: true });
}
