import type { Page, Request } from '@playwright/test';
import { updateUser } from '../support/api';
import { expect, test } from '../support/fixtures';
import { seed } from '../support/seed';
import { Files } from '../pages/Files';
import { signIn } from '../pages/LoginPage';

/** 3,000 matches: about 120 KB of results, which the throttled connection below takes ~30 s to deliver. */
function seedMatches(root: string, folder = 'search-cancel') {
  const names = Array.from({ length: 3000 }, (_, i) => `needle-${String(i).padStart(4, '0')}.txt`);
  seed(root, folder, Object.fromEntries(names.map((name) => [name, ''])));
}

/**
 * Slows the page's downloads to 4 KB/s (Chromium's network emulation): the real server answers at
 * once, but the search response reaches the page slowly enough to still be running when the
 * overlay goes away.
 */
async function throttle(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 0,
    downloadThroughput: 4000,
    uploadThroughput: -1,
  });
}

const isSearch = (r: Request) => new URL(r.url()).pathname.startsWith('/api/search/');

/** Signed in, in the folder of 3,000 matches. */
async function openMatches(page: Page, server: { url: string; root: string }) {
  seedMatches(server.root);
  await updateUser(server.url, 1, { viewMode: 'list' }, ['viewMode']);
  await signIn(page);
  await new Files(page).goto('search-cancel/');
}

async function startSearch(page: Page) {
  await page.getByRole('button', { name: 'Search' }).click();
  const dialog = page.getByRole('dialog', { name: 'Search' });
  await dialog.getByRole('searchbox').fill('needle');
  const started = page.waitForRequest(isSearch);
  await dialog.getByRole('searchbox').press('Enter');
  const request = await started;
  // Results are arriving, and the search is still running.
  await expect(dialog.getByRole('link').first()).toBeVisible({ timeout: 30_000 });
  await expect(dialog.getByRole('status').filter({ hasText: 'Searching…' })).toBeAttached();
  return { dialog, request };
}

test.describe('the search overlay', () => {
  test.beforeEach(async ({ page, server }) => {
    await openMatches(page, server);
    await throttle(page);
  });

  test('cancels the running search when closed with Escape', async ({ page }) => {
    const { dialog, request } = await startSearch(page);
    const failed = page.waitForEvent('requestfailed', (r) => r === request);
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    expect((await failed).failure()?.errorText).toMatch(/ERR_ABORTED|cancel/i);
  });

  test('cancels the running search when left through a result', async ({ page }) => {
    const { dialog, request } = await startSearch(page);
    const failed = page.waitForEvent('requestfailed', (r) => r === request);
    await dialog.getByRole('link').first().click();
    await expect(dialog).toBeHidden();
    await expect(page).toHaveURL(/\/files\/search-cancel\/needle-\d{4}\.txt$/);
    expect((await failed).failure()?.errorText).toMatch(/ERR_ABORTED|cancel/i);
  });

  test('cancels the running search when a new one starts', async ({ page }) => {
    const { dialog, request } = await startSearch(page);
    const failed = page.waitForEvent('requestfailed', (r) => r === request);
    const next = page.waitForRequest((r) => isSearch(r) && r !== request);
    await dialog.getByRole('searchbox').fill('needle-0001');
    await dialog.getByRole('searchbox').press('Enter');
    expect((await failed).failure()?.errorText).toMatch(/ERR_ABORTED|cancel/i);
    await next;
    await expect(dialog.getByRole('link', { name: 'needle-0001.txt' })).toBeVisible({ timeout: 30_000 });
    await page.keyboard.press('Escape');
  });
});

test.describe('the search overlay, left with Back', () => {
  test('closes and cancels the running search when the browser goes back', async ({ page, server }) => {
    seedMatches(server.root, 'search-back/inner');
    await updateUser(server.url, 1, { viewMode: 'list' }, ['viewMode']);
    await signIn(page);
    const files = new Files(page);
    await files.goto('search-back/');
    // An in-app step into the folder of matches, so that Back stays inside the app.
    await files.item('inner').dblclick();
    await expect(page).toHaveURL(/\/files\/search-back\/inner\/$/);
    await expect(files.items().first()).toBeVisible();
    await throttle(page);
    const { dialog, request } = await startSearch(page);
    const failed = page.waitForEvent('requestfailed', (r) => r === request);
    await page.goBack();
    await expect(page).toHaveURL(/\/files\/search-back\/$/);
    await expect(dialog).toBeHidden();
    expect((await failed).failure()?.errorText).toMatch(/ERR_ABORTED|cancel/i);
    await expect(files.item('inner')).toBeVisible();
  });
});

test.describe('the search overlay with many results', () => {
  test('shows all 1,000 streamed results, 50 more each time the list is scrolled to its end', async ({
    page,
    server,
  }) => {
    await openMatches(page, server);
    await page.getByRole('button', { name: 'Search' }).click();
    const dialog = page.getByRole('dialog', { name: 'Search' });
    await dialog.getByRole('searchbox').fill('needle-1'); // needle-1000 to needle-1999
    await dialog.getByRole('searchbox').press('Enter');
    await expect(dialog.getByRole('status').filter({ hasText: 'Searching…' })).toHaveCount(0, {
      timeout: 30_000,
    });
    const links = dialog.getByRole('link');
    await expect(links).toHaveCount(50);
    // Scrolled to the end again and again (in the page: one round trip, not twenty): 50 more each time.
    const steps = await dialog.locator('.search__results').evaluate(async (el, all) => {
      const count = () => el.querySelectorAll('a').length;
      const seen = [count()];
      while (count() < all) {
        el.scrollTop = el.scrollHeight;
        const until = performance.now() + 5000;
        while (count() === seen.at(-1) && performance.now() < until)
          await new Promise((r) => requestAnimationFrame(r));
        if (count() === seen.at(-1)) return seen;
        seen.push(count());
      }
      return seen;
    }, 1000);
    expect(steps).toEqual(Array.from({ length: 20 }, (_, i) => (i + 1) * 50));
    const names = await links.allTextContents();
    expect(new Set(names).size).toBe(1000);
    for (const n of ['1000', '1500', '1999']) expect(names).toContain(`needle-${n}.txt`);
    await page.keyboard.press('Escape');
  });
});
