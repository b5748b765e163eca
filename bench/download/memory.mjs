// Memory per 1,000 concurrent downloads (issue 24, docs/deployment.md sizing): Coffer holds 1,000
// downloads of a 64 MiB file open at once, each client reading nothing after the response head
// (the socket buffers fill and the server waits), and the resident memory of every Coffer process
// (the primary and its workers) is compared with the same server idle. Run through
// `node bench/download/run.mjs --memory`.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fmt, startCoffer, waitForWorkers } from './common.mjs';

const DOWNLOADS = 1000;

/** Resident memory (MiB) of a process and its children. */
function rssMiB(pid) {
  const pids = [
    pid,
    ...execFileSync('sh', ['-c', `pgrep -P ${pid} || true`])
      .toString()
      .split('\n')
      .filter(Boolean)
      .map(Number),
  ];
  let kib = 0;
  for (const p of pids) {
    try {
      kib += Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // gone meanwhile
    }
  }
  return kib / 1024;
}

function openDownload(port, token) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: '/api/raw/mem.bin', headers: { 'X-Auth': token }, agent: false },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`download answered ${res.statusCode}`));
        res.pause();
        resolve(req);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

export async function measureMemory(dir, root) {
  writeFileSync(path.join(root, 'mem.bin'), Buffer.alloc(64 << 20, 7));
  console.log(
    `download --memory: ${DOWNLOADS} downloads of 64 MiB held open, load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
  );
  console.log('| server | idle RSS (MiB) | with 1,000 downloads open (MiB) | per 1,000 downloads (MiB) |');
  console.log('|---|---|---|---|');
  for (const n of [1, 2]) {
    mkdirSync(path.join(dir, `mem${n}`));
    const c = await startCoffer(path.join(dir, `mem${n}`), root, ['--workers', String(n), '--log', '']);
    try {
      await waitForWorkers(c.port, n);
      // Warm up: a few downloads to the end, so code and buffers are in place before the baseline.
      for (let i = 0; i < 20; i++) (await openDownload(c.port, c.token)).destroy();
      await new Promise((r) => setTimeout(r, 2000));
      const idle = rssMiB(c.pid);
      const open = [];
      for (let i = 0; i < DOWNLOADS; i += 50)
        open.push(...(await Promise.all(Array.from({ length: 50 }, () => openDownload(c.port, c.token)))));
      await new Promise((r) => setTimeout(r, 3000));
      const busy = rssMiB(c.pid);
      for (const req of open) req.destroy();
      console.log(
        `| Coffer --workers ${n} | ${fmt(idle, 0)} | ${fmt(busy, 0)} | ${fmt(((busy - idle) * 1000) / DOWNLOADS, 0)} |`,
      );
    } finally {
      await c.stop();
    }
  }
}
