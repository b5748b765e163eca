#!/usr/bin/env node
// End-to-end runner: Playwright's test runner over e2e/playwright.config.ts against the already
// built server and client (it builds nothing: `npm test` builds first). Writes
// {"passed","failed","skipped","flaky"} to --summary=<file> and exits non-zero on any failure.
// Extra arguments go to Playwright (e.g. `node e2e/run.mjs shell -g drawer`).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { CHROMIUM_PATH } from './support/chromium.mjs';

const repo = path.resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const summaryArg = args.find((a) => a.startsWith('--summary='));
const summaryFile = summaryArg?.slice('--summary='.length);
const passThrough = args.filter((a) => a !== summaryArg);

function finish(summary, code) {
  if (summaryFile) writeFileSync(summaryFile, JSON.stringify(summary));
  console.log(`e2e: ${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped`);
  process.exit(code);
}

const needed = {
  'server/dist/main.js': 'the server build (npm run build)',
  'web/dist/index.html': 'the client build (npm run build)',
};
for (const [file, what] of Object.entries(needed)) {
  if (!existsSync(path.join(repo, file))) {
    console.error(`e2e: ${file} is missing: ${what} comes first`);
    finish({ passed: 0, failed: 1, skipped: 0 }, 1);
  }
}
if (!existsSync(CHROMIUM_PATH)) {
  console.error(
    `e2e: no Chromium at ${CHROMIUM_PATH} (Debian package "chromium"; scripts/system-deps.mjs installs it)`,
  );
  finish({ passed: 0, failed: 1, skipped: 0 }, 1);
}

const artifacts = path.join(repo, 'e2e', 'artifacts');
mkdirSync(artifacts, { recursive: true });
const report = path.join(artifacts, 'report.json');
rmSync(report, { force: true });
const cli = createRequire(import.meta.url).resolve('@playwright/test/cli');
const run = spawnSync(
  process.execPath,
  [cli, 'test', '-c', path.join(repo, 'e2e', 'playwright.config.ts'), '--reporter=list,json', ...passThrough],
  {
    cwd: repo,
    stdio: 'inherit',
    env: { ...process.env, PLAYWRIGHT_JSON_OUTPUT_NAME: report, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' },
  },
);

/** "file:line › title" of every test whose status is `status`, through nested suites. */
function testsWith(suites, status, out = []) {
  for (const suite of suites ?? []) {
    for (const spec of suite.specs ?? []) {
      if ((spec.tests ?? []).some((t) => t.status === status)) out.push(`${spec.file}:${spec.line} › ${spec.title}`);
    }
    testsWith(suite.suites, status, out);
  }
  return out;
}

let summary = { passed: 0, failed: 1, skipped: 0 };
if (existsSync(report)) {
  const json = JSON.parse(readFileSync(report, 'utf8'));
  const stats = json.stats ?? {};
  summary = {
    passed: (stats.expected ?? 0) + (stats.flaky ?? 0),
    failed: (stats.unexpected ?? 0) || (run.status === 0 ? 0 : 1),
    skipped: stats.skipped ?? 0,
    // Passed only on a retry (`--retries=1`): named so that they are looked at.
    flaky: testsWith(json.suites, 'flaky'),
  };
}
console.log(`e2e: screenshots in ${path.relative(repo, path.join(artifacts, 'screens'))}/`);
finish(summary, run.status === 0 && summary.failed === 0 ? 0 : 1);
