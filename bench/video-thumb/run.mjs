// Video thumbnails: a 1080p H.264 video (10 s, made with ffmpeg) gets its thumbnail from Coffer
// (`/api/preview/thumb/…` with --cache-dir): the first request runs ffmpeg, the next ones come from
// the cache. Each run uses a fresh copy of the video (a new name: a cache miss). Goals: first
// ≤ 1 s, from the cache ≤ 20 ms.
//
//   node bench/video-thumb/run.mjs [--runs 5]   (after `npm run build`; needs ffmpeg)
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fmt, median, repo, startCoffer, timedGet } from '../download/common.mjs';

const { frameArgs } = await import(path.join(repo, 'server/dist/features/preview/video.js'));

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const RUNS = arg('runs', 5);

const dir = mkdtempSync(path.join(tmpdir(), 'coffer-bench-video-'));
const root = path.join(dir, 'root');
mkdirSync(path.join(root, 'v'), { recursive: true });
const source = path.join(dir, 'source.mp4');
execFileSync('ffmpeg', [
  '-nostdin', '-loglevel', 'error', '-y',
  '-f', 'lavfi', '-i', 'testsrc2=size=1920x1080:rate=30:duration=10',
  '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', source,
]);

let coffer;
try {
  coffer = await startCoffer(dir, root, ['--cache-dir', path.join(dir, 'cache')]);
  const headers = { 'X-Auth': coffer.token };
  const load = loadavg()[0];
  const first = [];
  const cached = [];
  const alone = [];
  for (let r = 0; r < RUNS; r++) {
    // ffmpeg by itself with Coffer's arguments, in the same run: what the machine allows now.
    const t0 = performance.now();
    execFileSync('ffmpeg', frameArgs(1), { stdio: ['ignore', 'ignore', 'inherit', openSync(source, 'r')] });
    alone.push(performance.now() - t0);
    const name = `clip-${r}.mp4`;
    copyFileSync(source, path.join(root, 'v', name));
    const miss = await timedGet(coffer.port, `/api/preview/thumb/v/${name}`, headers);
    if (miss.status !== 200) throw new Error(`thumb: ${miss.status}`);
    first.push(miss.totalMs);
    for (let i = 0; i < 5; i++) {
      const hit = await timedGet(coffer.port, `/api/preview/thumb/v/${name}`, headers);
      if (hit.status !== 200) throw new Error(`thumb (cached): ${hit.status}`);
      cached.push(hit.totalMs);
    }
  }
  console.log(
    `video-thumb: ${cpus().length} CPUs, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}, load average ${fmt(load)} → ${fmt(loadavg()[0])}, ${RUNS} runs`,
  );
  console.log('| 1080p H.264, 10 s | median | max |');
  console.log('|---|---|---|');
  console.log(`| ffmpeg alone, same arguments | ${fmt(median(alone), 0)} ms | ${fmt(Math.max(...alone), 0)} ms |`);
  console.log(`| first request (ffmpeg) | ${fmt(median(first), 0)} ms | ${fmt(Math.max(...first), 0)} ms |`);
  console.log(`| from the cache | ${fmt(median(cached))} ms | ${fmt(Math.max(...cached))} ms |`);
  const ok = median(first) <= 1000 && median(cached) <= 20;
  console.log(`goals (first ≤ 1 s, cached ≤ 20 ms, medians): ${ok ? 'met' : 'MISSED'}`);
} finally {
  await coffer?.stop();
  rmSync(dir, { recursive: true, force: true });
}
