// CPU accounting for `run.mjs --workers`: what each process (the primary, every worker, wrk) and
// the whole box spent during a steady window of a wrk run, from /proc (Linux only). Used to tell
// whether two workers are both busy and what the two cores can give at most.
import { readFileSync, readdirSync } from 'node:fs';

const TICK_S = 0.01; // USER_HZ is 100 on Linux (getconf CLK_TCK)

/** utime + stime of a process (all its threads), in seconds; 0 once it is gone. */
export function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name (which may hold spaces) start after the last ')'.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * TICK_S; // fields 14 and 15 of proc(5)
  } catch {
    return 0;
  }
}

/** Per thread of a process: name → CPU seconds (threads of the same name summed). */
export function threadSeconds(pid) {
  const out = {};
  let tids = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const key = tid === String(pid) ? 'main' : name;
      out[key] = (out[key] ?? 0) + (Number(f[11]) + Number(f[12])) * TICK_S;
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

/** The direct children of a process (the workers of a cluster primary). */
export function childrenOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** The whole box from /proc/stat: busy, softirq and total CPU seconds since boot (all cores). */
export function boxSeconds() {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal
  const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = f[3] + f[4];
  return { busy: (total - idle) * TICK_S, softirq: f[6] * TICK_S, total: total * TICK_S };
}

/** A snapshot of the processes of interest and the box; diff two with `since`. */
export function snapshot(pids) {
  return {
    at: performance.now(),
    box: boxSeconds(),
    procs: Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSeconds(pid)])),
    threads: Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, threadSeconds(pid)])),
  };
}

/** CPU used between two snapshots, as cores (CPU seconds per wall second). */
export function since(a, b) {
  const wall = (b.at - a.at) / 1000;
  const cores = (x, y) => (y - x) / wall;
  const threads = {};
  for (const name of Object.keys(b.threads)) {
    threads[name] = {};
    for (const [t, s] of Object.entries(b.threads[name])) threads[name][t] = cores(a.threads[name]?.[t] ?? 0, s);
  }
  return {
    wall,
    box: { busy: cores(a.box.busy, b.box.busy), softirq: cores(a.box.softirq, b.box.softirq), capacity: cores(a.box.total, b.box.total) },
    procs: Object.fromEntries(Object.keys(b.procs).map((n) => [n, cores(a.procs[n], b.procs[n])])),
    threads,
  };
}
