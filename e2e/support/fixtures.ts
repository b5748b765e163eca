/**
 * The test object every spec uses: a real server per worker (`server`), screenshots kept in
 * e2e/artifacts/screens, and a page that fails the test on any uncaught error or CSP refusal.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { test as base, expect, type Page } from '@playwright/test';
import { ARTIFACTS, startServer, type RunningServer } from './server';

export const SCREENS = path.join(ARTIFACTS, 'screens');

/** Saves a screenshot named `<name>-<width>x<height>.png` for people to look at. */
export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENS, { recursive: true });
  const size = page.viewportSize();
  // Finished transitions: a drawer caught mid-slide would show nothing useful.
  await page.screenshot({
    path: path.join(SCREENS, `${name}-${size?.width ?? 0}x${size?.height ?? 0}.png`),
    animations: 'disabled',
  });
}

export const PHONE = { viewport: { width: 375, height: 812 }, isMobile: true, hasTouch: true } as const;

/**
 * `server` is shared by every spec of a worker, and the login throttle (S30) counts wrong passwords
 * per address: all tests come from 127.0.0.1, so ten wrong passwords spread over several specs would
 * turn every later login into 429. A spec that types wrong passwords or codes on purpose sets
 * `test.use({ serverGroup: '<its name>' })`: a different worker option makes Playwright run it in
 * a worker of its own, with a server of its own.
 */
export const test = base.extend<{ pageErrors: string[] }, { server: RunningServer; serverGroup: string }>({
  serverGroup: ['shared', { scope: 'worker', option: true }],
  server: [
    async ({ serverGroup }, use) => {
      void serverGroup;
      const server = await startServer();
      await use(server);
      await server.stop();
    },
    { scope: 'worker', timeout: 60_000 },
  ],
  baseURL: async ({ server }, use) => {
    // A trailing slash, and test paths without a leading one, keep a --baseurl prefix in every URL.
    await use(server.url + '/');
  },
  pageErrors: [
    async ({ page }, use) => {
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(err.message));
      // The page's strict CSP (S62) must never have to refuse anything the client does.
      page.on('console', (msg) => {
        if (msg.type() === 'error' && /Content Security Policy|Refused to/.test(msg.text())) errors.push(msg.text());
      });
      await use(errors);
      expect(errors, 'uncaught errors or CSP refusals in the page').toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };
