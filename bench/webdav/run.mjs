// WebDAV throughput (issue 19): rclone copying 1,000 small files and one big file, up and down,
// against Coffer's /dav/ and against `rclone serve webdav` (Go; the reference) serving a folder on
// the same disk, in one run; then PROPFIND Depth 1 of a 100,000-entry folder on Coffer, timed, with
// the server's RSS growth. Prints each time and the ratio Coffer / reference (throughput).
//
//   node bench/webdav/run.mjs [--mib 1024] [--files 1000] [--entries 100000] [--runs 3] [--rounds 1] [--propfind-only]   (after `npm run build`)
// --propfind-only skips rclone (no reference server, no file copies): the PROPFIND part alone.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import http from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { ADMIN, fmt, freePort, get, sampleRss, startCoffer } from '../download/common.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const MIB = 1024 * 1024;
const BIG_MIB = arg('mib', 1024);
const FILES = arg('files', 1000);
const ENTRIES = arg('entries', 100_000);
const RCLONE = '/usr/bin/rclone';
const PROPFIND_ONLY = process.argv.includes('--propfind-only');

function run(cmd, args, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env } });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${cmd} ${args.join(' ')}: ${code}\n${out}`))));
  });
}

/** Deterministic bytes: SHA-256 in counter mode, so every run copies the same data. */
function deterministic(seed, n) {
  const out = Buffer.alloc(n);
  for (let off = 0, i = 0; off < n; off += 32, i++) createHash('sha256').update(`${seed}:${i}`).digest().copy(out, off);
  return out;
}

const dir = mkdtempSync(path.join(tmpdir(), 'coffer-bench-webdav-'));
const src = path.join(dir, 'src');
mkdirSync(path.join(src, 'small'), { recursive: true });
mkdirSync(path.join(src, 'big'), { recursive: true });
if (!PROPFIND_ONLY) for (let i = 0; i < FILES; i++) writeFileSync(path.join(src, 'small', `f${String(i).padStart(4, '0')}.bin`), deterministic(`s${i}`, 4096));
if (!PROPFIND_ONLY) {
  const fd = openSync(path.join(src, 'big', 'big.bin'), 'w');
  const chunk = deterministic('big', MIB);
  for (let i = 0; i < BIG_MIB; i++) writeSync(fd, chunk);
  closeSync(fd);
}
const cofferRoot = path.join(dir, 'coffer-root');
const refRoot = path.join(dir, 'ref-root');
mkdirSync(cofferRoot, { recursive: true });
mkdirSync(refRoot, { recursive: true });

mkdirSync(path.join(dir, 'coffer'));
const coffer = await startCoffer(path.join(dir, 'coffer'), cofferRoot, ['--log', '']);
/** User + system CPU seconds of a process so far (all its threads). */
function cpuSeconds(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

async function timed(fn) {
  const t0 = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** rclone against both servers (skipped with --propfind-only). */
async function rcloneSteps() {
  const refPort = await freePort();
  const ref = spawn(RCLONE, ['serve', 'webdav', refRoot, '--addr', `127.0.0.1:${refPort}`, '--user', ADMIN.username, '--pass', ADMIN.password], { stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, 1500));

  const obscured = (await run(RCLONE, ['obscure', ADMIN.password])).trim();
  const remote = (name, url) => ({
    [`RCLONE_CONFIG_${name}_TYPE`]: 'webdav',
    [`RCLONE_CONFIG_${name}_URL`]: url,
    [`RCLONE_CONFIG_${name}_VENDOR`]: 'other',
    [`RCLONE_CONFIG_${name}_USER`]: ADMIN.username,
    [`RCLONE_CONFIG_${name}_PASS`]: obscured,
  });
  const env = { RCLONE_CONFIG: path.join(dir, 'none.conf'), ...remote('COFFER', `http://127.0.0.1:${coffer.port}/dav/`), ...remote('REF', `http://127.0.0.1:${refPort}/`) };

  /**
   * Each step starts with no dirty pages: without it, the reference's upload (page cache only, it
   * never fsyncs) was still being written back while Coffer's upload synced its own file, and Coffer
   * paid for both.
   */
  async function timedStep(fn) {
    await run('sync', []);
    return timed(fn);
  }

  const load0 = loadavg()[0];
  const SERVERS = [['ref', 'REF'], ['coffer', 'COFFER']];
  // The big file's steps swing with the disk's write-back from run to run: with --rounds N they
  // run N times, the two servers in turns, and the medians are compared.
  const ROUNDS = arg('rounds', 1);
  const results = { ref: { bigUp: [], bigDown: [] }, coffer: { bigUp: [], bigDown: [] } };
  for (const [name, target] of SERVERS) {
    const down = path.join(dir, `down-${name}`);
    const r = results[name];
    r.smallUp = await timedStep(() => run(RCLONE, ['copy', path.join(src, 'small'), `${target}:small`], env));
    r.smallDown = await timedStep(() => run(RCLONE, ['copy', `${target}:small`, path.join(down, 'small')], env));
    await run(RCLONE, ['check', path.join(src, 'small'), path.join(down, 'small')], env);
    rmSync(down, { recursive: true, force: true });
  }
  for (let k = 0; k < ROUNDS; k++) {
    for (const [name, target] of SERVERS) {
      const down = path.join(dir, `down-${name}`);
      const r = results[name];
      r.bigUp.push(await timedStep(() => run(RCLONE, ['copy', path.join(src, 'big'), `${target}:big${k}`], env)));
      r.bigDown.push(await timedStep(() => run(RCLONE, ['copy', `${target}:big${k}`, down], env)));
      await run(RCLONE, ['check', path.join(src, 'big'), down], env);
      rmSync(down, { recursive: true, force: true });
    }
  }
  ref.kill('SIGTERM');

  console.log(`rclone ${FILES} × 4 KiB and 1 × ${BIG_MIB} MiB (${ROUNDS} round${ROUNDS > 1 ? 's, medians' : ''}); load average ${fmt(load0, 2)} → ${fmt(loadavg()[0], 2)}`);
  console.log('| step | rclone serve webdav | Coffer /dav/ | Coffer / reference |');
  console.log('|---|---|---|---|');
  for (const [k, label] of [['smallUp', `${FILES} small files up`], ['smallDown', `${FILES} small files down`], ['bigUp', `${BIG_MIB} MiB up`], ['bigDown', `${BIG_MIB} MiB down`]]) {
    const list = (xs) => (Array.isArray(xs) && xs.length > 1 ? ` (${xs.map((t) => fmt(t, 2)).join(', ')})` : '');
    const a = [results.ref[k]].flat();
    const b = [results.coffer[k]].flat();
    console.log(`| ${label} | ${fmt(median(a), 2)} s${list(a)} | ${fmt(median(b), 2)} s${list(b)} | **${fmt((100 * median(a)) / median(b), 0)} %** |`);
  }
}

if (!PROPFIND_ONLY) await rcloneSteps();

// PROPFIND Depth 1 of a big folder: the entries are made directly on disk (not through WebDAV).
const big = path.join(cofferRoot, 'many');
mkdirSync(big, { recursive: true });
for (let i = 0; i < ENTRIES; i++) closeSync(openSync(path.join(big, `entry-${i}.txt`), 'w'));
function propfind() {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: coffer.port, method: 'PROPFIND', path: '/dav/many/', headers: { depth: '1', authorization: 'Basic ' + Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64') } },
      (res) => {
        let bytes = 0;
        let responses = 0;
        let tail = '';
        res.on('data', (c) => {
          bytes += c.length;
          // Counted over the seam between chunks too.
          const text = tail + c.toString();
          responses += text.split('<D:response>').length - 1;
          tail = text.slice(-11);
        });
        res.on('end', () => resolve({ status: res.statusCode, bytes, responses }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}
await propfind(); // warm: the password check and the folder's inodes
// PROPFIND and, for reference at the same moment, the web API's listing of the same folder
// (bench/listing: streamed, statted by worker threads), in turns; medians of RUNS.
const RUNS = arg('runs', 3);
const davTimes = [];
const davCpu = [];
const apiTimes = [];
let answer;
let growth = 0;
let rssText = '';
for (let r = 0; r < RUNS; r++) {
  const rss = sampleRss(coffer.pid);
  const cpu0 = cpuSeconds(coffer.pid);
  davTimes.push(await timed(async () => (answer = await propfind())));
  davCpu.push(cpuSeconds(coffer.pid) - cpu0);
  const { baseMiB, peakMiB } = rss.stop();
  if (peakMiB - baseMiB >= growth) {
    growth = peakMiB - baseMiB;
    rssText = `${fmt(baseMiB)} → ${fmt(peakMiB)} MiB`;
  }
  apiTimes.push(await timed(() => get(coffer.port, '/api/resources/many/', { 'X-Auth': coffer.token })));
}
console.log(
  `PROPFIND Depth 1 of ${ENTRIES} entries: ${answer.status}, ${answer.responses} responses, ${fmt(answer.bytes / MIB)} MiB; ` +
    `median ${fmt(median(davTimes), 2)} s (${davTimes.map((t) => fmt(t, 2)).join(', ')}); server CPU median ${fmt(median(davCpu), 2)} s; largest RSS growth +${fmt(growth)} MiB (${rssText}); ` +
    `web API listing of the same folder, same moments: median ${fmt(median(apiTimes), 2)} s (${apiTimes.map((t) => fmt(t, 2)).join(', ')}); load average ${fmt(loadavg()[0], 2)}`,
);

await coffer.stop();
rmSync(dir, { recursive: true, force: true });
