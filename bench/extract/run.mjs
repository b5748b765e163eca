// Extraction: a ZIP of 10,000 small files (the bench/archive tree: 100 folders × 100 files of
// 200–4000 bytes) extracted by Coffer as a job (POST /api/extract, polled until done) against
// `unzip -q` of the same archive in the same run. Goal: Coffer ≤ 1.5× unzip.
//
//   node bench/extract/run.mjs [--runs 3]   (after `npm run build`; needs zip and unzip)
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fmt, median, request, startCoffer, waitForIndex } from '../download/common.mjs';
import { makeTree } from '../archive/tree.mjs';

const i = process.argv.indexOf('--runs');
const POLL_MS = 100;
const RUNS = i > 0 ? Number(process.argv[i + 1]) : 3;
const dir = mkdtempSync(path.join(tmpdir(), 'coffer-bench-extract-'));
const root = path.join(dir, 'root');
const src = path.join(dir, 'src');
makeTree(src, 'small', 100);
mkdirSync(root, { recursive: true });
execFileSync('zip', ['-q', '-r', path.join(root, 'small.zip'), 'small'], { cwd: src });

let coffer;
try {
  const load = loadavg()[0];
  coffer = await startCoffer(dir, root, ['--jobs-per-user', '0']);
  await waitForIndex(coffer.port, coffer.token);
  const headers = { 'X-Auth': coffer.token, 'Content-Type': 'application/json' };
  const unzipMs = [];
  const cofferMs = [];
  const jobMs = [];
  // unzip and Coffer in turns: creating 10,000 files on this disk swings between runs (unzip once
  // took 0.9 s and 2.3–2.5 s in the others of the same minutes), so each pair sees the same disk.
  for (let r = 0; r < RUNS; r++) {
    const out = path.join(dir, `unzip-${r}`);
    const u0 = performance.now();
    execFileSync('unzip', ['-q', path.join(root, 'small.zip'), '-d', out], { stdio: ['ignore', 'ignore', 'inherit'] });
    unzipMs.push(performance.now() - u0);
    rmSync(out, { recursive: true, force: true });

    mkdirSync(path.join(root, `out-${r}`));
    const t0 = performance.now();
    const started = await request(coffer.port, 'POST', '/api/extract/small.zip', JSON.stringify({ destination: `/out-${r}` }), headers);
    if (started.status !== 202) throw new Error(`extract: ${started.status} ${started.body}`);
    const { id } = JSON.parse(started.body.toString());
    for (;;) {
      const job = JSON.parse((await request(coffer.port, 'GET', `/api/jobs/${id}`, undefined, headers)).body.toString());
      if (job.state === 'done') {
        jobMs.push(Date.parse(job.finished) - Date.parse(job.created));
        break;
      }
      if (job.state !== 'running' && job.state !== 'queued') throw new Error(`job ${job.state}: ${job.error}`);
      await new Promise((res) => setTimeout(res, POLL_MS));
    }
    cofferMs.push(performance.now() - t0);
    rmSync(path.join(root, `out-${r}`), { recursive: true, force: true });
  }
  const u = median(unzipMs);
  const c = median(cofferMs);
  console.log(`extract: ${cpus().length} CPUs, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}, load average ${fmt(load, 1)} → ${fmt(loadavg()[0], 1)}, median of ${RUNS}`);
  console.log(`| archive | unzip -q | Coffer (job, polled every ${POLL_MS} ms) | × unzip | the job's own created → finished |`);
  console.log('|---|---|---|---|---|');
  console.log(`| zip, 10,000 files | ${fmt(u, 0)} ms | ${fmt(c, 0)} ms | ${fmt(c / u, 2)} | ${fmt(median(jobMs), 0)} ms |`);
  console.log(`goal (≤ 1.5× unzip): ${c <= 1.5 * u ? 'met' : 'MISSED'}`);
} finally {
  await coffer?.stop();
  rmSync(dir, { recursive: true, force: true });
}
