/** The file index in the client (docs/api.md §24): folders' recursive sizes in the listing and the info prompt, the index's progress on Settings → Global. */
import { listByName } from '../support/api';
import { expect, shot, test } from '../support/fixtures';
import { seed } from '../support/seed';
import { Files } from '../pages/Files';
import { signIn } from '../pages/LoginPage';

test.describe('folder sizes from the file index', () => {
  test.beforeEach(async ({ server, page }) => {
    await listByName(server.url);
    // 3,000 + 1,500 bytes in "big" (one of them a level down), 10 in "small".
    seed(server.root, 'sizes', { 'big/a.bin': 3000, 'big/deep/b.bin': 1500, 'small/c.txt': 10, 'file.txt': 5 });
    await signIn(page);
  });

  test('the listing shows and sorts folders by their recursive size, the info prompt shows it at once', async ({ page }) => {
    const files = new Files(page);
    // The files were written behind the server's back: the watcher brings them within a second or two.
    await expect(async () => {
      await files.goto('sizes/');
      await expect(files.item('big').locator('.item__size')).toHaveAttribute('data-text', /4\.4 KiB/, { timeout: 1000 });
    }).toPass({ timeout: 20_000 });
    await expect(files.item('small').locator('.item__size')).toHaveAttribute('data-text', /^\u2068?10 B\u2069?$/);
    await expect(files.item('file.txt').locator('.item__size')).toHaveAttribute('data-text', /^\u2068?5 B\u2069?$/);

    // Sorting by size orders the folders by their content, not their directory entries.
    const header = files.sortButton('Size');
    await header.click();
    await expect(header).toHaveAccessibleName(/sorted ascending/);
    await expect.poll(() => files.names()).toEqual(['small', 'big', 'file.txt']);
    await header.click();
    await expect(header).toHaveAccessibleName(/sorted descending/);
    await expect.poll(() => files.names()).toEqual(['big', 'small', 'file.txt']);

    await files.item('big').click();
    await files.action('Info').click();
    const dialog = page.getByRole('dialog', { name: 'Information' });
    await expect(dialog).toContainText('4.4 KiB');
    await expect(dialog).toContainText('(4,500 B)');
    await expect(dialog).toContainText('Folders: 1, files: 1');
    await shot(page, 'index-info-folder');
    await page.keyboard.press('Escape');
  });

  test('Settings → Global shows the file index', async ({ page }) => {
    await page.goto('settings/global');
    await expect(page.getByRole('status').filter({ hasText: /File index: .* entries|Indexing: .* entries, \d+ %/ })).toBeVisible({ timeout: 30_000 });
    await shot(page, 'index-settings');
  });
});
