// Memory of big listings: does the server give back what big answers held? Creates a folder of
// 300,000 empty files, starts the built server as its own process, lists the folder 25 times in a
// row and records the server's RSS idle (before), at peak (the kernel's high-water mark, VmHWM,
// reset through /proc/<pid>/clear_refs before the first listing), right after the last listing
// and 10, 20 and 30 s after it, with where the resident memory lies (/proc/<pid>/smaps: glibc's
// main heap, the threads' malloc arenas, the rest) and V8's heap from GET /metrics. Also the
// median time of one listing. Goal (issue 17, item 18): 30 s after, within 50 MB of idle.
//
//   node bench/listing/memory.mjs [--entries 300000] [--listings 25] [--encoding none|br]
//                                 [--compare <other coffer.js>] [--rounds 1] [--folder <path>]
//   (after `npm run build`; Linux only: reads /proc). --encoding: the listings' Accept-Encoding
//   (br: compressed as the web client gets them). --compare: also another build's
//   server/bin/coffer.js (its server/dist beside it), one server at a time, in turns for
//   --rounds rounds, so the load of the machine falls on both alike. --folder: make the folder
//   there and keep it for the next run (made only when missing; otherwise a temp folder, removed).
//   --malloc-trim: at the end, glibc's malloc_trim(0) is called in the server (through gdb, which
//   must be installed and allowed to attach) and the RSS sampled again: what is left above idle
//   that is free memory glibc keeps, rather than memory in use.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { get, median, repo, startCoffer, timedGet } from '../download/common.mjs';

const argOf = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const ENTRIES = Number(argOf('entries', '300000'));
const LISTINGS = Number(argOf('listings', '25'));
const ENCODING = argOf('encoding', 'none');
const ROUNDS = Number(argOf('rounds', '1'));
const COMPARE = argOf('compare', '') && path.resolve(argOf('compare', ''));
const AFTER_S = [10, 20, 30];
/** The goal: back within this much of the idle RSS 30 s after the last listing. */
const WITHIN_MB = 50;

const builds = [['coffer', path.join(repo, 'server/bin/coffer.js')]];
if (COMPARE) builds.push(['compared', COMPARE]);

/** The names of bench/listing/run.mjs: six extensions, numbered (the natural sort has work). */
const extOf = (i) => ['.txt', '.jpg', '.mp4', '.pdf', '.md', ''][i % 6];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const MB = 1024 * 1024;

/** A field of /proc/<pid>/status, in MB. */
const statusMb = (pid, field) => {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};

/**
 * Where the resident memory lies, in MB: `heap` is glibc's main arena (the [heap] mapping, the
 * main thread's malloc), `arenas` the other threads' malloc arenas (anonymous mappings starting on
 * a 64 MiB boundary, glibc's HEAP_MAX_SIZE), `anon` the other anonymous memory (V8's heap pages,
 * big malloc blocks mmapped on their own), `files` the mapped files (code).
 */
function smaps(pid) {
  const out = { heap: 0, arenas: 0, anon: 0, files: 0 };
  let kind = 'anon';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-[0-9a-f]+ \S+ \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (head) {
      const [, start, name] = head;
      if (name === '[heap]') kind = 'heap';
      else if (name.startsWith('/')) kind = 'files';
      else if (name === '' && BigInt(`0x${start}`) % BigInt(64 * MB) === 0n) kind = 'arenas';
      else kind = 'anon';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) out[kind] += Number(rss[1]) / 1024;
  }
  return out;
}

/** V8's heap of the server's main thread, from its Prometheus text, in MB. */
async function v8Of(port) {
  const text = (await get(port, '/metrics')).body.toString();
  const mb = (name) => {
    const m = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(text);
    return m ? Math.round(Number(m[1]) / MB) : NaN;
  };
  return { heapUsed: mb('nodejs_heap_size_used_bytes'), heapTotal: mb('nodejs_heap_size_total_bytes'), external: mb('nodejs_external_memory_bytes') };
}

async function snapshot(pid, port) {
  return { rss: statusMb(pid, 'VmRSS'), ...smaps(pid), ...(await v8Of(port)) };
}

const rounded = (s) => Object.fromEntries(Object.entries(s).map(([k, v]) => [k, Math.round(v)]));
const show = (s) =>
  `RSS ${s.rss.toFixed(0)} MB (malloc main ${s.heap.toFixed(0)}, thread arenas ${s.arenas.toFixed(0)}, other anon ${s.anon.toFixed(0)}; ` +
  `V8 heap ${s.heapUsed}/${s.heapTotal}, external ${s.external})`;

const dir = mkdtempSync(path.join(tmpdir(), 'coffer-bench-listing-memory-'));
const KEPT = argOf('folder', '') && path.resolve(argOf('folder', ''));
const root = KEPT ? path.dirname(KEPT) : path.join(dir, 'root');
const folder = KEPT || path.join(root, 'big');
if (!existsSync(path.join(folder, `File ${ENTRIES - 1}${extOf(ENTRIES - 1)}`))) {
  mkdirSync(folder, { recursive: true });
  console.log(`generating ${ENTRIES} files under ${folder} …`);
  for (let i = 0; i < ENTRIES; i++) writeFileSync(path.join(folder, `File ${i}${extOf(i)}`), '');
}
const listingPath = `/api/resources/${encodeURIComponent(path.basename(folder))}/`;

/** One server: idle, the listings, the quiet time after. */
async function measure(name, bin, round) {
  const data = path.join(dir, `${name}-${round}`);
  mkdirSync(data);
  const { port, pid, token, stop } = await startCoffer(data, root, ['--log', ''], bin);
  try {
    const headers = { 'X-Auth': token, ...(ENCODING === 'none' ? {} : { 'Accept-Encoding': ENCODING }) };
    // Warm up on the root (its code, the workers), then let the start settle.
    await get(port, '/api/resources/', headers);
    await sleep(12_000);
    const idle = await snapshot(pid, port);
    console.log(`  ${name}: idle ${show(idle)}`);
    writeFileSync(`/proc/${pid}/clear_refs`, '5'); // reset the high-water mark
    const times = [];
    for (let i = 0; i < LISTINGS; i++) {
      const res = await timedGet(port, listingPath, headers);
      if (res.status !== 200) throw new Error(`listing answered ${res.status}`);
      times.push(res.totalMs);
    }
    const peak = statusMb(pid, 'VmHWM');
    const end = await snapshot(pid, port);
    const ms = Math.round(median(times));
    console.log(`  ${name}: ${LISTINGS} listings, median ${ms} ms; peak RSS ${peak.toFixed(0)} MB; at the end ${show(end)}`);
    const t0 = performance.now();
    const after = [];
    for (const s of AFTER_S) {
      await sleep(t0 + s * 1000 - performance.now());
      const at = await snapshot(pid, port);
      after.push(at);
      console.log(`  ${name}: +${s} s ${show(at)}`);
    }
    const last = after.at(-1);
    const above = last.rss - idle.rss;
    console.log(`  ${name}: ${above.toFixed(0)} MB above idle 30 s after — ${above <= WITHIN_MB ? 'goal met' : 'goal MISSED'} (≤ ${WITHIN_MB} MB)`);
    let trimmed;
    if (process.argv.includes('--malloc-trim')) {
      execFileSync('gdb', ['-p', String(pid), '-batch', '-ex', 'call (int) malloc_trim(0)'], { stdio: 'ignore' });
      trimmed = await snapshot(pid, port);
      console.log(`  ${name}: after malloc_trim(0) ${show(trimmed)}`);
    }
    return {
      server: name,
      listingMs: ms,
      idleMB: Math.round(idle.rss),
      peakMB: Math.round(peak),
      endMB: Math.round(end.rss),
      afterMB: after.map((a) => Math.round(a.rss)),
      aboveIdleMB: Math.round(above),
      last: rounded(last),
      ...(trimmed && { trimmed: rounded(trimmed) }),
    };
  } finally {
    await stop();
  }
}

try {
  const results = [];
  for (let round = 0; round < ROUNDS; round++)
    for (const [name, bin] of round % 2 ? [...builds].reverse() : builds) results.push(await measure(name, bin, round));
  console.log(
    JSON.stringify({
      date: new Date().toISOString().slice(0, 16),
      node: process.version,
      cpus: cpus().length,
      loadavg: loadavg().map((x) => Number(x.toFixed(1))),
      entries: ENTRIES,
      listings: LISTINGS,
      encoding: ENCODING,
      results,
    }),
  );
  if (results.some((r) => r.server === 'coffer' && r.aboveIdleMB > WITHIN_MB)) process.exitCode = 1;
} catch (err) {
  console.error(err);
  process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
