/**
 * The disk-usage screen (issue 22 item 6, docs/api.md §24.2): reached from the sidebar, a treemap
 * of the folder by bytes from the file index with its legend, the same entries in a table by size;
 * a folder opens on click (map) and on Enter (table), the URL follows, Back and the breadcrumbs
 * lead back up — at 1280 px, on a 375 px phone and in the dark theme; axe finds nothing serious.
 * Without the index (--disable-index) the screen says so and shows no sizes.
 */
import type { Page } from '@playwright/test';
import { seriousViolations } from '../support/axe';
import { expect, PHONE, shot, test } from '../support/fixtures';
import { seed } from '../support/seed';
import { startServer, type RunningServer } from '../support/server';
import { Files } from '../pages/Files';
import { LoginPage, signIn } from '../pages/LoginPage';

const KiB = 1024;
const FILES = {
  'videos/holiday.mp4': 600 * KiB,
  'videos/talk.webm': 200 * KiB,
  'photos/beach.jpg': 150 * KiB,
  'photos/cat.png': 90 * KiB,
  'photos/raw/dsc001.jpg': 60 * KiB,
  'backup.zip': 250 * KiB,
  'docs/report.pdf': 70 * KiB,
  'docs/notes.txt': 12 * KiB,
  'song.mp3': 80 * KiB,
  'disk.img': 40 * KiB,
};

/** The table's rows, first cell (name) of each. */
async function listNames(page: Page): Promise<string[]> {
  return page.getByRole('table', { name: 'Contents by size' }).locator('tbody th > [dir=auto]').allInnerTexts();
}

for (const phone of [false, true]) {
  test.describe(phone ? 'on a phone' : 'on a desktop', () => {
    if (phone) test.use(PHONE);

    test('the sidebar opens the picture; map, legend and table agree; folders open, Back and crumbs lead up', async ({ page, server }) => {
      const folder = `usage-${phone ? 'p' : 'd'}`;
      seed(server.root, folder, FILES, ['empty']);
      await signIn(page);
      await page.goto(`files/${folder}/`);
      if (phone) await page.getByRole('button', { name: 'Open menu' }).click();
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'See what uses space' }).click();
      await expect(page).toHaveURL(new RegExp(`/usage/${folder}/$`));
      await expect(page.getByRole('heading', { level: 1, name: 'Disk usage' })).toBeVisible();

      // The files were written behind the server's back: the watcher brings them in a second or two.
      await expect(async () => {
        await page.reload();
        expect(await listNames(page)).toEqual(['videos', 'photos', 'backup.zip', 'docs', 'song.mp3', 'disk.img', 'empty']);
      }).toPass({ timeout: 20_000 });
      await expect(page.getByText(/1\.5 MiB\W* in this folder/)).toBeVisible();
      const table = page.getByRole('table', { name: 'Contents by size' });
      const videos = table.getByRole('row', { name: /videos/ });
      await expect(videos).toContainText('800 KiB');
      await expect(videos).toContainText('52%');
      const legend = page.getByRole('list', { name: 'Colours' });
      for (const kind of ['Folders', 'Pictures', 'Videos', 'Audio files', 'Documents and text', 'Compressed archives', 'Other files']) {
        await expect(legend.getByRole('listitem').filter({ hasText: kind })).toBeVisible();
      }
      // Each kind has its own colour; the map draws every sized entry (the empty folder has no area).
      const map = page.getByRole('group', { name: 'Map of the contents by size' });
      await expect(map.locator('.usage-map__tile')).toHaveCount(6);
      const colours = await legend.locator('.usage-legend__swatch').evaluateAll((els) => els.map((e) => getComputedStyle(e).backgroundColor));
      expect(new Set(colours).size).toBe(7);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      expect(await seriousViolations(page)).toEqual([]);
      await shot(page, `disk-usage${phone ? '-phone' : ''}`);

      // A click on a folder's rectangle goes into it.
      await map.getByRole('link', { name: /^photos, / }).click();
      await expect(page).toHaveURL(new RegExp(`/usage/${folder}/photos/$`));
      await expect.poll(() => listNames(page)).toEqual(['beach.jpg', 'cat.png', 'raw']);
      await expect(page.getByRole('navigation', { name: 'Location' }).getByRole('link', { name: 'photos' })).toHaveAttribute('aria-current', 'page');
      await shot(page, `disk-usage-inner${phone ? '-phone' : ''}`);

      // Back returns to the folder above.
      await page.goBack();
      await expect(page).toHaveURL(new RegExp(`/usage/${folder}/$`));
      await expect.poll(() => listNames(page)).toContain('videos');

      // Keyboard: Enter on the table's link opens the folder; a crumb leads back up.
      await table.getByRole('link', { name: 'docs' }).focus();
      await page.keyboard.press('Enter');
      await expect(page).toHaveURL(new RegExp(`/usage/${folder}/docs/$`));
      await expect.poll(() => listNames(page)).toEqual(['report.pdf', 'notes.txt']);
      await page.getByRole('navigation', { name: 'Location' }).getByRole('link', { name: folder }).click();
      await expect(page).toHaveURL(new RegExp(`/usage/${folder}/$`));

      // And back to the files.
      await page.getByRole('link', { name: 'Show the files' }).click();
      await expect(page).toHaveURL(new RegExp(`/files/${folder}/$`));

      // A folder's info prompt leads to its picture too (its size is the index's).
      if (!phone) {
        const files = new Files(page);
        await files.item('videos').click();
        await files.action('Info').click();
        const dialog = page.getByRole('dialog', { name: 'Information' });
        await dialog.getByRole('link', { name: 'Disk usage of this folder' }).click();
        await expect(dialog).toHaveCount(0);
        await expect(page).toHaveURL(new RegExp(`/usage/${folder}/videos/$`));
        await expect.poll(() => listNames(page)).toEqual(['holiday.mp4', 'talk.webm']);
      }
    });
  });
}

test.describe('in the dark theme', () => {
  test.use({ colorScheme: 'dark' });

  test('the tiles and legend stay readable', async ({ page, server }) => {
    seed(server.root, 'usage-dark', FILES);
    await signIn(page);
    await expect(page.locator('html')).toHaveClass(/\bdark\b/);
    await expect(async () => {
      await page.goto('usage/usage-dark/');
      expect(await listNames(page)).toContain('videos');
    }).toPass({ timeout: 20_000 });
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'disk-usage-dark');
  });
});

test.describe('on a 4K screen', () => {
  test.use({ viewport: { width: 3840, height: 2160 } });

  test('the map takes the width and the height the screen offers', async ({ page, server }) => {
    seed(server.root, 'usage-4k', FILES);
    await signIn(page);
    await expect(async () => {
      await page.goto('usage/usage-4k/');
      expect(await listNames(page)).toEqual(['videos', 'photos', 'backup.zip', 'docs', 'song.mp3', 'disk.img']);
    }).toPass({ timeout: 20_000 });
    // Before: at most 1440 px for map and table together, the map at most 520 px tall.
    const box = (await page.getByRole('group', { name: 'Map of the contents by size' }).boundingBox())!;
    expect(box.width).toBeGreaterThan(1400);
    expect(box.height).toBeGreaterThan(800);
    const overflow = await page.evaluate(() => document.documentElement.scrollHeight - document.documentElement.clientHeight);
    expect(overflow).toBeLessThanOrEqual(0);
    await shot(page, 'disk-usage-4k');
  });
});

test.describe('without the file index', () => {
  let plain: RunningServer;
  test.beforeAll(async () => {
    plain = await startServer({ args: ['--disable-index'] });
  });
  test.afterAll(async () => {
    await plain.stop();
  });

  test('the screen says the index is off and shows no sizes', async ({ page }) => {
    seed(plain.root, 'no-index', { 'a.bin': 5000 });
    await page.goto(`${plain.url}/login`);
    await new LoginPage(page).signIn();
    await expect(page.getByRole('heading', { level: 1, name: 'My files' })).toBeVisible({ timeout: 30_000 });
    await page.goto(`${plain.url}/usage/no-index/`);
    await expect(page.getByRole('status').filter({ hasText: 'Disk usage needs the file index, which is turned off on this server.' })).toBeVisible();
    await expect(page.getByRole('table')).toHaveCount(0);
    await expect(page.getByText('in this folder')).toHaveCount(0);
    expect(await seriousViolations(page)).toEqual([]);
  });
});
