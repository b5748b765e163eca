// The disk-usage picture's route on a folder of 100,000 files (docs/api.md §24.2): GET /api/sizes
// answers 200 items and one "other" group; timed against the same folder's listing
// (GET /api/resources), which reads the same entries from the disk, in the same run.
//
//   [COFFER_BENCH_DIR=/dev/shm] node bench/index/sizes.mjs [--runs 5]   (after `npm run build`)
import { closeSync, ftruncateSync, mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fmt, get, median, startCoffer, timedGet } from '../download/common.mjs';

const i = process.argv.indexOf('--runs');
const RUNS = i > 0 ? Number(process.argv[i + 1]) : 5;
const N = 100_000;
const base = process.env.COFFER_BENCH_DIR || tmpdir();
const treeDir = mkdtempSync(path.join(base, 'coffer-bench-sizes-'));
const root = path.join(treeDir, 'root');
const dbDir = mkdtempSync(path.join(tmpdir(), 'coffer-bench-sizes-db-'));
let srv;
try {
  mkdirSync(path.join(root, 'big'), { recursive: true });
  for (let n = 0; n < N; n++) {
    const fd = openSync(path.join(root, 'big', `file-${n}.dat`), 'w');
    ftruncateSync(fd, (n % 997) * 10);
    closeSync(fd);
  }
  const load = loadavg().map((l) => l.toFixed(1)).join(' ');
  srv = await startCoffer(dbDir, root);
  for (let t = 0; ; t++) {
    const r = JSON.parse((await get(srv.port, '/api/index', { 'X-Auth': srv.token })).body.toString());
    if (r.status === 'ready') break;
    if (t > 3000) throw new Error('the index was not ready within 10 minutes');
    await new Promise((res) => setTimeout(res, 200));
  }
  const answer = await get(srv.port, '/api/sizes/big/', { 'X-Auth': srv.token });
  const body = JSON.parse(answer.body.toString());
  if (body.status !== 'ready' || body.items.length !== 200 || body.other.count !== N - 200) throw new Error(`unexpected answer: ${body.status} ${body.items?.length}`);
  const timed = async (url) => {
    await timedGet(srv.port, url, { 'X-Auth': srv.token });
    const ms = [];
    for (let r = 0; r < RUNS; r++) ms.push((await timedGet(srv.port, url, { 'X-Auth': srv.token })).totalMs);
    return median(ms);
  };
  const sizesMs = await timed('/api/sizes/big/');
  const listMs = await timed('/api/resources/big/');
  console.log(`sizes: ${cpus().length} CPUs, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}, load average at start ${load}, at end ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log(`| GET /api/sizes of ${N.toLocaleString('en')} files (200 items + other, ${answer.body.length.toLocaleString('en')} bytes), median of ${RUNS} | ${fmt(sizesMs, 0)} ms |`);
  console.log(`| the same folder's listing, GET /api/resources | ${fmt(listMs, 0)} ms |`);
} finally {
  await srv?.stop();
  rmSync(dbDir, { recursive: true, force: true });
  rmSync(treeDir, { recursive: true, force: true });
}
