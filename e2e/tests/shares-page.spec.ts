import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { createShare, createUser } from '../support/api';
import { expect, PHONE, shot, test } from '../support/fixtures';
import { LoginPage } from '../pages/LoginPage';
import { ADMIN } from '../support/server';

const PASSWORD = 'shares-page-password-1';

async function signIn(page: Page, username: string, password = PASSWORD, target = 'settings/shares') {
  const login = new LoginPage(page);
  await login.goto(target);
  await login.signIn(username, password);
}

async function share(url: string, username: string, itemPath: string, body: object = {}) {
  return (await createShare(url, itemPath, body, { username, password: PASSWORD })).hash;
}

/** A user whose scope is a fresh folder of the worker's root, with a file and a folder in it. */
async function sharer(root: string, url: string, username: string, perm: { share?: boolean } = {}) {
  const base = path.join(root, username);
  mkdirSync(path.join(base, 'docs'), { recursive: true });
  writeFileSync(path.join(base, 'docs', 'plan.txt'), 'plan');
  writeFileSync(path.join(base, 'notes.txt'), 'notes');
  await createUser(url, { username, password: PASSWORD, perm });
  return base;
}

const table = (page: Page) => page.getByRole('table');
const row = (page: Page, text: string) => table(page).getByRole('row').filter({ hasText: text });

test.describe('share management', () => {
  test('lists, opens, copies and deletes the user’s own links; lonely when none', async ({
    page,
    server,
    context,
  }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await sharer(server.root, server.url, 'sm-owner');
    await signIn(page, 'sm-owner');
    await expect(page.getByRole('heading', { name: 'Share management' })).toBeVisible({ timeout: 30_000 });
    await expect(page.getByText('There are no share links.')).toBeVisible();
    await expect(page.getByRole('navigation', { name: 'Settings sections' })).toContainText(
      'Share management',
    );
    await shot(page, 'shares-empty');

    const timed = await share(server.url, 'sm-owner', '/sm-owner/docs/', { expires: '3', unit: 'hours' });
    const permanent = await share(server.url, 'sm-owner', '/sm-owner/notes.txt', { password: 'pw' });
    await page.reload();
    await expect(table(page).getByRole('columnheader')).toHaveText(['Path', 'Expiry', 'Actions']);
    // Permanent first, then by expiry (docs/client.md §9).
    await expect(table(page).getByRole('row').nth(1)).toContainText('/sm-owner/notes.txt');
    await expect(table(page).getByRole('row').nth(1)).toContainText('Permanent');
    await expect(row(page, '/sm-owner/docs/')).toContainText(
      /Expires in (3 hours|2 hours|180 minutes|179 minutes)/,
    );
    await expect(row(page, 'notes.txt').getByRole('img', { name: 'Password protected' })).toBeVisible();
    await shot(page, 'shares-table');

    await row(page, 'notes.txt').getByRole('button', { name: 'Copy link' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Link copied.' })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
      `${server.url}/share/${permanent}`,
    );

    await row(page, '/sm-owner/docs/').getByRole('button', { name: 'Delete link' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete share link' });
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Share link deleted.' })).toBeVisible();
    await expect(row(page, '/sm-owner/docs/')).toHaveCount(0);
    expect((await fetch(`${server.url}/api/public/share/${timed}`)).status).toBe(404);

    await row(page, 'notes.txt').getByRole('link', { name: '/sm-owner/notes.txt' }).click();
    await expect(page).toHaveURL(/\/files\/sm-owner\/notes\.txt$/);
  });

  test('shows admins every link with its owner', async ({ page, server }) => {
    await sharer(server.root, server.url, 'sm-other');
    await share(server.url, 'sm-other', '/sm-other/notes.txt');
    await signIn(page, ADMIN.username, ADMIN.password);
    await expect(page.getByRole('heading', { name: 'Share management' })).toBeVisible({ timeout: 30_000 });
    await expect(table(page).getByRole('columnheader')).toHaveText(['Path', 'Expiry', 'User', 'Actions']);
    const other = row(page, '/sm-other/notes.txt');
    await expect(other.getByRole('cell').nth(2)).toHaveText('sm-other');
    // Another owner's path is not a place in the admin's own files.
    await expect(other.getByRole('link')).toHaveCount(0);
  });

  test('is neither in the menu nor usable without the share permission', async ({ page, server }) => {
    await sharer(server.root, server.url, 'sm-noshare', { share: false });
    await signIn(page, 'sm-noshare', PASSWORD, 'settings/profile');
    await expect(page.getByRole('heading', { name: 'Profile settings' })).toBeVisible({ timeout: 30_000 });
    await expect(page.getByRole('navigation', { name: 'Settings sections' })).not.toContainText(
      'Share management',
    );
    await page.goto('settings/shares');
    await expect(page.getByText("You don't have permission to access this.")).toBeVisible();
  });
});

test.describe('share management on a phone', () => {
  test.use(PHONE);

  test('stacks each link', async ({ page, server }) => {
    await sharer(server.root, server.url, 'sm-phone');
    await share(server.url, 'sm-phone', '/sm-phone/docs/', { expires: '10', unit: 'days' });
    await share(server.url, 'sm-phone', '/sm-phone/notes.txt');
    await signIn(page, 'sm-phone');
    await expect(row(page, 'notes.txt')).toBeVisible({ timeout: 30_000 });
    await shot(page, 'shares-table');
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect(page.locator('html')).toHaveClass(/\bdark\b/);
    await shot(page, 'shares-table-dark');
  });
});
