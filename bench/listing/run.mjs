// Folder listing: GET /api/resources/{dir}/ of folders with 10,000 and 100,000 files, answered by
// the built server running as its own process. Measures the time until the whole JSON body has
// arrived and the server's peak RSS growth during the request (the kernel's high-water mark,
// reset before each run through /proc/<pid>/clear_refs). A plain Node readdir + lstat of the same
// folder is timed in this process for reference.
//
//   node bench/listing/run.mjs [--runs 5] [--sizes 10000,100000] [--compare <other coffer.js>]
//   (after `npm run build`). --compare: also another build's server/bin/coffer.js (with its
//   server/dist beside it), started beside this one; the two are measured in turns, run by run.
//
// Goals (issue "Files API"): 10,000 files ≤ 150 ms; 100,000 files ≤ 1.5 s and ≤ 200 MB RSS growth.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import http from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { repo, startCoffer } from '../download/common.mjs';

const argOf = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const RUNS = Number(argOf('runs', '5'));
const SIZES = argOf('sizes', '10000,100000').split(',').map(Number);
const COMPARE = argOf('compare', '') && path.resolve(argOf('compare', ''));
const GOALS = { 10000: { ms: 150 }, 100000: { ms: 1500, rssMb: 200 } };

const bin = path.join(repo, 'server/bin/coffer.js');
for (const b of [bin, COMPARE].filter(Boolean)) {
  if (!existsSync(path.join(path.dirname(b), '../dist/main.js'))) {
    console.error(`${path.dirname(b)}/../dist is missing: run \`npm run build\` first`);
    process.exit(2);
  }
}

function request(port, method, urlPath, { body, headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const h = { ...headers };
    if (body) h['content-length'] = Buffer.byteLength(body);
    const req = http.request(
      { host: '127.0.0.1', port, method, path: urlPath, headers: h, agent: false },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode, ms: performance.now() - t0, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const kb = (field, pid) => {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
};
/** user+system CPU time of a process in ms (all its threads), from /proc/<pid>/stat. */
const cpuMs = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // clock ticks at USER_HZ = 100
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const dir = mkdtempSync(path.join(tmpdir(), 'coffer-bench-listing-'));
const root = path.join(dir, 'root');
console.log(`generating ${SIZES.join(' + ')} files under ${dir} …`);
for (const n of SIZES) {
  const folder = path.join(root, `files-${n}`);
  mkdirSync(folder, { recursive: true });
  const content = Buffer.alloc(0);
  for (let i = 0; i < n; i++) {
    // A mix of extensions and numbered names (natural sort has work to do).
    const ext = ['.txt', '.jpg', '.mp4', '.pdf', '.md', ''][i % 6];
    writeFileSync(path.join(folder, `File ${i}${ext}`), content);
  }
}

/** A built server (`coffer.js`) as its own process on `root`, signed in as the admin. */
async function startServer(name, coffer) {
  const data = path.join(dir, name);
  mkdirSync(data);
  const server = { name, ...(await startCoffer(data, root, ['--log', ''], coffer)) };
  servers.push(server);
  server.headers = { 'X-Auth': server.token };
  // Warm up (worker threads, JIT) on a small folder.
  await request(server.port, 'GET', '/api/resources/', { headers: server.headers });
  return server;
}

/** One listing of `files-n` by `server`: wall time, peak RSS growth (MB), server CPU, body size. */
async function measure(server, n) {
  writeFileSync(`/proc/${server.pid}/clear_refs`, '5'); // reset the peak-RSS mark
  const base = kb('VmRSS', server.pid);
  const cpu0 = cpuMs(server.pid);
  const res = await request(server.port, 'GET', `/api/resources/files-${n}/`, { headers: server.headers });
  const peak = kb('VmHWM', server.pid);
  const cpu = cpuMs(server.pid) - cpu0;
  if (res.status !== 200) throw new Error(`listing answered ${res.status}`);
  const json = JSON.parse(res.body.toString());
  if (json.numFiles !== n || json.items.length !== n)
    throw new Error(`expected ${n} items, got ${json.items.length}`);
  return { ms: res.ms, rss: (peak - base) / 1024, cpu, bytes: res.body.length };
}

const servers = [];
try {
  const measured = [await startServer('coffer', bin)];
  if (COMPARE) measured.push(await startServer('compared', COMPARE));

  const results = [];
  let failed = false;
  for (const n of SIZES) {
    const folder = path.join(root, `files-${n}`);
    const plain = [];
    for (let r = 0; r < Math.min(RUNS, 3); r++) {
      const t0 = performance.now();
      const names = await readdir(folder);
      await Promise.all(names.map((x) => lstat(path.join(folder, x))));
      plain.push(performance.now() - t0);
    }
    const runs = new Map(measured.map((s) => [s, []]));
    // In turns, so that both builds meet the same moments of a shared machine.
    for (let r = 0; r < RUNS; r++) for (const s of measured) runs.get(s).push(await measure(s, n));
    for (const [server, m] of runs) {
      const times = m.map((x) => x.ms);
      const rss = m.map((x) => x.rss);
      const cpu = m.map((x) => x.cpu);
      const bytes = m[0].bytes;
      const row = {
        server: server.name,
        files: n,
        runs: RUNS,
        bodyMB: Number((bytes / 1024 / 1024).toFixed(1)),
        ms: {
          min: Math.round(Math.min(...times)),
          median: Math.round(median(times)),
          max: Math.round(Math.max(...times)),
        },
        rssGrowthMB: { median: Math.round(median(rss)), max: Math.round(Math.max(...rss)) },
        serverCpuMs: Math.round(median(cpu)),
        plainReaddirLstatMs: Math.round(median(plain)),
      };
      const goal = GOALS[n];
      if (
        server.name === 'coffer' &&
        goal &&
        (row.ms.median > goal.ms || (goal.rssMb && row.rssGrowthMB.max > goal.rssMb))
      )
        failed = true;
      results.push(row);
      console.log(
        `  ${measured.length > 1 ? `${server.name.padEnd(8)} ` : ''}${n} files: ${row.ms.median} ms median (min ${row.ms.min}, max ${row.ms.max}), body ${row.bodyMB} MB, peak RSS growth ${row.rssGrowthMB.median} MB median (max ${row.rssGrowthMB.max})` +
          `, server CPU ${row.serverCpuMs} ms (all threads)` +
          `; plain readdir+lstat in Node ${row.plainReaddirLstatMs} ms` +
          (goal ? `  (goal ≤ ${goal.ms} ms${goal.rssMb ? `, ≤ ${goal.rssMb} MB` : ''})` : ''),
      );
    }
  }
  console.log(
    JSON.stringify({
      date: new Date().toISOString().slice(0, 10),
      node: process.version,
      cpus: cpus().length,
      loadavg: loadavg().map((x) => Number(x.toFixed(1))),
      results,
    }),
  );
  if (failed) {
    console.log('goal missed');
    process.exitCode = 1;
  }
} catch (err) {
  console.error(err);
  process.exitCode = 1;
} finally {
  for (const s of servers) await s.stop();
  rmSync(dir, { recursive: true, force: true });
}
