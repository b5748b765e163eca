import type { Locator } from '@playwright/test';
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { apiGet, createUser, listByName } from '../support/api';
import { expect, PHONE, shot, test } from '../support/fixtures';
import { seed } from '../support/seed';
import { Files } from '../pages/Files';
import { signIn } from '../pages/LoginPage';

test.describe('the file browser', () => {
  test.beforeEach(async ({ page, server }) => {
    await listByName(server.url);
    await signIn(page);
  });

  test('lists folders first in natural order, sorts by size, and shows an empty folder', async ({
    page,
    server,
  }) => {
    const base = seed(server.root, 'sorting', { 'file10.txt': 1, 'file2.txt': 300, 'File1.txt': 20 }, [
      'zeta',
      'alpha',
    ]);
    utimesSync(path.join(base, 'file2.txt'), new Date('2020-01-02'), new Date('2020-01-02'));
    const files = new Files(page);
    await files.goto('sorting/');
    await expect(page).toHaveTitle(/^sorting - Files - /);
    await expect(files.item('file10.txt')).toBeVisible();
    expect(await files.names()).toEqual(['alpha', 'zeta', 'File1.txt', 'file2.txt', 'file10.txt']);
    // Two lists, each under its heading: "Folders" above alpha, "Files" between zeta and File1.txt.
    const top = async (l: Locator) => (await l.boundingBox())?.y ?? Number.NaN;
    const heading = (name: string) => files.listing().locator('.listing__heading', { hasText: name });
    const [folders, alpha, zeta, filesHeading, file1] = await Promise.all(
      [
        heading('Folders'),
        files.item('alpha'),
        files.item('zeta'),
        heading('Files'),
        files.item('File1.txt'),
      ].map(top),
    );
    expect(folders).toBeLessThan(alpha!);
    expect(zeta).toBeLessThan(filesHeading!);
    expect(filesHeading).toBeLessThan(file1!);
    await files.sortButton('Size').click();
    await expect.poll(() => files.names()).toEqual(['alpha', 'zeta', 'file10.txt', 'File1.txt', 'file2.txt']);
    await files.sortButton('Size').click();
    await expect.poll(() => files.names()).toEqual(['zeta', 'alpha', 'file2.txt', 'File1.txt', 'file10.txt']);
    await shot(page, 'files-list');
    await files.item('alpha').dblclick();
    await expect(page).toHaveURL(/\/files\/sorting\/alpha\/$/);
    await expect(page.getByText('This folder is empty.')).toBeVisible();
    await page.goBack();
    await expect(files.item('alpha')).toBeVisible();
    await page.goForward();
    await expect(page.getByText('This folder is empty.')).toBeVisible();
  });

  test("a name sorting reads and saves File Browser's stored flag: asc false is A→Z (docs/api.md §7.5)", async ({
    page,
    server,
  }) => {
    seed(server.root, 'name-order', { 'b.txt': 1, 'a10.txt': 1, 'a9.txt': 1 }, ['dir']);
    const files = new Files(page);
    await files.goto('name-order/');
    await expect(files.item('b.txt')).toBeVisible();
    expect(await files.names()).toEqual(['dir', 'a9.txt', 'a10.txt', 'b.txt']);
    await files.sortButton('Name').click();
    await expect.poll(() => files.names()).toEqual(['dir', 'b.txt', 'a10.txt', 'a9.txt']);
    await expect
      .poll(async () => (await apiGet<{ sorting: unknown }>(server.url, '/users/1')).sorting)
      .toEqual({ by: 'name', asc: true });
    // The server's own order for that flag is the same Z→A (what File Browser's client shows).
    const listing = await apiGet<{ items: { name: string }[] }>(server.url, '/resources/name-order/');
    expect(listing.items.map((i) => i.name)).toEqual(['dir', 'b.txt', 'a10.txt', 'a9.txt']);
    await page.reload();
    await expect.poll(() => files.names()).toEqual(['dir', 'b.txt', 'a10.txt', 'a9.txt']);
  });

  test('breadcrumbs show the last 4 segments, "..." when cut, and deep links survive reload', async ({
    page,
    server,
  }) => {
    mkdirSync(path.join(server.root, 'a/b/c/d/e'), { recursive: true });
    const files = new Files(page);
    await files.goto('a/b/c/d/e/');
    const crumbs = files.breadcrumbs();
    await expect(crumbs.getByRole('link')).toHaveText(['Home', '...', 'c', 'd', 'e']);
    await page.reload();
    await expect(page.getByRole('heading', { level: 1, name: 'e' })).toBeVisible();
    await crumbs.getByRole('link', { name: '...' }).click();
    await expect(page).toHaveURL(/\/files\/a\/b\/$/);
    await expect(crumbs.getByRole('link')).toHaveText(['Home', 'a', 'b']);
    await crumbs.getByRole('link', { name: 'Home' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'My files' })).toBeVisible();
  });

  test('selects with click, Ctrl+click, Shift ranges, Ctrl+A, and clears with Escape', async ({
    page,
    server,
  }) => {
    seed(server.root, 'select', { 'a.txt': 1, 'b.txt': 1, 'c.txt': 1, 'd.txt': 1, 'e.txt': 1 });
    const files = new Files(page);
    await files.goto('select/');
    await files.item('b.txt').click();
    await files.expectSelected(['b.txt']);
    await files.item('d.txt').click({ modifiers: ['Shift'] });
    await files.expectSelected(['b.txt', 'c.txt', 'd.txt']);
    await files.item('c.txt').click({ modifiers: ['ControlOrMeta'] });
    await files.expectSelected(['b.txt', 'd.txt']);
    await expect(files.selectionBar()).toContainText('Selected: 2');
    await page.keyboard.press('Escape');
    await files.expectSelected([]);
    await page.keyboard.press('ControlOrMeta+a');
    await files.expectSelected(['a.txt', 'b.txt', 'c.txt', 'd.txt', 'e.txt']);
  });

  test('keeps a constant number of rows in the DOM at 100,000 entries', async ({ page, server }) => {
    test.setTimeout(120_000);
    const base = path.join(server.root, 'big');
    if (!existsSync(base)) {
      mkdirSync(base);
      for (let i = 0; i < 100_000; i++) writeFileSync(path.join(base, `f${i}.txt`), '');
    }
    const files = new Files(page);
    await page.goto('files/big/');
    await expect(files.item('f0.txt')).toBeVisible({ timeout: 60_000 });
    const shown = await files.items().count();
    expect(shown).toBeGreaterThan(5);
    expect(shown).toBeLessThan(60);
    await expect(files.item('f0.txt')).toHaveAttribute('aria-setsize', '100000');
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await expect(files.item('f99999.txt')).toBeVisible();
    expect(await files.items().count()).toBeLessThan(60);
  });

  test('switches list, mosaic and gallery views and keeps the choice after reload', async ({
    page,
    server,
  }) => {
    seed(server.root, 'views', { 'one.txt': 5, 'two.txt': 5 }, ['sub']);
    const files = new Files(page);
    await files.goto('views/');
    const button = page.getByRole('button', { name: /^Switch view/ });
    await expect(button).toContainText('List');
    await button.click();
    await expect(button).toContainText('Mosaic');
    await shot(page, 'files-mosaic');
    // Saved to the user, and the renewed token carries it: a reload keeps it.
    const renewed = page.waitForResponse((r) => r.url().endsWith('/api/renew') && r.ok());
    await button.click();
    await expect(button).toContainText('Gallery');
    await renewed;
    await page.reload();
    await expect(page.getByRole('button', { name: /^Switch view/ })).toContainText('Gallery');
    await shot(page, 'files-gallery');
    await page.getByRole('button', { name: /^Switch view/ }).click();
    await expect(page.getByRole('button', { name: /^Switch view/ })).toContainText('List');
  });

  test('creates, renames, downloads and deletes with prompts', async ({ page, server }) => {
    seed(server.root, 'actions', { 'keep.txt': 10, 'other.txt': 10 });
    const files = new Files(page);
    await files.goto('actions/');
    await files.create('New folder', 'photos');
    expect(existsSync(path.join(server.root, 'actions/photos'))).toBe(true);
    await files.create('New file', 'notes.md');
    await files.rename('notes.md', 'todo.md');
    expect(existsSync(path.join(server.root, 'actions/todo.md'))).toBe(true);

    await files.item('keep.txt').click();
    const single = page.waitForEvent('download');
    await files
      .toolbar()
      .getByRole('button', { name: /^Download/ })
      .click();
    expect((await single).suggestedFilename()).toBe('keep.txt');

    await files.item('other.txt').click({ modifiers: ['ControlOrMeta'] });
    await files
      .toolbar()
      .getByRole('button', { name: /^Download/ })
      .click();
    const formats = page.getByRole('dialog', { name: 'Download' });
    await shot(page, 'files-download-prompt');
    const archive = page.waitForEvent('download');
    await formats.getByRole('button', { name: '.tar.gz' }).click();
    expect((await archive).suggestedFilename()).toMatch(/\.tar\.gz$/);

    await files.deleteSelected('Move the 2 selected items to the trash?');
    await expect(files.item('keep.txt')).toHaveCount(0);
    await expect(files.item('other.txt')).toHaveCount(0);
    expect(existsSync(path.join(server.root, 'actions/keep.txt'))).toBe(false);
    await files.item('todo.md').click();
    await files.deleteSelected('Move “todo.md” to the trash?');
    await expect(files.item('todo.md')).toHaveCount(0);
  });
});

test.describe('copy and move', () => {
  test.beforeEach(async ({ page, server }) => {
    await listByName(server.url);
    await signIn(page);
  });

  test('copies and moves through the folder picker, asking before replacing', async ({ page, server }) => {
    seed(server.root, 'transfer', { 'a.txt': 3, 'b.txt': 4 }, ['dest']);
    writeFileSync(path.join(server.root, 'transfer/dest/a.txt'), 'old');
    const files = new Files(page);
    await files.goto('transfer/');
    await files.item('b.txt').click();
    await files.toolbar().getByRole('button', { name: 'Copy' }).click();
    const picker = page.getByRole('dialog', { name: 'Copy' });
    await picker.getByRole('button', { name: 'dest' }).click();
    await expect(picker).toContainText('/transfer/dest/');
    await shot(page, 'files-copy-picker');
    await picker.getByRole('button', { name: 'Copy', exact: true }).click();
    await expect(picker).toBeHidden();
    await expect.poll(() => existsSync(path.join(server.root, 'transfer/dest/b.txt'))).toBe(true);
    expect(existsSync(path.join(server.root, 'transfer/b.txt'))).toBe(true);

    // Move is disabled while the destination is the current folder.
    await files.item('a.txt').click();
    await files.toolbar().getByRole('button', { name: 'Move' }).click();
    const mover = page.getByRole('dialog', { name: 'Move' });
    await expect(mover.getByRole('button', { name: 'Move', exact: true })).toBeDisabled();
    await mover.getByRole('button', { name: 'dest' }).click();
    await mover.getByRole('button', { name: 'Move', exact: true }).click();
    const replace = page.getByRole('dialog', { name: 'Replace items?' });
    await expect(replace).toBeVisible();
    await replace.getByRole('button', { name: 'Overwrite' }).click();
    await expect(files.item('a.txt')).toHaveCount(0);
    await expect.poll(() => readFileSync(path.join(server.root, 'transfer/dest/a.txt'), 'utf8')).toBe('xxx');
  });

  test('Ctrl+C then Ctrl+V in the same folder copies with a new name; Ctrl+X moves', async ({
    page,
    server,
  }) => {
    seed(server.root, 'clip', { 'note.txt': 2 }, ['inner']);
    const files = new Files(page);
    await files.goto('clip/');
    await files.item('note.txt').click();
    await page.keyboard.press('ControlOrMeta+c');
    await page.keyboard.press('ControlOrMeta+v');
    await expect(files.items()).toHaveCount(3);
    await files.item('note.txt').click();
    await page.keyboard.press('ControlOrMeta+x');
    await files.item('inner').dblclick();
    await expect(page).toHaveURL(/\/files\/clip\/inner\/$/);
    // The keys belong to the folder's browser: it is there once the folder is shown.
    await expect(page.getByText('This folder is empty.')).toBeVisible();
    await page.keyboard.press('ControlOrMeta+v');
    await expect(files.item('note.txt')).toBeVisible();
    expect(existsSync(path.join(server.root, 'clip/note.txt'))).toBe(false);
  });
});

test.describe('the file browser without create, rename, delete and download', () => {
  test('hides the actions the user may not use', async ({ page, server }) => {
    seed(server.root, 'readonly', { 'a.txt': 1, 'b.txt': 1 });
    await createUser(server.url, {
      username: 'viewer',
      password: 'viewer-password-2024',
      perm: { create: false, rename: false, delete: false, download: false, share: false },
    });
    await signIn(page, 'viewer', 'viewer-password-2024');
    const files = new Files(page);
    await files.goto('readonly/');
    await files.item('a.txt').click();
    await files.expectSelected(['a.txt']);
    for (const name of ['New folder', 'New file', 'Rename', 'Delete']) {
      await expect(page.getByRole('button', { name, exact: true })).toHaveCount(0);
    }
    await expect(page.getByRole('button', { name: /^Download/ })).toHaveCount(0);
    await page.keyboard.press('F2');
    await page.keyboard.press('Delete');
    await expect(page.getByRole('dialog')).toHaveCount(0);
  });
});

test.describe('the file browser on a phone', () => {
  test.use(PHONE);

  test('shows rename and delete in their own bar with the selection count', async ({ page, server }) => {
    seed(server.root, 'phone', { 'report.pdf': 2000, 'summary.txt': 30 }, ['docs']);
    await listByName(server.url);
    await signIn(page);
    const files = new Files(page);
    await files.goto('phone/');
    await expect(files.item('report.pdf')).toBeVisible();
    await shot(page, 'files-list');
    await expect(files.toolbar().getByRole('button', { name: 'Rename' })).toBeHidden();
    await files.item('report.pdf').click();
    const bar = files.selectionBar();
    await expect(bar).toContainText('Selected: 1');
    await expect(bar.getByRole('button', { name: 'Rename' })).toBeVisible();
    await expect(bar.getByRole('button', { name: 'Delete' })).toBeVisible();
    await shot(page, 'files-selection');
    await bar.getByRole('button', { name: 'Rename' }).click();
    await expect(page.getByRole('dialog', { name: 'Rename' })).toBeVisible();
    await shot(page, 'files-rename');
  });
});
