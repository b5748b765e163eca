import { createUser, listByName, sharesOf, updateUser } from '../support/api';
import { expect, PHONE, shot, test } from '../support/fixtures';
import { seed } from '../support/seed';
import { Files } from '../pages/Files';
import { signIn } from '../pages/LoginPage';

/** A folder with a file and a subfolder to share. */
function seedShares(root: string, folder: string) {
  seed(root, folder, { 'report.txt': 'quarterly numbers', 'album/a.txt': 'a' });
}

test.describe('the share prompt', () => {
  test.beforeEach(async ({ page, server }) => {
    await listByName(server.url);
    await signIn(page);
  });

  test('creates a permanent link, a timed protected one, copies and deletes them', async ({
    page,
    server,
    context,
  }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    seedShares(server.root, 'share-flow');
    const files = new Files(page);
    await files.goto('share-flow/');
    await files.item('report.txt').click();
    await files.action('Share').click();
    const dialog = page.getByRole('dialog', { name: 'Share' });
    // No links yet: the prompt opens on the create view, the duration focused.
    const duration = dialog.getByLabel('Expires after');
    await expect(duration).toBeFocused();
    await expect(duration).toHaveValue('0');
    await expect(dialog.getByLabel('Unit')).toHaveValue('hours');
    await shot(page, 'share-create');
    await dialog.getByRole('button', { name: 'Create link' }).click();

    const links = dialog.getByRole('list', { name: 'Share links' });
    await expect(links.getByRole('listitem')).toHaveCount(1);
    await expect(links).toContainText('Permanent');
    const [permanent] = await sharesOf(server.url, '/share-flow/report.txt');
    expect(permanent).toMatchObject({ expire: 0, hasPassword: false, path: '/share-flow/report.txt' });
    await expect(links.getByRole('link', { name: permanent!.hash })).toHaveAttribute(
      'href',
      `${server.url}/share/${permanent!.hash}`,
    );

    await dialog.getByRole('button', { name: 'New link' }).click();
    await dialog.getByLabel('Expires after').fill('1.5');
    await dialog.getByRole('button', { name: 'Create link' }).click();
    await expect(dialog.getByText('Enter a whole number from 0 to 2147483647.')).toBeVisible();
    await expect(dialog.getByLabel('Expires after')).toHaveAttribute('aria-invalid', 'true');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(links.getByRole('listitem')).toHaveCount(1);
    await expect(dialog.getByRole('button', { name: 'New link' })).toBeFocused();

    await dialog.getByRole('button', { name: 'New link' }).click();
    await dialog.getByLabel('Expires after').fill('2');
    await dialog.getByLabel('Unit').selectOption('days');
    await dialog.getByLabel('Password (optional)').fill('  open sesame  ');
    const before = Math.floor(Date.now() / 1000);
    await dialog.getByRole('button', { name: 'Create link' }).click();
    await expect(links.getByRole('listitem')).toHaveCount(2);
    // Permanent first, then by expiry (docs/client.md §9).
    await expect(links.getByRole('listitem').nth(0)).toContainText('Permanent');
    await expect(links.getByRole('listitem').nth(1)).toContainText('Expires in 2 days');
    await expect(links.getByRole('listitem').nth(1)).toContainText('Password protected');
    const timed = (await sharesOf(server.url, '/share-flow/report.txt')).find((s) => s.expire !== 0)!;
    expect(timed.hasPassword).toBe(true);
    expect(timed.expire).toBeGreaterThanOrEqual(before + 2 * 86400);
    expect(timed.expire).toBeLessThanOrEqual(before + 2 * 86400 + 60);
    // The password was trimmed: the untrimmed one is refused, the trimmed one opens the link.
    const open = (pw: string) =>
      fetch(`${server.url}/api/public/share/${timed.hash}`, {
        headers: { 'X-SHARE-PASSWORD': encodeURIComponent(pw) },
      });
    expect((await open('open sesame')).status).toBe(200);
    await shot(page, 'share-list');

    await links.getByRole('listitem').nth(1).getByRole('button', { name: 'Copy link' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Link copied.' })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
      `${server.url}/share/${timed.hash}`,
    );

    await links.getByRole('listitem').nth(0).getByRole('button', { name: 'Delete link' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete share link' });
    await expect(confirm).toContainText('will no longer be able to open it');
    await shot(page, 'share-delete');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await expect(links.getByRole('listitem')).toHaveCount(2);
    await links.getByRole('listitem').nth(0).getByRole('button', { name: 'Delete link' }).click();
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Share link deleted.' })).toBeVisible();
    await expect(links.getByRole('listitem')).toHaveCount(1);
    expect((await sharesOf(server.url, '/share-flow/report.txt')).map((s) => s.hash)).toEqual([timed.hash]);

    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
  });

  test('shares a folder by its folder path and lists what exists when reopened', async ({ page, server }) => {
    seedShares(server.root, 'share-folder');
    const files = new Files(page);
    await files.goto('share-folder/');
    await files.item('album').click();
    await files.action('Share').click();
    const dialog = page.getByRole('dialog', { name: 'Share' });
    await dialog.getByLabel('Expires after').fill('30');
    await dialog.getByLabel('Unit').selectOption('minutes');
    await dialog.getByRole('button', { name: 'Create link' }).click();
    await expect(dialog.getByRole('list', { name: 'Share links' })).toContainText('Expires in 30 minutes');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect(dialog).toBeHidden();
    expect(await sharesOf(server.url, '/share-folder/album/')).toHaveLength(1);

    await files.action('Share').click();
    await expect(dialog.getByRole('list', { name: 'Share links' }).getByRole('listitem')).toHaveCount(1);
    await expect(dialog.getByRole('button', { name: 'New link' })).toBeVisible();
  });

  test('offers sharing only with the share permission and exactly one item', async ({ page, server }) => {
    seedShares(server.root, 'share-perm');
    const files = new Files(page);
    await files.goto('share-perm/');
    await files.item('report.txt').click();
    await expect(files.action('Share')).toBeVisible();
    await files.item('album').click({ modifiers: ['ControlOrMeta'] });
    await expect(files.action('Share')).toHaveCount(0);

    await createUser(server.url, {
      username: 'noshare',
      password: 'noshare-password-1',
      perm: { share: false },
    });
    await page.context().clearCookies();
    await page.evaluate(() => localStorage.clear());
    await signIn(page, 'noshare', 'noshare-password-1');
    await files.goto('share-perm/');
    await files.item('report.txt').click();
    await expect(files.action('Rename')).toBeVisible();
    await expect(files.action('Share')).toHaveCount(0);
  });
});

test.describe('the share prompt on a phone', () => {
  test.use(PHONE);

  test('is reached from the selection bar and fits the screen', async ({ page, server }) => {
    seedShares(server.root, 'share-phone');
    await updateUser(server.url, 1, { viewMode: 'list' }, ['viewMode']);
    await signIn(page);
    const files = new Files(page);
    await files.goto('share-phone/');
    await files.item('report.txt').click();
    await files.selectionBar().getByRole('button', { name: 'Share' }).click();
    const dialog = page.getByRole('dialog', { name: 'Share' });
    await expect(dialog.getByLabel('Expires after')).toBeFocused();
    await shot(page, 'share-create');
    await dialog.getByLabel('Expires after').fill('12');
    await dialog.getByLabel('Password (optional)').fill('pw');
    await dialog.getByRole('button', { name: 'Create link' }).click();
    await dialog.getByRole('button', { name: 'New link' }).click();
    await dialog.getByRole('button', { name: 'Create link' }).click();
    await expect(dialog.getByRole('list', { name: 'Share links' }).getByRole('listitem')).toHaveCount(2);
    await shot(page, 'share-list');
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect(page.locator('html')).toHaveClass(/\bdark\b/);
    await shot(page, 'share-list-dark');
  });
});
