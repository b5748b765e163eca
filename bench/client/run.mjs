#!/usr/bin/env node
// Client budgets (bench/README.md "## Client"): the JavaScript the login screen needs, gzipped,
// and how fast the login screen paints, measured in Debian's Chromium against the real built
// server on 127.0.0.1. Cold loads: a fresh browser context (empty cache) for every run.
//   node bench/client/run.mjs [--runs=15] [--json=out.json]
// Exits 1 when a budget is exceeded: JS > 150 KB gzipped, or median paint >= 1000 ms.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { launchChromium } from '../chromium.mjs';

const JS_BUDGET_GZ = 150 * 1024;
const PAINT_BUDGET_MS = 1000;
const repo = path.resolve(import.meta.dirname, '..', '..');
const arg = (name, fallback) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const runs = Number(arg('runs', '15'));

async function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function startServer() {
  const dir = mkdtempSync(path.join(tmpdir(), 'coffer-bench-client-'));
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      path.join(repo, 'server/bin/coffer.js'),
      'serve',
      '--root',
      dir,
      '--database',
      path.join(dir, 'c.db'),
      '--port',
      String(port),
      '--log',
      '',
    ],
    { env: { ...process.env, COFFER_ADMIN_PASSWORD: 'bench-admin-password' }, stdio: 'ignore' },
  );
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    stop() {
      child.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const server = await startServer();
const browser = await launchChromium();

try {
  // 1. What the login screen loads: every script fetched until the form is on screen and the network is idle.
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await ctx.newPage();
  const scripts = new Map();
  page.on('response', async (res) => {
    if (res.request().resourceType() !== 'script') return;
    const body = await res.body().catch(() => Buffer.alloc(0));
    scripts.set(new URL(res.url()).pathname, { raw: body.length, gz: gzipSync(body, { level: 9 }).length });
  });
  await page.goto(`${server.url}/login`, { waitUntil: 'networkidle' });
  await page.getByRole('button', { name: 'Log in' }).waitFor();
  await ctx.close();
  const files = [...scripts].map(([file, size]) => ({ file, ...size })).sort((a, b) => b.gz - a.gz);
  const jsRaw = files.reduce((n, f) => n + f.raw, 0);
  const jsGz = files.reduce((n, f) => n + f.gz, 0);

  // 2. Paint timings over cold loads.
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const c = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const p = await c.newPage();
    await p.addInitScript(() => {
      window.__lcp = 0;
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.__lcp = e.startTime;
      }).observe({ type: 'largest-contentful-paint', buffered: true });
    });
    await p.goto(`${server.url}/login`);
    await p.getByRole('button', { name: 'Log in' }).waitFor();
    // The form is painted once the button is visible; give the paint entries a frame to land.
    await p.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 50))));
    const t = await p.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0];
      const fcp = performance.getEntriesByName('first-contentful-paint')[0];
      return {
        fcp: fcp?.startTime ?? NaN,
        lcp: window.__lcp,
        domContentLoaded: nav.domContentLoadedEventEnd,
      };
    });
    samples.push(t);
    await c.close();
  }
  const result = {
    date: new Date().toISOString(),
    runs,
    loginJs: {
      files: files.length,
      rawBytes: jsRaw,
      gzipBytes: jsGz,
      budgetGzipBytes: JS_BUDGET_GZ,
      perFile: files,
    },
    paintMs: {
      fcpMedian: Math.round(median(samples.map((s) => s.fcp))),
      lcpMedian: Math.round(median(samples.map((s) => s.lcp))),
      lcpMax: Math.round(Math.max(...samples.map((s) => s.lcp))),
      domContentLoadedMedian: Math.round(median(samples.map((s) => s.domContentLoaded))),
      budget: PAINT_BUDGET_MS,
    },
  };
  console.log(
    `login screen JS: ${files.length} files, ${(jsRaw / 1024).toFixed(1)} KB raw, ${(jsGz / 1024).toFixed(1)} KB gzipped (budget 150 KB)`,
  );
  for (const f of files)
    console.log(`  ${f.file}  ${(f.raw / 1024).toFixed(1)} KB  ${(f.gz / 1024).toFixed(1)} KB gz`);
  console.log(
    `login paint over ${runs} cold loads: FCP median ${result.paintMs.fcpMedian} ms, LCP median ${result.paintMs.lcpMedian} ms (max ${result.paintMs.lcpMax} ms), DOMContentLoaded median ${result.paintMs.domContentLoadedMedian} ms (budget < 1000 ms)`,
  );
  const json = arg('json', '');
  if (json) writeFileSync(json, JSON.stringify(result, null, 2));
  const over = jsGz > JS_BUDGET_GZ || result.paintMs.lcpMedian >= PAINT_BUDGET_MS;
  if (over) console.error('over budget');
  process.exitCode = over ? 1 : 0;
} finally {
  await browser.close();
  server.stop();
}
