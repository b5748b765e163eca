// Debian's Chromium as the e2e tests drive it: the same binary and flags (e2e/support/chromium.mjs),
// for the benchmarks that measure the client in a browser.
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/support/chromium.mjs';

export function launchChromium() {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] });
}
