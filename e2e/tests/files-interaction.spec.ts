/**
 * The file browser's ways of working with items (spec §2 "File browser"): the header actions,
 * multiple-selection mode, long press, drag and drop, the context menu, keyboard moves, scroll
 * memory on back/forward, re-selection after changes and the help prompt.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { apiLogin, updateUser } from '../support/api';
import { ADMIN } from '../support/server';
import { expect, PHONE, shot, test } from '../support/fixtures';
import { Files } from '../pages/Files';

/** A fresh folder under the worker's root with the given files (name → size in bytes) and folders. */
function seed(root: string, folder: string, files: Record<string, number>, dirs: string[] = []) {
  const base = path.join(root, folder);
  mkdirSync(base, { recursive: true });
  for (const d of dirs) mkdirSync(path.join(base, d), { recursive: true });
  for (const [name, size] of Object.entries(files)) writeFileSync(path.join(base, name), 'x'.repeat(size));
  return base;
}

/** Signs in by storing a token as the login screen would (the login flow has its own tests). */
async function signIn(page: Page, url: string, username = ADMIN.username, password = ADMIN.password) {
  const token = await apiLogin(url, username, password);
  await page.context().addInitScript((jwt) => {
    if (!localStorage.getItem('jwt')) localStorage.setItem('jwt', jwt);
  }, token);
}

/** The admin in list view, sorted by name, opening with a double click. */
async function resetAdmin(url: string, singleClick = false) {
  await updateUser(url, 1, { viewMode: 'list', sorting: { by: 'name', asc: true }, singleClick }, [
    'viewMode',
    'sorting',
    'singleClick',
  ]);
}

test.describe('the file toolbar', () => {
  test.beforeEach(async ({ page, server }) => {
    await resetAdmin(server.url);
    await signIn(page, server.url);
  });

  test('shows the header actions in the spec order, selection actions only with a selection', async ({
    page,
    server,
  }) => {
    seed(server.root, 'tb', { 'a.txt': 1, 'b.txt': 1 });
    const files = new Files(page);
    await files.goto('tb/');
    await expect
      .poll(() => files.toolbarButtons())
      .toEqual([
        'New folder',
        'New file',
        'Switch view List',
        'Download',
        'Upload',
        'Info',
        'Select multiple',
      ]);
    await files.item('a.txt').click();
    await expect
      .poll(() => files.toolbarButtons())
      .toEqual([
        'New folder',
        'New file',
        'Share',
        'Rename',
        'Copy',
        'Move',
        'Delete',
        'Switch view List',
        'Download1',
        'Upload',
        'Info',
        'Select multiple',
        'Clear selection',
      ]);
  });

  test('multiple-selection mode: clicks add and remove, Escape or the toggle ends it', async ({
    page,
    server,
  }) => {
    seed(server.root, 'multi', { 'a.txt': 1, 'b.txt': 1, 'c.txt': 1 });
    const files = new Files(page);
    await files.goto('multi/');
    const toggle = files.action('Select multiple');
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-pressed', 'true');
    await expect(files.selectionBar()).toContainText('Selected: 0');
    await files.item('a.txt').click();
    await files.item('c.txt').click();
    await files.expectSelected(['a.txt', 'c.txt']);
    await files.item('a.txt').click();
    await files.expectSelected(['c.txt']);
    await files.item('b.txt').click();
    await shot(page, 'files-multiple');
    await page.keyboard.press('Escape');
    await expect(toggle).toHaveAttribute('aria-pressed', 'false');
    await files.expectSelected([]);

    // Turning the mode off with the toggle keeps the selection; plain clicks replace it again.
    await toggle.click();
    await files.item('a.txt').click();
    await files.item('b.txt').click();
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-pressed', 'false');
    await files.expectSelected(['a.txt', 'b.txt']);
    await files.item('c.txt').click();
    await files.expectSelected(['c.txt']);
  });

  test('in single-click mode a click opens, but toggles in multiple-selection mode', async ({
    page,
    server,
  }) => {
    seed(server.root, 'single', { 'a.txt': 1 }, ['sub']);
    // The session is renewed when the page starts, so the user's new preference applies.
    await resetAdmin(server.url, true);
    const files = new Files(page);
    await files.goto('single/');
    await files.action('Select multiple').click();
    await files.item('sub').click();
    await files.expectSelected(['sub']);
    await expect(page).toHaveURL(/\/files\/single\/$/);
    await files.action('Select multiple').click();
    await files.item('sub').click();
    await expect(page).toHaveURL(/\/files\/single\/sub\/$/);
  });
});

test.describe('the file toolbar on a phone', () => {
  test.use(PHONE);

  test('multiple-selection mode shows check boxes and the bar with the count and select all', async ({
    page,
    server,
  }) => {
    seed(server.root, 'phone-multi', { 'report.pdf': 2000, 'notes.txt': 30, 'photo.jpg': 10 }, ['docs']);
    await resetAdmin(server.url);
    await signIn(page, server.url);
    const files = new Files(page);
    await files.goto('phone-multi/');
    await files.action('Select multiple').click();
    await files.item('report.pdf').tap();
    await files.item('notes.txt').tap();
    const bar = files.selectionBar();
    await expect(bar).toContainText('Selected: 2');
    await expect(bar.getByRole('button', { name: 'Delete' })).toBeVisible();
    await shot(page, 'files-multiple');
    await bar.getByRole('button', { name: 'Select all' }).tap();
    await expect(bar).toContainText('Selected: 4');
    await bar.getByRole('button', { name: 'Clear selection' }).tap();
    await expect(bar).toBeHidden();
    await expect(files.action('Select multiple')).toHaveAttribute('aria-pressed', 'false');
  });
});
