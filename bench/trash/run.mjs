// Trash and restore a folder of 100,000 files over HTTP: DELETE /api/resources/tree (into the
// trash) and POST /api/trash/{id}/restore, each timed to its answer, alternately.
// Goal: each ≤ 50 ms (a rename and a record, not a copy).
//
//   node bench/trash/run.mjs [--runs 5] [--folders 200] [--data-dir DIR]   (after `npm run build`)
//
// --data-dir on another filesystem than the temp folder measures the fallback (a copy, O(size)).
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { fmt, median, request, startCoffer } from '../download/common.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const RUNS = arg('runs', 5);
const FOLDERS = arg('folders', 200);
const di = process.argv.indexOf('--data-dir');
const dataDir = di > 0 ? mkdtempSync(path.join(process.argv[di + 1], 'coffer-bench-trash-data-')) : undefined;
const PER_FOLDER = 500;

const dir = mkdtempSync(path.join(tmpdir(), 'coffer-bench-trash-'));
const root = path.join(dir, 'root');
for (let d = 0; d < FOLDERS; d++) {
  const sub = path.join(root, 'tree', `dir-${String(d).padStart(3, '0')}`);
  mkdirSync(sub, { recursive: true });
  for (let f = 0; f < PER_FOLDER; f++) closeSync(openSync(path.join(sub, `file-${f}.dat`), 'w'));
}

async function timed(port, method, urlPath, token) {
  const t0 = performance.now();
  const res = await request(port, method, urlPath, undefined, { 'X-Auth': token });
  return { ms: performance.now() - t0, status: res.status, body: res.body.toString() };
}

let coffer;
try {
  coffer = await startCoffer(dir, root, dataDir ? ['--data-dir', dataDir] : []);
  const { port, token } = coffer;
  const trashMs = [];
  const restoreMs = [];
  for (let r = 0; r < RUNS; r++) {
    const del = await timed(port, 'DELETE', '/api/resources/tree', token);
    if (del.status !== 204) throw new Error(`delete answered ${del.status}`);
    trashMs.push(del.ms);
    const list = JSON.parse((await timed(port, 'GET', '/api/trash', token)).body);
    const item = list.items.find((i) => i.path === '/tree');
    const back = await timed(port, 'POST', `/api/trash/${item.id}/restore?conflict=fail`, token);
    if (back.status !== 200) throw new Error(`restore answered ${back.status} ${back.body}`);
    restoreMs.push(back.ms);
  }
  const t = median(trashMs);
  const b = median(restoreMs);
  console.log(`trash: ${cpus().length} CPUs, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${FOLDERS * PER_FOLDER} files${dataDir ? `, data dir ${dataDir}` : ''}, median of ${RUNS}`);
  console.log('| | median | slowest |');
  console.log('|---|---|---|');
  console.log(`| DELETE (into the trash) | ${fmt(t)} ms | ${fmt(Math.max(...trashMs))} ms |`);
  console.log(`| restore | ${fmt(b)} ms | ${fmt(Math.max(...restoreMs))} ms |`);
  console.log(`goal (each ≤ 50 ms): ${t <= 50 && b <= 50 ? 'met' : 'MISSED'}`);
} finally {
  await coffer?.stop();
  rmSync(dir, { recursive: true, force: true });
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}
