// CPU time, not wall time: what one extraction of the bench's zip (10,000 small files) costs
// Coffer's threads (user + system from /proc/<pid>/task/*/stat; "main" is the event loop) against
// `unzip -q` of the same archive (/usr/bin/time). Steadier than wall time on a loaded machine.
//
//   node bench/extract/cpu.mjs [--runs 3]   (after `npm run build`; Linux; needs zip and unzip)
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { median, request, startCoffer, waitForIndex } from '../download/common.mjs';
import { makeTree } from '../archive/tree.mjs';

const i = process.argv.indexOf('--runs');
const RUNS = i > 0 ? Number(process.argv[i + 1]) : 3;
const TICK = 100; // clock ticks per second (USER_HZ on Linux)

/** CPU ms per thread of process `pid` ("main" for the event loop). */
function threads(pid) {
  const out = {};
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try {
      const s = readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8');
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      out[t === String(pid) ? 'main' : `t${t}`] = ((Number(f[11]) + Number(f[12])) * 1000) / TICK;
    } catch {
      // The thread ended between readdir and read.
    }
  }
  return out;
}

const dir = mkdtempSync(path.join(tmpdir(), 'coffer-bench-xcpu-'));
const root = path.join(dir, 'root');
const src = path.join(dir, 'src');
makeTree(src, 'small', 100);
mkdirSync(root, { recursive: true });
execFileSync('zip', ['-q', '-r', path.join(root, 'small.zip'), 'small'], { cwd: src });
let coffer;
try {
  const load0 = loadavg()[0];
  const tool = [];
  for (let r = 0; r < RUNS; r++) {
    const out = path.join(dir, `unzip-${r}`);
    const res = spawnSync('/usr/bin/time', ['-f', '%U %S %e', 'unzip', '-q', path.join(root, 'small.zip'), '-d', out], { encoding: 'utf8' });
    const [u, s, e] = res.stderr.trim().split('\n').pop().split(' ').map(Number);
    tool.push({ cpu: (u + s) * 1000, wall: e * 1000 });
    rmSync(out, { recursive: true, force: true });
  }
  coffer = await startCoffer(dir, root, ['--jobs-per-user', '0']);
  await waitForIndex(coffer.port, coffer.token);
  const headers = { 'X-Auth': coffer.token, 'Content-Type': 'application/json' };
  const runs = [];
  for (let r = 0; r < RUNS + 1; r++) {
    mkdirSync(path.join(root, `out-${r}`));
    const before = threads(coffer.pid);
    const t0 = performance.now();
    const started = await request(coffer.port, 'POST', '/api/extract/small.zip', JSON.stringify({ destination: `/out-${r}` }), headers);
    if (started.status !== 202) throw new Error(`extract: ${started.status} ${started.body}`);
    const { id } = JSON.parse(started.body.toString());
    for (;;) {
      const job = JSON.parse((await request(coffer.port, 'GET', `/api/jobs/${id}`, undefined, headers)).body.toString());
      if (job.state === 'done') break;
      if (job.state !== 'running' && job.state !== 'queued') throw new Error(`job ${job.state}: ${job.error}`);
      await new Promise((res) => setTimeout(res, 100));
    }
    const wall = performance.now() - t0;
    const after = threads(coffer.pid);
    const by = {};
    let total = 0;
    for (const [k, v] of Object.entries(after)) {
      const d = v - (before[k] ?? 0);
      if (d <= 0) continue;
      by[k] = Math.round(d);
      total += d;
    }
    // The first run warms the server up (modules, workers): not counted.
    if (r > 0) runs.push({ total, wall, by });
    rmSync(path.join(root, `out-${r}`), { recursive: true, force: true });
  }
  const toolCpu = median(tool.map((t) => t.cpu));
  const cofferCpu = median(runs.map((r) => r.total));
  console.log(
    `extract cpu: load ${load0.toFixed(1)} → ${loadavg()[0].toFixed(1)}; unzip cpu ${toolCpu.toFixed(0)} ms (wall ${median(tool.map((t) => t.wall)).toFixed(0)}); ` +
      `Coffer cpu ${cofferCpu.toFixed(0)} ms (wall ${median(runs.map((r) => r.wall)).toFixed(0)}, main ${median(runs.map((r) => r.by.main ?? 0)).toFixed(0)}); × ${(cofferCpu / toolCpu).toFixed(2)}`,
  );
  for (const r of runs) console.log(JSON.stringify(r.by));
} finally {
  await coffer?.stop();
  rmSync(dir, { recursive: true, force: true });
}
