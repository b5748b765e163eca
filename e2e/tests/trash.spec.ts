/**
 * The trash in the client (docs/api.md §22): a delete says "Move to trash" and its toast's Undo
 * brings the item back; the Trash screen restores (keeping both on a taken name), deletes forever
 * and empties, each confirmed; with `--trash-days 0` the prompt says "Delete forever" and there is
 * no Trash. Each test signs in as a user of its own scope, so the shared server's other deletes
 * stay out of its trash.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { apiLogin, createUser, listByName } from '../support/api';
import { expect, PHONE, shot, test } from '../support/fixtures';
import { seed } from '../support/seed';
import { startServer, type RunningServer } from '../support/server';
import { Files } from '../pages/Files';
import { signInWithToken } from '../pages/LoginPage';
import { Shell } from '../pages/Shell';

let seq = 0;

/** A user whose scope is a fresh folder holding `files`; signed in on `page`. Returns the folder on disk. */
async function asNewUser(
  page: Page,
  server: RunningServer,
  files: Record<string, string>,
): Promise<string> {
  return (await newUser(page, server, files)).dir;
}

async function newUser(page: Page, server: RunningServer, files: Record<string, string>) {
  const username = `bin-${process.pid}-${++seq}`;
  const password = 'trash-password-1';
  const dir = seed(server.root, username, files);
  await createUser(server.url, { username, password, scope: `/${username}` });
  await signInWithToken(page, server.url, username, password);
  return { dir, token: await apiLogin(server.url, username, password) };
}

function trashScreen(page: Page) {
  return {
    table: () => page.getByRole('table', { name: 'Trash' }),
    row: (name: string) => page.getByRole('table', { name: 'Trash' }).getByRole('row').filter({ hasText: name }),
    async open() {
      await new Shell(page).sidebar().getByRole('link', { name: 'Trash', exact: true }).click();
      await expect(page.getByRole('heading', { level: 1, name: 'Trash' })).toBeVisible();
    },
  };
}

test.beforeEach(async ({ server }) => {
  await listByName(server.url);
});

test('a delete moves to the trash and the toast’s Undo brings it back', async ({ page, server }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const dir = await asNewUser(page, server, { 'keep.txt': 'k', 'notes.txt': 'my notes' });
  const files = new Files(page);
  await files.goto('');
  await files.item('notes.txt').click();
  await page.keyboard.press('Delete');
  const dialog = page.getByRole('dialog', { name: 'Move to trash' });
  await expect(dialog).toContainText('Move “notes.txt” to the trash?');
  await shot(page, 'trash-prompt');
  await dialog.getByRole('button', { name: 'Move to trash' }).click();
  await expect(files.item('notes.txt')).toHaveCount(0);
  expect(existsSync(path.join(dir, 'notes.txt'))).toBe(false);

  const toast = page.getByRole('status').filter({ hasText: 'Moved to trash' });
  await expect(toast).toBeVisible();
  // The usage bar tells how much the trash holds.
  await expect(page.getByTestId('usage')).toContainText('in the trash');
  await shot(page, 'trash-toast');
  await toast.getByRole('button', { name: 'Undo' }).click();
  await expect(files.item('notes.txt')).toBeVisible();
  expect(readFileSync(path.join(dir, 'notes.txt'), 'utf8')).toBe('my notes');
  await trashScreen(page).open();
  await expect(page.getByText('The trash is empty.')).toBeVisible();
});

test('the Trash screen lists, sorts, restores (keeping both on a taken name), deletes forever and empties', async ({
  page,
  server,
}) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const dir = await asNewUser(page, server, {
    'docs/report.pdf': 'r'.repeat(3000),
    'docs/a.txt': 'first a',
    'b.txt': 'b',
    'c.txt': 'cc',
  });
  const files = new Files(page);
  await files.goto('docs/');
  await files.item('report.pdf').click();
  await files.deleteSelected('Move “report.pdf” to the trash?');
  await files.item('a.txt').click();
  await files.deleteSelected('Move “a.txt” to the trash?');
  await files.goto('');
  for (const name of ['b.txt', 'c.txt']) {
    await files.item(name).click();
    await files.deleteSelected(`Move “${name}” to the trash?`);
  }
  // A new a.txt takes the old one's place.
  seed(dir, 'docs', { 'a.txt': 'second a' });

  const trash = trashScreen(page);
  await trash.open();
  await expect(page).toHaveURL(/\/trash$/);
  await expect(page.getByText('Deleted items stay here for 30 days')).toBeVisible();
  const names = () => trash.table().locator('[role="cell"].trash-table__cell--name').allTextContents();
  // Newest first, then by name, by size.
  await expect.poll(names).toEqual(['c.txt', 'b.txt', 'a.txt', 'report.pdf']);
  await expect(trash.row('report.pdf')).toContainText('/docs');
  await trash.table().getByRole('button', { name: 'Name' }).click();
  await expect.poll(names).toEqual(['a.txt', 'b.txt', 'c.txt', 'report.pdf']);
  await trash.table().getByRole('button', { name: 'Size' }).click();
  await expect.poll(names).toEqual(['report.pdf', 'a.txt', 'c.txt', 'b.txt']);
  await expect(trash.table().getByRole('columnheader', { name: 'Size' })).toHaveAttribute('aria-sort', 'descending');
  await shot(page, 'trash-screen');

  // Restore into its folder.
  await trash.row('report.pdf').getByRole('button', { name: 'Restore' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Restored to /docs/report.pdf' })).toBeVisible();
  await expect(trash.row('report.pdf')).toHaveCount(0);
  expect(readFileSync(path.join(dir, 'docs/report.pdf'), 'utf8')).toHaveLength(3000);

  // A taken name asks: keep both gives "a(1).txt".
  await trash.row('a.txt').getByRole('button', { name: 'Restore' }).click();
  const conflict = page.getByRole('dialog', { name: 'Name taken' });
  await expect(conflict).toContainText('“a.txt” already exists in /docs.');
  await shot(page, 'trash-conflict');
  await conflict.getByRole('button', { name: 'Keep both' }).click();
  await expect(trash.row('a.txt')).toHaveCount(0);
  expect(readFileSync(path.join(dir, 'docs/a.txt'), 'utf8')).toBe('second a');
  expect(readFileSync(path.join(dir, 'docs/a(1).txt'), 'utf8')).toBe('first a');

  // Delete forever, confirmed (cancel first: nothing happens).
  await trash.row('b.txt').getByRole('button', { name: 'Delete forever' }).click();
  let confirm = page.getByRole('dialog', { name: 'Delete forever' });
  await expect(confirm).toContainText('Delete “b.txt” forever? This cannot be undone.');
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(trash.row('b.txt')).toHaveCount(1);
  await trash.row('b.txt').getByRole('button', { name: 'Delete forever' }).click();
  confirm = page.getByRole('dialog', { name: 'Delete forever' });
  await confirm.getByRole('button', { name: 'Delete forever' }).click();
  await expect(trash.row('b.txt')).toHaveCount(0);
  await expect(trash.row('c.txt')).toHaveCount(1);

  // Empty the trash.
  await page.getByRole('button', { name: 'Empty trash' }).click();
  confirm = page.getByRole('dialog', { name: 'Empty trash' });
  await expect(confirm).toContainText('Delete all 1 items in the trash forever?');
  await confirm.getByRole('button', { name: 'Empty trash' }).click();
  await expect(page.getByText('The trash is empty.')).toBeVisible();
  expect(existsSync(path.join(dir, 'b.txt'))).toBe(false);
  expect(existsSync(path.join(dir, 'c.txt'))).toBe(false);
});

test('an admin sees every user’s trash on asking, with the scope in front of the folder', async ({ page, server }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const { token } = await newUser(page, server, { 'sub/theirs.txt': 't' });
  const res = await fetch(`${server.url}/api/resources/sub/theirs.txt`, { method: 'DELETE', headers: { 'X-Auth': token } });
  expect(res.status).toBe(204);
  const scope = `/bin-${process.pid}-${seq}`;
  // The admin in a browser context of their own.
  const admin = await page.context().browser()!.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const adminPage = await admin.newPage();
    await signInWithToken(adminPage, server.url);
    await adminPage.goto(`${server.url}/trash`);
    const trash = trashScreen(adminPage);
    await expect(adminPage.getByRole('heading', { level: 1, name: 'Trash' })).toBeVisible();
    await expect(trash.row('theirs.txt')).toHaveCount(0);
    await adminPage.getByRole('checkbox', { name: 'Every user’s trash' }).check();
    await expect(trash.row('theirs.txt')).toContainText(`${scope}/sub`);
    await shot(adminPage, 'trash-admin-all');
  } finally {
    await admin.close();
  }
});

test('a big trash shows only the rows in view and scrolls to its last item', async ({ page, server }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  const COUNT = 1500;
  const names = Array.from({ length: COUNT }, (_, i) => `item-${String(i).padStart(4, '0')}.txt`);
  const { token } = await newUser(page, server, Object.fromEntries(names.map((n) => [n, n])));
  // Deleted over the API, eight at a time.
  for (let i = 0; i < COUNT; i += 8) {
    await Promise.all(
      names.slice(i, i + 8).map(async (n) => {
        const res = await fetch(`${server.url}/api/resources/${n}`, { method: 'DELETE', headers: { 'X-Auth': token } });
        expect(res.status).toBe(204);
      }),
    );
  }
  await page.goto(`${server.url}/trash`);
  const trash = trashScreen(page);
  await trash.table().getByRole('button', { name: 'Name' }).click();
  await expect(trash.row('item-0000.txt')).toBeVisible();
  await expect(trash.table()).toHaveAttribute('aria-rowcount', String(COUNT + 1));
  // Virtual rows: a screenful in the page, not 1,500.
  expect(await trash.table().getByRole('row').count()).toBeLessThan(60);
  await page.keyboard.press('End');
  await expect(trash.row('item-1499.txt')).toBeVisible();
  await shot(page, 'trash-big');
});

test.describe('on a phone', () => {
  test.use(PHONE);

  test('deletes with Undo, and the Trash screen restores from the drawer', async ({ page, server }) => {
    const dir = await asNewUser(page, server, { 'photo-with-a-rather-long-name.jpg': 'p', 'memo.txt': 'm' });
    const files = new Files(page);
    await files.goto('');
    for (const name of ['memo.txt', 'photo-with-a-rather-long-name.jpg']) {
      await files.item(name).click();
      await page.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('dialog', { name: 'Move to trash' }).getByRole('button', { name: 'Move to trash' }).click();
      await expect(files.item(name)).toHaveCount(0);
    }
    await expect(page.getByRole('status').filter({ hasText: 'Moved to trash' }).first()).toBeVisible();
    await shot(page, 'trash-phone-toast');
    const shell = new Shell(page);
    await shell.menuButton().click();
    await shell.sidebar().getByRole('link', { name: 'Trash', exact: true }).click();
    const trash = trashScreen(page);
    await expect(trash.row('memo.txt')).toBeVisible();
    await expect(trash.row('photo-with-a-rather-long-name.jpg')).toBeVisible();
    await shot(page, 'trash-phone');
    // Nothing runs off the screen's side.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await trash.row('memo.txt').getByRole('button', { name: 'Restore' }).click();
    await expect(trash.row('memo.txt')).toHaveCount(0);
    expect(readFileSync(path.join(dir, 'memo.txt'), 'utf8')).toBe('m');
  });
});

test.describe('with the trash off (--trash-days 0)', () => {
  let off: RunningServer;
  test.beforeAll(async () => {
    off = await startServer({ args: ['--trash-days', '0'] });
  });
  test.afterAll(async () => {
    await off?.stop();
  });

  test('the prompt says Delete forever, the file is gone at once, and there is no Trash', async ({ page }) => {
    await listByName(off.url);
    const base = seed(off.root, 'off', { 'gone.txt': 'g' });
    await signInWithToken(page, off.url);
    const files = new Files(page);
    await page.goto(`${off.url}/files/off/`);
    await files.item('gone.txt').click();
    await files.deleteSelected('Delete “gone.txt”?', 'Delete forever');
    await expect(files.item('gone.txt')).toHaveCount(0);
    expect(existsSync(path.join(base, 'gone.txt'))).toBe(false);
    await expect(page.getByRole('status').filter({ hasText: 'Moved to trash' })).toHaveCount(0);
    await expect(new Shell(page).sidebar().getByRole('link', { name: 'Trash', exact: true })).toHaveCount(0);
  });
});
