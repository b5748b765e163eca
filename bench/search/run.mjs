// Search over 200,000 entries (400 folders × 500 files): time to the first result and to the
// complete answer from Coffer, against `find -iname` over the same tree in the same run.
// Goals: first result ≤ 100 ms; complete ≤ 2× find.
//
//   node bench/search/run.mjs [--runs 3]   (after `npm run build`)
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import http from 'node:http';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { fmt, median, startCoffer } from '../download/common.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const RUNS = arg('runs', 3);
const FOLDERS = 400;
const PER_FOLDER = 500;
const WORDS = Array.from({ length: 50 }, (_, i) => (i === 17 ? 'Report' : `word${i}`));

const dir = mkdtempSync(path.join(tmpdir(), 'coffer-bench-search-'));
const root = path.join(dir, 'root');
for (let d = 0; d < FOLDERS; d++) {
  const sub = path.join(root, 'tree', `dir-${String(d).padStart(3, '0')}`);
  mkdirSync(sub, { recursive: true });
  for (let f = 0; f < PER_FOLDER; f++)
    closeSync(openSync(path.join(sub, `item-${f}-${WORDS[(d * 7 + f) % WORDS.length]}.dat`), 'w'));
}

function timedSearch(port, token, query) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: `/api/search/tree/?query=${encodeURIComponent(query)}`,
        headers: { 'X-Auth': token },
      },
      (res) => {
        let first;
        let lines = 0;
        let rest = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          rest += c;
          const parts = rest.split('\n');
          rest = parts.pop();
          for (const l of parts) {
            if (!l) continue;
            first ??= performance.now() - t0;
            lines++;
          }
        });
        res.on('end', () =>
          resolve({ status: res.statusCode, firstMs: first, totalMs: performance.now() - t0, lines }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

let coffer;
try {
  execFileSync('find', [path.join(root, 'tree')], { stdio: 'ignore' }); // warm the dentry cache
  const findTimes = [];
  let findCount = 0;
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now();
    const out = execFileSync('find', [path.join(root, 'tree'), '-mindepth', '1', '-iname', '*report*'], {
      maxBuffer: 64 << 20,
    }).toString();
    findTimes.push(performance.now() - t0);
    findCount = out.split('\n').filter(Boolean).length;
  }
  coffer = await startCoffer(dir, root);
  await timedSearch(coffer.port, coffer.token, 'report'); // warm-up
  const runs = [];
  for (let r = 0; r < RUNS; r++) runs.push(await timedSearch(coffer.port, coffer.token, 'report'));
  if (runs.some((r) => r.status !== 200 || r.lines !== findCount))
    throw new Error(`result counts differ: find ${findCount}, Coffer ${runs.map((r) => r.lines)}`);
  const findMs = median(findTimes);
  const firstMs = median(runs.map((r) => r.firstMs));
  const totalMs = median(runs.map((r) => r.totalMs));
  console.log(
    `search: ${cpus().length} CPUs, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${FOLDERS * PER_FOLDER + FOLDERS} entries, ${findCount} matches, median of ${RUNS}`,
  );
  console.log('| | first result | complete | × find |');
  console.log('|---|---|---|---|');
  console.log(`| find -iname | | ${fmt(findMs, 0)} ms | 1.00 |`);
  console.log(
    `| Coffer /api/search | ${fmt(firstMs)} ms | ${fmt(totalMs, 0)} ms | ${fmt(totalMs / findMs, 2)} |`,
  );
  console.log(
    `goals (first ≤ 100 ms, complete ≤ 2× find): ${firstMs <= 100 && totalMs <= 2 * findMs ? 'met' : 'MISSED'}`,
  );
} finally {
  await coffer?.stop();
  rmSync(dir, { recursive: true, force: true });
}
