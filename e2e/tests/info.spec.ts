import { createHash } from 'node:crypto';
import { createUser, listByName, updateUser } from '../support/api';
import { expect, PHONE, shot, test } from '../support/fixtures';
import { png } from '../support/png';
import { seed } from '../support/seed';
import { Files } from '../pages/Files';
import { signIn } from '../pages/LoginPage';

const TEXT = 'checksum me\n'.repeat(200);

function seedInfo(root: string) {
  seed(
    root,
    'info',
    { 'photos/one.txt': 'one', 'photos/two.txt': 'two', 'notes.txt': TEXT, 'wide.png': png(64, 24) },
    ['photos/inner'],
  );
}

test.describe('the info prompt', () => {
  test.beforeEach(async ({ server, page }) => {
    await listByName(server.url);
    seedInfo(server.root);
    await signIn(page);
  });

  test('shows a file with its size, type, date and checksums computed on demand', async ({
    page,
    context,
  }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const files = new Files(page);
    await files.goto('info/');
    await files.item('notes.txt').click();
    await files.action('Info').click();
    const dialog = page.getByRole('dialog', { name: 'Information' });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole('definition').first()).toHaveText('notes.txt');
    await expect(dialog).toContainText('2.3 KiB');
    await expect(dialog).toContainText('(2,400 B)');
    await expect(dialog).toContainText('Text');
    await expect(dialog.locator('time')).toBeVisible();
    await expect(dialog).toContainText(/\(now|\(\d+ seconds? ago|\(\d+ minutes? ago/);
    await dialog.getByRole('button', { name: 'Compute SHA-256' }).click();
    const sha256 = createHash('sha256').update(TEXT).digest('hex');
    await expect(dialog.getByText(sha256)).toBeVisible();
    await dialog.getByRole('button', { name: 'Compute MD5' }).click();
    await expect(dialog.getByText(createHash('md5').update(TEXT).digest('hex'))).toBeVisible();
    await shot(page, 'info-file');
    await dialog.getByRole('button', { name: 'Copy SHA-256' }).click();
    await expect(
      page.getByRole('status').filter({ hasText: 'SHA-256 copied to the clipboard.' }),
    ).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(sha256);
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
  });

  test("measures an image and counts a folder's items", async ({ page }) => {
    const files = new Files(page);
    await files.goto('info/');
    await files.item('wide.png').click();
    await files.action('Info').click();
    const dialog = page.getByRole('dialog', { name: 'Information' });
    await expect(dialog).toContainText('Image');
    await expect(dialog).toContainText('64 × 24');
    await dialog.getByRole('button', { name: 'OK' }).click();
    await files.item('photos').click();
    await files.action('Info').click();
    await expect(dialog).toContainText('Folders: 1, files: 2');
    await expect(dialog).toContainText('Folder');
    await expect(dialog.getByRole('button', { name: /^Compute/ })).toHaveCount(0);
    await shot(page, 'info-folder');
    await page.keyboard.press('Escape');
  });

  test('sums several items, and describes the folder itself when nothing is selected', async ({ page }) => {
    const files = new Files(page);
    await files.goto('info/');
    await files.action('Info').click();
    const dialog = page.getByRole('dialog', { name: 'Information' });
    await expect(dialog.getByRole('definition').first()).toHaveText('info');
    await expect(dialog).toContainText('Folders: 1, files: 2');
    await page.keyboard.press('Escape');
    await files.item('notes.txt').click();
    await files.item('wide.png').click({ modifiers: ['ControlOrMeta'] });
    await files.item('photos').click({ modifiers: ['ControlOrMeta'] });
    await files.action('Info').click();
    await expect(dialog).toContainText('Selected items3');
    await expect(dialog).toContainText('Folders: 1, files: 2');
    const pngBytes = png(64, 24).length;
    await expect(dialog).toContainText(`Total size`);
    await expect(dialog).toContainText(`(${(2400 + pngBytes).toLocaleString('en-US')} B)`);
    await shot(page, 'info-many');
  });

  test('offers no checksums without the download permission', async ({ page, server }) => {
    await createUser(server.url, {
      username: 'info-nodl',
      password: 'info-nodl-password-1',
      perm: { download: false, share: false },
    });
    await page.context().clearCookies();
    await page.evaluate(() => localStorage.clear());
    await signIn(page, 'info-nodl', 'info-nodl-password-1');
    const files = new Files(page);
    await files.goto('info/');
    await files.item('notes.txt').click();
    await files.action('Info').click();
    const dialog = page.getByRole('dialog', { name: 'Information' });
    await expect(dialog).toContainText('notes.txt');
    await expect(dialog.getByRole('button', { name: /^Compute/ })).toHaveCount(0);
  });
});

test.describe('the info prompt on a phone', () => {
  test.use(PHONE);

  test('fits the screen, also in the dark theme', async ({ page, server }) => {
    seedInfo(server.root);
    await updateUser(server.url, 1, { viewMode: 'list' }, ['viewMode']);
    await signIn(page);
    const files = new Files(page);
    await files.goto('info/');
    await files.item('notes.txt').click();
    await files.action('Info').click();
    const dialog = page.getByRole('dialog', { name: 'Information' });
    await dialog.getByRole('button', { name: 'Compute SHA-512' }).click();
    await expect(dialog.locator('code')).toBeVisible();
    await shot(page, 'info-file');
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect(page.locator('html')).toHaveClass(/\bdark\b/);
    await shot(page, 'info-file-dark');
  });
});
