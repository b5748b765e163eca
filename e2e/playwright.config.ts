/**
 * End-to-end tests in Debian's Chromium (never a downloaded browser) against the real built
 * server. `npm test` builds first; e2e/run.mjs runs this config.
 */
import path from 'node:path';
import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './support/chromium.mjs';

const artifacts = path.join(import.meta.dirname, 'artifacts');

export default defineConfig({
  testDir: 'tests',
  outputDir: path.join(artifacts, 'test-results'),
  // Two cores shared with other work: one browser at a time.
  workers: 1,
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: 0,
  timeout: 45_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    viewport: { width: 1280, height: 800 },
    locale: 'en-US',
    colorScheme: 'light',
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    launchOptions: { executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] },
  },
});
