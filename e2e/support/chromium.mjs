// Debian's Chromium (never a downloaded browser) and the flags it runs with: one list for the e2e
// tests (e2e/playwright.config.ts, e2e/run.mjs) and the benchmarks that drive a browser
// (bench/chromium.mjs). Plain JavaScript so that bench/ imports it without a TypeScript loader.

/** The browser binary: $CHROMIUM_PATH, else Debian's package "chromium". */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless, no sandbox (containers), and nothing that talks to the network on its own. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
