import { apiGet } from '../support/api';
import { expect, PHONE, shot, test } from '../support/fixtures';
import { startServer, type RunningServer } from '../support/server';
import { LoginPage } from '../pages/LoginPage';
import { GlobalSettings } from '../pages/Settings';

// WebDAV in the client (issue 19): the address to mount in Settings → Profile (with --baseurl in
// it), hidden with --disable-webdav, and the Finder-files setting in Settings → Global.
let mounted: RunningServer;
let off: RunningServer;

test.beforeAll(async () => {
  [mounted, off] = await Promise.all([
    startServer({ args: ['--baseurl', '/coffer'], baseurl: '/coffer' }),
    startServer({ args: ['--disable-webdav'] }),
  ]);
});
test.afterAll(async () => {
  await Promise.all([mounted.stop(), off.stop()]);
});

test.describe('the WebDAV card of the profile', () => {
  test.describe.configure({ timeout: 90_000 });

  test('shows the address with the base URL, and the copy button puts it on the clipboard', async ({ page, context }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const login = new LoginPage(page);
    await login.goto(`${mounted.url}/settings/profile`);
    await login.signIn();
    const card = page.getByRole('region', { name: 'Mount your files (WebDAV)' });
    const address = `${mounted.origin}/coffer/dav/`;
    await expect(card.getByTestId('webdav-address')).toHaveText(address);
    await expect(card.getByText(/^Windows: /)).toBeVisible();
    await expect(card.getByText(/^macOS: /)).toBeVisible();
    await expect(card.getByText(`sudo mount -t davfs ${address} /mnt/coffer`)).toBeVisible();
    await expect(card.getByText(/app password/)).toBeVisible();
    await card.getByRole('button', { name: 'Copy address' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Address copied.' })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(address);
    await card.scrollIntoViewIfNeeded();
    await shot(page, 'settings-profile-webdav');
  });

  test('is not there when the server does not serve WebDAV', async ({ page }) => {
    const login = new LoginPage(page);
    await login.goto(`${off.url}/settings/profile`);
    await login.signIn();
    await expect(page.getByRole('region', { name: 'Sessions' }).or(page.getByRole('heading', { name: 'Sessions' })).first()).toBeVisible();
    await expect(page.getByRole('region', { name: 'Mount your files (WebDAV)' })).toHaveCount(0);
  });

  test.describe('on a phone', () => {
    test.use(PHONE);
    test('fits the width', async ({ page }) => {
      const login = new LoginPage(page);
      await login.goto(`${mounted.url}/settings/profile`);
      await login.signIn();
      const card = page.getByRole('region', { name: 'Mount your files (WebDAV)' });
      await card.scrollIntoViewIfNeeded();
      await expect(card.getByTestId('webdav-address')).toBeVisible();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await shot(page, 'settings-profile-webdav');
    });
  });
});

test("the Finder-files setting of the global settings is saved and read back", async ({ page }) => {
  const login = new LoginPage(page);
  await login.goto(`${mounted.url}/settings/global`);
  await login.signIn();
  const global = new GlobalSettings(page);
  const box = global.general().getByRole('checkbox', { name: "Refuse macOS Finder's ._* and .DS_Store files over WebDAV" });
  await expect(box).toBeChecked();
  await box.uncheck();
  expect((await global.save()).status()).toBe(200);
  await expect.poll(async () => (await apiGet<{ webdav: unknown }>(mounted.url, '/settings')).webdav).toEqual({ refuseMacMetadata: false });
  await page.reload();
  await expect(box).not.toBeChecked();
  await box.scrollIntoViewIfNeeded();
  await shot(page, 'settings-global-webdav');
  await box.check();
  expect((await global.save()).status()).toBe(200);
  await expect.poll(async () => (await apiGet<{ webdav: unknown }>(mounted.url, '/settings')).webdav).toEqual({ refuseMacMetadata: true });
});
