/**
 * The file browser's actions end to end (docs/client.md §2 "File browser" and "Prompts", §4 "Paste", §5,
 * docs/client.md §8): Ctrl+S downloads, keep-both through the folder picker and the clipboard's replace prompt,
 * the picker's New folder, sorting by last modified and the error prompt of a failed action.
 */
import { existsSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import path from 'node:path';
import type { Download } from '@playwright/test';
import { apiGet, createUser, listByName } from '../support/api';
import { expect, shot, test } from '../support/fixtures';
import { seed } from '../support/seed';
import { Files } from '../pages/Files';
import { signInWithToken } from '../pages/LoginPage';

/** The downloaded bytes (Playwright saves a download to a temporary file). */
async function bytesOf(download: Download): Promise<Buffer> {
  return readFileSync(await download.path());
}

/** A file's text, or null while it is not there (yet): for polling the disk after an action. */
const read = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : null);

/**
 * Puts `name` on the clipboard (Ctrl+C or Ctrl+X), opens the folder `into` that holds the same
 * name, pastes there, sees the replace prompt ask first and cancels it. Returns the prompt.
 */
async function pasteOntoSameName(files: Files, name: string, key: 'c' | 'x', into: string) {
  const page = files.page;
  await files.item(name).click();
  await page.keyboard.press(`ControlOrMeta+${key}`);
  await files.item(into).dblclick();
  await expect(page).toHaveURL(new RegExp(`/${into}/$`));
  await expect(files.item(name)).toBeVisible();
  const replace = page.getByRole('dialog', { name: 'Replace items?' });
  await page.keyboard.press('ControlOrMeta+v');
  await expect(replace).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(replace).toHaveCount(0);
  return replace;
}

test.describe('file actions', () => {
  test.beforeEach(async ({ page, server }) => {
    await listByName(server.url);
    await signInWithToken(page, server.url);
  });

  test('Ctrl+S downloads one file directly; several items or a folder ask for an archive format', async ({
    page,
    server,
  }) => {
    seed(server.root, 'ctrl-s', {
      'one.txt': 'first file',
      'two.txt': 'second file',
      'sub/inner.txt': 'inside',
    });
    const files = new Files(page);
    await files.goto('ctrl-s/');
    const formats = page.getByRole('dialog', { name: 'Download' });

    await files.item('one.txt').click();
    const single = page.waitForEvent('download');
    await page.keyboard.press('ControlOrMeta+s');
    const file = await single;
    expect(file.suggestedFilename()).toBe('one.txt');
    expect((await bytesOf(file)).toString()).toBe('first file');
    await expect(formats).toHaveCount(0);

    await files.item('two.txt').click({ modifiers: ['ControlOrMeta'] });
    await files.expectSelected(['one.txt', 'two.txt']);
    await page.keyboard.press('ControlOrMeta+s');
    await expect(formats).toBeVisible();
    const zipped = page.waitForEvent('download');
    await formats.getByRole('button', { name: '.zip', exact: true }).click();
    const zip = await zipped;
    expect(zip.suggestedFilename()).toMatch(/\.zip$/);
    // A zip names its entries in plain text: both files are in it.
    const zipBytes = await bytesOf(zip);
    expect(zipBytes.subarray(0, 2).toString()).toBe('PK');
    expect(zipBytes.includes('one.txt')).toBe(true);
    expect(zipBytes.includes('two.txt')).toBe(true);

    // One folder: no direct download, the format prompt.
    await files.item('sub').click();
    await files.expectSelected(['sub']);
    await page.keyboard.press('ControlOrMeta+s');
    await expect(formats).toBeVisible();
    const tarred = page.waitForEvent('download');
    await formats.getByRole('button', { name: '.tar', exact: true }).click();
    const tar = await tarred;
    expect(tar.suggestedFilename()).toMatch(/\.tar$/);
    const tarBytes = await bytesOf(tar);
    expect(tarBytes.includes('inner.txt')).toBe(true);
    expect(tarBytes.includes('inside')).toBe(true);

    // The toolbar's Download with one folder selected asks too.
    await expect(formats).toHaveCount(0);
    await files.item('sub').click();
    await files
      .toolbar()
      .getByRole('button', { name: /^Download/ })
      .click();
    await expect(formats).toBeVisible();
    await shot(page, 'files-download-folder');
    const gzipped = page.waitForEvent('download');
    await formats.getByRole('button', { name: '.tar.gz', exact: true }).click();
    expect((await gzipped).suggestedFilename()).toMatch(/\.tar\.gz$/);
  });

  test('copy and move through the picker onto the same name: Keep both gets a new name from the server', async ({
    page,
    server,
  }) => {
    const base = seed(server.root, 'keep-both', {
      'a.txt': 'new a',
      'b.txt': 'new b',
      'dest/a.txt': 'old a',
      'dest/b.txt': 'old b',
    });
    const files = new Files(page);
    await files.goto('keep-both/');
    const replace = page.getByRole('dialog', { name: 'Replace items?' });

    await files.item('a.txt').click();
    await files.toolbar().getByRole('button', { name: 'Copy' }).click();
    const copier = page.getByRole('dialog', { name: 'Copy' });
    await copier.getByRole('button', { name: 'dest', exact: true }).click();
    await expect(copier).toContainText('/keep-both/dest/');
    await copier.getByRole('button', { name: 'Copy', exact: true }).click();
    await expect(replace.getByRole('button', { name: 'Overwrite' })).toBeVisible();
    await shot(page, 'files-replace-prompt');
    await replace.getByRole('button', { name: 'Keep both' }).click();
    await expect(replace).toBeHidden();
    await expect.poll(() => read(path.join(base, 'dest/a(1).txt'))).toBe('new a');
    expect(read(path.join(base, 'dest/a.txt'))).toBe('old a');
    expect(read(path.join(base, 'a.txt'))).toBe('new a');

    await files.item('b.txt').click();
    await files.toolbar().getByRole('button', { name: 'Move' }).click();
    const mover = page.getByRole('dialog', { name: 'Move' });
    await mover.getByRole('button', { name: 'dest', exact: true }).click();
    await mover.getByRole('button', { name: 'Move', exact: true }).click();
    await replace.getByRole('button', { name: 'Keep both' }).click();
    await expect(files.item('b.txt')).toHaveCount(0);
    expect(read(path.join(base, 'dest/b(1).txt'))).toBe('new b');
    expect(read(path.join(base, 'dest/b.txt'))).toBe('old b');

    // The destination lists old and new side by side; what arrived last is selected there.
    await files.item('dest').dblclick();
    await expect(page).toHaveURL(/\/files\/keep-both\/dest\/$/);
    await expect(files.items()).toHaveCount(4);
    for (const name of ['a.txt', 'a(1).txt', 'b.txt', 'b(1).txt'])
      await expect(files.item(name)).toBeVisible();
    await files.expectSelected(['b(1).txt']);
  });

  test('Ctrl+X then Ctrl+V onto the same name asks first: cancel keeps everything, Overwrite replaces', async ({
    page,
    server,
  }) => {
    const base = seed(server.root, 'paste-over', { 'p.txt': 'from clipboard', 'into/p.txt': 'was here' });
    const files = new Files(page);
    await files.goto('paste-over/');
    const replace = await pasteOntoSameName(files, 'p.txt', 'x', 'into');
    expect(read(path.join(base, 'p.txt'))).toBe('from clipboard');
    expect(read(path.join(base, 'into/p.txt'))).toBe('was here');

    // The clipboard survived the cancel: pasting again asks again.
    await page.keyboard.press('ControlOrMeta+v');
    await replace.getByRole('button', { name: 'Overwrite' }).click();
    await expect(replace).toHaveCount(0);
    await expect.poll(() => read(path.join(base, 'into/p.txt'))).toBe('from clipboard');
    await expect(files.items()).toHaveCount(1);
    await files.expectSelected(['p.txt']);
    await files.crumb('paste-over').click();
    await expect(files.item('into')).toBeVisible();
    await expect(files.item('p.txt')).toHaveCount(0);
  });

  test('Ctrl+C then Ctrl+V onto the same name in another folder asks first; in its own folder it copies with a new name', async ({
    page,
    server,
  }) => {
    const base = seed(server.root, 'copy-over', { 'notes.txt': 'copied', 'into/notes.txt': 'was here' });
    const files = new Files(page);
    await files.goto('copy-over/');
    const replace = await pasteOntoSameName(files, 'notes.txt', 'c', 'into');
    expect(read(path.join(base, 'into/notes.txt'))).toBe('was here');
    expect(existsSync(path.join(base, 'into/notes(1).txt'))).toBe(false);

    // A copy stays on the clipboard: Keep both, then Overwrite.
    await page.keyboard.press('ControlOrMeta+v');
    await replace.getByRole('button', { name: 'Keep both' }).click();
    await expect.poll(() => read(path.join(base, 'into/notes(1).txt'))).toBe('copied');
    expect(read(path.join(base, 'into/notes.txt'))).toBe('was here');
    await page.keyboard.press('ControlOrMeta+v');
    await replace.getByRole('button', { name: 'Overwrite' }).click();
    await expect.poll(() => read(path.join(base, 'into/notes.txt'))).toBe('copied');
    await expect(files.items()).toHaveCount(2);

    // Back in the folder it was copied from, pasting makes a renamed copy without asking (docs/client.md §4).
    await files.crumb('copy-over').click();
    await expect(files.item('into')).toBeVisible();
    await page.keyboard.press('ControlOrMeta+v');
    await expect.poll(() => read(path.join(base, 'notes(1).txt'))).toBe('copied');
    await expect(replace).toHaveCount(0);
    expect(read(path.join(base, 'notes.txt'))).toBe('copied');
  });

  test("the picker's New folder creates a folder to copy into", async ({ page, server }) => {
    const base = seed(server.root, 'pick-new', { 'a.txt': 'alpha' }, ['old']);
    const files = new Files(page);
    await files.goto('pick-new/');
    await files.item('a.txt').click();
    await files.toolbar().getByRole('button', { name: 'Copy' }).click();
    const picker = page.getByRole('dialog', { name: 'Copy' });
    await expect(picker.getByRole('button', { name: 'old', exact: true })).toBeVisible();
    await picker.getByRole('button', { name: 'New folder' }).click();
    const ask = page.getByRole('dialog', { name: 'New folder' });
    await ask.getByRole('textbox').fill('made');
    await ask.getByRole('button', { name: 'Create' }).click();
    await expect(ask).toHaveCount(0);
    await picker.getByRole('button', { name: 'made', exact: true }).click();
    await expect(picker).toContainText('/pick-new/made/');
    await picker.getByRole('button', { name: 'Copy', exact: true }).click();
    await expect(picker).toHaveCount(0);
    await expect.poll(() => read(path.join(base, 'made/a.txt'))).toBe('alpha');
    expect(read(path.join(base, 'a.txt'))).toBe('alpha');
    await expect(files.item('made')).toBeVisible();
  });

  test('sorts by last modified, oldest first then newest first, folders still first', async ({
    page,
    server,
  }) => {
    const base = seed(server.root, 'by-date', { 'a.txt': 1, 'b.txt': 1, 'c.txt': 1 }, ['x', 'y']);
    const times: Record<string, string> = {
      'a.txt': '2021-03-01',
      'b.txt': '2019-03-01',
      'c.txt': '2020-03-01',
      x: '2018-03-01',
      y: '2017-03-01',
    };
    for (const [name, day] of Object.entries(times))
      utimesSync(path.join(base, name), new Date(day), new Date(day));
    const files = new Files(page);
    await files.goto('by-date/');
    await expect(files.item('c.txt')).toBeVisible();
    expect(await files.names()).toEqual(['x', 'y', 'a.txt', 'b.txt', 'c.txt']);

    const header = files.sortButton('Last modified');
    await header.click();
    await expect.poll(() => files.names()).toEqual(['y', 'x', 'b.txt', 'c.txt', 'a.txt']);
    await expect(header).toHaveAttribute('aria-pressed', 'true');
    await expect(header).toHaveAccessibleName(/sorted ascending/);
    await header.click();
    await expect.poll(() => files.names()).toEqual(['x', 'y', 'a.txt', 'c.txt', 'b.txt']);
    await expect(header).toHaveAccessibleName(/sorted descending/);
    // Saved to the user (and no request left in flight for the next test's reset to race).
    await expect
      .poll(async () => (await apiGet<{ sorting: unknown }>(server.url, '/users/1')).sorting)
      .toEqual({ by: 'modified', asc: false });
  });

  test('a new item is scrolled to once: a later deletion far below leaves the page where it is', async ({
    page,
    server,
  }) => {
    const names = Array.from({ length: 60 }, (_, i) => `row-${String(i).padStart(2, '0')}.txt`);
    seed(server.root, 'reveal-once', Object.fromEntries(names.map((n) => [n, 1])));
    const files = new Files(page);
    await files.goto('reveal-once/');
    await files.create('New folder', 'fresh');
    await files.expectSelected(['fresh']);
    // Down to the last file and delete it: the listing shrinks, the page stays at its end.
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await files.item('row-59.txt').click();
    const before = await page.evaluate(() => window.scrollY);
    expect(before).toBeGreaterThan(1000);
    await files.deleteSelected('row-59.txt');
    await expect(files.item('row-59.txt')).toHaveCount(0);
    await expect(files.item('row-58.txt')).toBeInViewport();
    expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(before - 200);
    await expect(files.item('fresh')).not.toBeInViewport();
  });

  test('Up onto the first file shows the "Files" heading above it', async ({ page, server }) => {
    const names = Array.from({ length: 40 }, (_, i) => `up-${String(i).padStart(2, '0')}.txt`);
    seed(server.root, 'heading-up', Object.fromEntries(names.map((n) => [n, 1])));
    const files = new Files(page);
    await files.goto('heading-up/');
    await files.item('up-00.txt').click();
    await page.keyboard.press('End');
    await files.expectSelected(['up-39.txt']);
    await page.keyboard.press('Home');
    await files.expectSelected(['up-00.txt']);
    // Below the page's fixed header, not tucked under it.
    const heading = files.listing().locator('.listing__heading', { hasText: 'Files' });
    const headerBottom = await page.getByRole('banner').evaluate((e) => e.getBoundingClientRect().bottom);
    await expect
      .poll(() => heading.evaluate((e) => e.getBoundingClientRect().top))
      .toBeGreaterThanOrEqual(headerBottom - 1);
  });

  test('a failed delete shows the error prompt and reloads the listing; a failed rename shows it too', async ({
    page,
    server,
  }) => {
    const base = seed(server.root, 'fails', { 'gone.txt': 1, 'ghost.txt': 1, 'stay.txt': 1 });
    const files = new Files(page);
    await files.goto('fails/');
    const error = page.getByRole('dialog', { name: 'Something went wrong' });

    await files.item('gone.txt').click();
    rmSync(path.join(base, 'gone.txt'));
    await files.deleteSelected('Move “gone.txt” to the trash?');
    await expect(error).toContainText('404');
    await shot(page, 'files-error-prompt');
    // Reloaded: the file removed behind the browser's back is no longer listed.
    await expect(files.item('gone.txt')).toHaveCount(0);
    await expect(files.item('stay.txt')).toBeVisible();
    await error.getByRole('button', { name: 'OK' }).click();
    await expect(error).toHaveCount(0);

    await files.item('ghost.txt').click();
    rmSync(path.join(base, 'ghost.txt'));
    await page.keyboard.press('F2');
    const rename = page.getByRole('dialog', { name: 'Rename' });
    await rename.getByRole('textbox').fill('renamed.txt');
    await rename.getByRole('button', { name: 'Save' }).click();
    await expect(error).toContainText('404');
    await error.getByRole('button', { name: 'OK' }).click();
    await expect(error).toHaveCount(0);
    await expect(files.item('renamed.txt')).toHaveCount(0);
  });
});

test.describe('the folder picker without the create permission', () => {
  test('offers no New folder', async ({ page, server }) => {
    seed(server.root, 'pick-plain', { 'a.txt': 1 }, ['box']);
    const user = { username: 'picker-no-create', password: 'picker-no-create-password-2024' };
    await createUser(server.url, { ...user, perm: { create: false } });
    await signInWithToken(page, server.url, user.username, user.password);
    const files = new Files(page);
    await files.goto('pick-plain/');
    await files.item('a.txt').click();
    // Copying needs create too, so the picker is the move one.
    await expect(files.toolbar().getByRole('button', { name: 'Copy' })).toHaveCount(0);
    await files.toolbar().getByRole('button', { name: 'Move' }).click();
    const picker = page.getByRole('dialog', { name: 'Move' });
    await expect(picker.getByRole('button', { name: 'box', exact: true })).toBeVisible();
    await expect(picker.getByRole('button', { name: 'Cancel' })).toBeVisible();
    await expect(picker.getByRole('button', { name: 'New folder' })).toHaveCount(0);
  });
});
