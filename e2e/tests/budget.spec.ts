import { gzipSync } from 'node:zlib';
import { expect, test } from '../support/fixtures';

// bench/README.md "## Client": the login screen needs at most 150 KB of gzipped JavaScript; the
// shell, settings and other screens load on demand.
const BUDGET = 150 * 1024;

test('the login screen loads at most 150 KB of gzipped JavaScript, and no shell code', async ({ page }) => {
  const scripts: { url: string; gz: number }[] = [];
  page.on('response', async (res) => {
    if (res.request().resourceType() !== 'script') return;
    scripts.push({ url: res.url(), gz: gzipSync(await res.body(), { level: 9 }).length });
  });
  await page.goto('login', { waitUntil: 'networkidle' });
  await expect(page.getByRole('button', { name: 'Log in' })).toBeVisible();
  const total = scripts.reduce((n, s) => n + s.gz, 0);
  expect(total).toBeLessThanOrEqual(BUDGET);
  expect(
    scripts.map((s) => new URL(s.url).pathname).filter((p) => /\/(Layout|FilesPage|SettingsLayout)-/.test(p)),
  ).toEqual([]);
});
