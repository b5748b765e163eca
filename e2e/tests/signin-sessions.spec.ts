/** Settings → Profile: signed-in sessions and app passwords (docs/api.md §2.10, §2.11). */
import type { Page } from '@playwright/test';
import { createUser } from '../support/api';
import { expect, PHONE, shot, test } from '../support/fixtures';
import { LoginPage } from '../pages/LoginPage';

// Types wrong passwords on purpose: a server of its own, so the shared one's login throttle stays clean.
test.use({ serverGroup: 'signin-sessions' });

const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

let counter = 0;

/** A new user, signed in elsewhere as Firefox on Windows and Safari on an iPhone (tokens returned). */
async function userWithDevices(url: string) {
  const name = `sess${process.pid}x${++counter}`;
  const password = `${name}-password`;
  await createUser(url, { username: name, password });
  const tokens: string[] = [];
  for (const ua of [FIREFOX, IPHONE]) {
    const res = await fetch(`${url}/api/login`, {
      method: 'POST',
      headers: { 'User-Agent': ua },
      body: JSON.stringify({ username: name, password }),
    });
    expect(res.status).toBe(200);
    tokens.push(await res.text());
  }
  return { name, password, firefox: tokens[0]!, iphone: tokens[1]! };
}

async function openProfile(page: Page, name: string, password: string) {
  const login = new LoginPage(page);
  await login.goto('settings/profile');
  await login.signIn(name, password);
  await expect(page.getByRole('heading', { level: 1, name: 'Profile settings' })).toBeVisible({
    timeout: 30_000,
  });
}

const sessionList = (page: Page) => page.getByRole('list', { name: 'Signed-in sessions' });
const appPasswordList = (page: Page) => page.getByRole('list', { name: 'App passwords' });
const toast = (page: Page, text: string) => page.getByRole('status').filter({ hasText: text });
const stillValid = async (url: string, token: string) =>
  (await fetch(`${url}/api/resources/`, { headers: { 'X-Auth': token } })).status;

test.describe('sessions and app passwords', () => {
  test.describe.configure({ timeout: 90_000 });

  test('lists the sessions, ends one, then all others', async ({ page, server }) => {
    const u = await userWithDevices(server.url);
    await openProfile(page, u.name, u.password);
    const items = sessionList(page).getByRole('listitem');
    await expect(items).toHaveCount(3);
    const current = sessionList(page).locator('[aria-current="true"]');
    await expect(current).toContainText('This session');
    await expect(current).toContainText('Chrome');
    const firefox = items.filter({ hasText: 'Firefox 128 on Windows 10' });
    await expect(firefox).toContainText('127.0.0.1');
    await expect(firefox).toContainText('Last used');
    await expect(items.filter({ hasText: 'Safari 17 on iOS 17.5' })).toHaveCount(1);
    await page.getByRole('heading', { name: 'Signed-in sessions' }).scrollIntoViewIfNeeded();
    await shot(page, 'signin-sessions');

    await firefox.getByRole('button', { name: 'Sign out' }).click();
    const dialog = page.getByRole('dialog', { name: 'Sign out this session?' });
    await expect(dialog).toContainText('Firefox 128 on Windows 10 will have to sign in again.');
    await dialog.getByRole('button', { name: 'Sign out' }).click();
    await expect(toast(page, 'Session ended.')).toBeVisible();
    await expect(items).toHaveCount(2);
    expect(await stillValid(server.url, u.firefox)).toBe(401);
    expect(await stillValid(server.url, u.iphone)).toBe(200);

    await page.getByRole('button', { name: 'Sign out all other sessions' }).click();
    await page
      .getByRole('dialog', { name: 'Sign out all other sessions?' })
      .getByRole('button', { name: 'Sign out all other sessions' })
      .click();
    await expect(toast(page, 'Other sessions ended.')).toBeVisible();
    await expect(items).toHaveCount(1);
    await expect(page.getByRole('button', { name: 'Sign out all other sessions' })).toHaveCount(0);
    expect(await stillValid(server.url, u.iphone)).toBe(401);
    // This one goes on.
    await page.reload();
    await expect(sessionList(page).getByRole('listitem')).toHaveCount(1);
  });

  test('creates a read-only app password shown once, which reads but cannot write, then revokes it', async ({
    page,
    server,
  }) => {
    const u = await userWithDevices(server.url);
    await openProfile(page, u.name, u.password);
    await expect(page.getByText('No app passwords yet.')).toBeVisible();
    await page.locator('input[name="app-password-name"]').fill('Laptop backup');
    await page.getByLabel('Expires', { exact: true }).selectOption({ label: '30 days' });
    await page.getByRole('checkbox', { name: 'Read-only' }).check();
    // A new app password takes the current password: a wrong one is said at the field.
    const current = page.locator('input[name="app-password-current-password"]');
    await current.fill('not-the-password');
    await page.getByRole('button', { name: 'Create app password' }).click();
    await expect(page.getByText('The current password is incorrect.')).toBeVisible();
    await current.fill(u.password);
    await page.getByRole('button', { name: 'Create app password' }).click();
    const secretBox = page.getByTestId('app-password-secret');
    await expect(secretBox).toHaveText(/^cfap_[A-Za-z0-9_-]{43}$/);
    const secret = (await secretBox.textContent())!;
    await expect(page.getByText('Copy it now: it will not be shown again.')).toBeVisible();
    const item = appPasswordList(page).getByRole('listitem').filter({ hasText: 'Laptop backup' });
    await expect(item).toContainText('Read-only');
    await expect(item).toContainText('Never used');
    await expect(item).toContainText('Expires');
    await shot(page, 'signin-app-password');

    // A script reads with it as a bearer token, and cannot write.
    const auth = { Authorization: `Bearer ${secret}` };
    expect((await fetch(`${server.url}/api/resources/`, { headers: auth })).status).toBe(200);
    expect(
      (await fetch(`${server.url}/api/resources/new-folder/`, { method: 'POST', headers: auth })).status,
    ).toBe(403);
    // It is no account password.
    const form = await fetch(`${server.url}/api/login`, {
      method: 'POST',
      body: JSON.stringify({ username: u.name, password: secret }),
    });
    expect(form.status).toBe(403);

    await page.getByRole('button', { name: 'Done' }).click();
    await expect(secretBox).toHaveCount(0);
    await page.reload();
    await expect(item).toContainText('Last used');
    await expect(page.getByText(secret)).toHaveCount(0);

    await item.getByRole('button', { name: 'Revoke Laptop backup' }).click();
    await page
      .getByRole('dialog', { name: 'Revoke this app password?' })
      .getByRole('button', { name: 'Revoke' })
      .click();
    await expect(toast(page, 'App password revoked.')).toBeVisible();
    await expect(page.getByText('No app passwords yet.')).toBeVisible();
    expect((await fetch(`${server.url}/api/resources/`, { headers: auth })).status).toBe(401);
  });

  test.describe('on a phone', () => {
    test.use(PHONE);

    test('the lists and the new password fit a 375 px screen', async ({ page, server }) => {
      const u = await userWithDevices(server.url);
      await openProfile(page, u.name, u.password);
      await page.locator('input[name="app-password-name"]').fill('Phone sync with a rather long name to wrap');
      await page.locator('input[name="app-password-current-password"]').fill(u.password);
      await page.getByRole('button', { name: 'Create app password' }).click();
      await expect(page.getByTestId('app-password-secret')).toBeVisible();
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width).toBeLessThanOrEqual(375);
      await page.getByRole('heading', { name: 'Signed-in sessions' }).evaluate((h) => h.scrollIntoView());
      await shot(page, 'signin-sessions-phone');
      await page.getByTestId('app-password-secret').scrollIntoViewIfNeeded();
      await shot(page, 'signin-app-password-phone');
    });
  });
});
