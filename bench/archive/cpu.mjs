// CPU time, not wall time: what one tar.gz download of the bench folder costs Coffer's threads
// (user + system from /proc/<pid>/task/*/stat, by thread name) against `tar czf` of the same
// folder (/usr/bin/time). Steadier than wall time on a loaded machine.
//
//   node bench/archive/cpu.mjs [--runs 3] [--algo targz]   (after `npm run build`; Linux)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { median, startCoffer, timedGet, waitForIndex } from '../download/common.mjs';
import { makeTree } from './tree.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const RUNS = Number(arg('runs', 3));
const ALGO = arg('algo', 'targz');
const TICK = 100; // clock ticks per second (USER_HZ on Linux)

/** CPU ms per thread name of process `pid`. */
function threads(pid) {
  const out = {};
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try {
      const s = readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8');
      const name = s.slice(s.indexOf('(') + 1, s.lastIndexOf(')'));
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      out[`${name}#${t}`] = ((Number(f[11]) + Number(f[12])) * 1000) / TICK;
    } catch {
      // The thread ended between readdir and read.
    }
  }
  return out;
}

const dir = mkdtempSync(path.join(tmpdir(), 'coffer-bench-cpu-'));
const root = path.join(dir, 'root');
makeTree(root, 'small', 100);
let coffer;
try {
  const tool = [];
  for (let r = 0; r < RUNS; r++) {
    const out = path.join(dir, ALGO === 'zip' ? `o${r}.zip` : 'o.tgz');
    const args = ALGO === 'zip' ? ['zip', '-q', '-r', out, 'small'] : ['tar', 'czf', out, 'small'];
    const res = spawnSync('/usr/bin/time', ['-f', '%U %S %e', ...args], { cwd: root, encoding: 'utf8' });
    const [u, s, e] = res.stderr.trim().split('\n').pop().split(' ').map(Number);
    tool.push({ cpu: (u + s) * 1000, wall: e * 1000 });
  }
  coffer = await startCoffer(dir, root);
  await waitForIndex(coffer.port, coffer.token);
  const headers = { 'X-Auth': coffer.token };
  await timedGet(coffer.port, `/api/raw/small?algo=${ALGO}`, headers);
  const runs = [];
  for (let r = 0; r < RUNS; r++) {
    const before = threads(coffer.pid);
    const res = await timedGet(coffer.port, `/api/raw/small?algo=${ALGO}`, headers);
    const after = threads(coffer.pid);
    const by = {};
    let total = 0;
    for (const [k, v] of Object.entries(after)) {
      const d = v - (before[k] ?? 0);
      if (d <= 0) continue;
      const name = k.endsWith(`#${coffer.pid}`) ? 'main' : k;
      by[name] = (by[name] ?? 0) + d;
      total += d;
    }
    runs.push({ total, wall: res.totalMs, by });
  }
  const toolCpu = median(tool.map((t) => t.cpu));
  const cofferCpu = median(runs.map((r) => r.total));
  console.log(`cpu ${ALGO}: load ${loadavg()[0].toFixed(1)}; tool cpu ${toolCpu.toFixed(0)} ms (wall ${median(tool.map((t) => t.wall)).toFixed(0)}); Coffer cpu ${cofferCpu.toFixed(0)} ms (wall ${median(runs.map((r) => r.wall)).toFixed(0)}); × ${(cofferCpu / toolCpu).toFixed(2)}`);
  for (const r of runs) console.log(JSON.stringify(Object.fromEntries(Object.entries(r.by).map(([k, v]) => [k, Math.round(v)]))));
} finally {
  await coffer?.stop();
  rmSync(dir, { recursive: true, force: true });
}
