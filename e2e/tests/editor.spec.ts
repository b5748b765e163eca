/**
 * The editor (docs/client.md §2: text files open in an editor): CodeMirror, save with the button and
 * Ctrl+S (PUT /api/resources), the discardEditorChanges prompt when leaving with unsaved text,
 * read-only without the modify permission, light and dark themes.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createUser, listByName } from '../support/api';
import { seriousViolations } from '../support/axe';
import { expect, PHONE, shot, test } from '../support/fixtures';
import { seed } from '../support/seed';
import { FileView } from '../pages/FileView';
import { Files } from '../pages/Files';
import { signIn } from '../pages/LoginPage';

const CODE = 'export function add(a, b) {\n  return a + b; // sum\n}\n';

test.describe('the editor', () => {
  test.beforeEach(async ({ server }) => {
    await listByName(server.url);
  });

  test('opens a text file from the listing, saves with the button and Ctrl+S', async ({ page, server }) => {
    const base = seed(server.root, 'ed-save', { 'app.js': CODE });
    const file = path.join(base, 'app.js');
    await signIn(page);
    const files = new Files(page);
    const view = new FileView(page);
    await files.goto('ed-save/');
    await files.item('app.js').dblclick();
    await expect(page).toHaveURL(/\/files\/ed-save\/app\.js$/);
    await view.expectOpen('app.js');
    await expect(page).toHaveTitle(/^app\.js - Files - /);
    const editor = view.editor('app.js');
    await expect(editor).toContainText('return a + b; // sum');
    // The language comes from the extension: JavaScript keywords and comments are highlighted.
    await expect(editor.locator('span', { hasText: /^export$/ })).toHaveCount(1);
    await expect(view.toolbar().getByText('Unsaved changes')).toHaveCount(0);

    await editor.click();
    await page.keyboard.press('ControlOrMeta+End');
    await page.keyboard.type('// saved by button\n');
    await expect(view.toolbar().getByText('Unsaved changes')).toBeVisible();
    await shot(page, 'editor-light');
    await view.button('Save').click();
    await expect(page.getByText('“app.js” saved.')).toBeVisible();
    await expect(view.toolbar().getByText('Unsaved changes')).toHaveCount(0);
    expect(readFileSync(file, 'utf8')).toBe(`${CODE}// saved by button\n`);

    // The button has focus now: back into the text, at its end.
    await editor.click();
    await page.keyboard.press('ControlOrMeta+End');
    await page.keyboard.type('// saved by keyboard\n');
    await expect(view.toolbar().getByText('Unsaved changes')).toBeVisible();
    await page.keyboard.press('ControlOrMeta+S');
    await expect(view.toolbar().getByText('Unsaved changes')).toHaveCount(0);

    // Undoing back to the saved text is no longer a change, even when the typing comes at once
    // after the save (CodeMirror joins keystrokes less than 500 ms apart into one undo step; a
    // save closes the step).
    await page.keyboard.type('x');
    await expect(view.toolbar().getByText('Unsaved changes')).toBeVisible();
    await page.keyboard.press('ControlOrMeta+Z');
    await expect(view.toolbar().getByText('Unsaved changes')).toHaveCount(0);
    await expect.poll(() => readFileSync(file, 'utf8')).toBe(`${CODE}// saved by button\n// saved by keyboard\n`);
    await expect(editor).toContainText('// saved by keyboard');
    expect(await seriousViolations(page)).toEqual([]);

    // Nothing unsaved: close goes straight back to the folder.
    await view.button('Close').click();
    await expect(page).toHaveURL(/\/files\/ed-save\/$/);
    await expect(files.item('app.js')).toBeVisible();
  });

  test('a new file opens in the editor at once; Close comes back with it selected', async ({ page, server }) => {
    const base = seed(server.root, 'ed-new', { 'old.txt': 'x' });
    await signIn(page);
    const files = new Files(page);
    const view = new FileView(page);
    await files.goto('ed-new/');
    await files.toolbar().getByRole('button', { name: 'New file' }).click();
    const dialog = page.getByRole('dialog', { name: 'New file' });
    await dialog.getByRole('textbox').fill('plan.md');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await expect(page).toHaveURL(/\/files\/ed-new\/plan\.md$/);
    await view.expectOpen('plan.md');
    await view.typeText('plan.md', '# Plan\n');
    await page.keyboard.press('ControlOrMeta+S');
    await expect.poll(() => readFileSync(path.join(base, 'plan.md'), 'utf8')).toBe('# Plan\n');
    await view.button('Close').click();
    await expect(page).toHaveURL(/\/files\/ed-new\/$/);
    await files.expectSelected(['plan.md']);
  });

  test('asks before leaving with unsaved changes: close, links, back, and the browser', async ({
    page,
    server,
  }) => {
    test.slow(); // several round trips through the prompt
    const base = seed(server.root, 'ed-leave', { 'notes.md': '# Notes\n' });
    const file = path.join(base, 'notes.md');
    await signIn(page);
    const files = new Files(page);
    const view = new FileView(page);
    await files.goto('ed-leave/');
    await files.item('notes.md').dblclick();
    await view.expectOpen('notes.md');
    const editor = view.editor('notes.md');
    await editor.click();
    await page.keyboard.press('ControlOrMeta+End');
    await page.keyboard.type('draft');

    // Close → keep editing: nothing happens.
    await view.button('Close').click();
    const prompt = view.discardPrompt();
    await expect(prompt).toContainText('“notes.md” has unsaved changes.');
    await shot(page, 'editor-discard');
    await prompt.getByRole('button', { name: 'Keep editing' }).click();
    await expect(prompt).toBeHidden();
    await expect(editor).toContainText('draft');

    // A breadcrumb link → Escape keeps editing too.
    await view.breadcrumbs().getByRole('link', { name: 'ed-leave' }).click();
    await expect(prompt).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(prompt).toBeHidden();
    await expect(page).toHaveURL(/\/files\/ed-leave\/notes\.md$/);

    // Back → save and leave: the text is written, then the folder shows.
    await page.goBack();
    await expect(prompt).toBeVisible();
    await prompt.getByRole('button', { name: 'Save and leave' }).click();
    await expect(page).toHaveURL(/\/files\/ed-leave\/$/);
    expect(readFileSync(file, 'utf8')).toBe('# Notes\ndraft');

    // Open again, change, close → discard: the file keeps the saved text.
    await files.item('notes.md').dblclick();
    await expect(editor).toContainText('draft');
    await editor.click();
    await page.keyboard.type('lost');
    await view.button('Close').click();
    await prompt.getByRole('button', { name: 'Discard changes' }).click();
    await expect(page).toHaveURL(/\/files\/ed-leave\/$/);
    expect(readFileSync(file, 'utf8')).toBe('# Notes\ndraft');

    // Reloading or closing the tab with unsaved text: the browser asks.
    await files.item('notes.md').dblclick();
    await editor.click();
    await page.keyboard.type('unsaved');
    const dialog = page.waitForEvent('dialog');
    await page.close({ runBeforeUnload: true });
    const asked = await dialog;
    expect(asked.type()).toBe('beforeunload');
    await asked.dismiss();
  });

  test('is read-only for a user without the modify permission', async ({ page, server }) => {
    const base = seed(server.root, 'ed-ro', { 'readme.txt': 'read me\n', 'other.txt': 'x' });
    await createUser(server.url, {
      username: 'ed-reader',
      password: 'ed-reader-password-1',
      perm: { modify: false, rename: false, delete: false },
    });
    await signIn(page, 'ed-reader', 'ed-reader-password-1');
    const view = new FileView(page);
    await page.goto('files/ed-ro/readme.txt');
    await view.expectOpen('readme.txt');
    const editor = view.editor('readme.txt');
    await expect(editor).toHaveText('read me');
    await expect(editor).toHaveAttribute('aria-readonly', 'true');
    await expect(view.toolbar().getByText('Read only')).toBeVisible();
    await expect(view.toolbar().getByRole('button', { name: 'Save' })).toHaveCount(0);
    await expect(view.toolbar().getByRole('button', { name: 'Rename' })).toHaveCount(0);
    await expect(view.toolbar().getByRole('button', { name: 'Delete' })).toHaveCount(0);
    await editor.click();
    await page.keyboard.type('changed');
    await expect(editor).toHaveText('read me');
    // Ctrl+S downloads, as in the listing.
    const download = page.waitForEvent('download');
    await page.keyboard.press('ControlOrMeta+S');
    expect((await download).suggestedFilename()).toBe('readme.txt');
    expect(readFileSync(path.join(base, 'readme.txt'), 'utf8')).toBe('read me\n');
    // Leaving needs no question: nothing can have changed.
    await view.button('Close').click();
    await expect(page).toHaveURL(/\/files\/ed-ro\/$/);
  });

  test('a save the server refuses shows an error toast and keeps the changes', async ({ page, server }) => {
    const base = seed(server.root, 'ed-fail', { 'gone.txt': 'soon gone' });
    await signIn(page);
    const view = new FileView(page);
    await page.goto('files/ed-fail/gone.txt');
    await expect(view.editor('gone.txt')).toHaveText('soon gone');
    // Someone else removes the file meanwhile: PUT answers 404.
    await view.failSave('gone.txt', path.join(base, 'gone.txt'));
    await expect(view.toolbar().getByText('Unsaved changes')).toBeVisible();
  });

  test('follows the dark theme, and fits a phone in light and dark', async ({ page: first, browser, server }) => {
    test.slow(); // three browser contexts
    seed(server.root, 'ed-theme', { 'style.css': 'body {\n  color: #333; /* text */\n  margin: 0;\n}\n' });
    // One sign-in; the other contexts start with its token (local storage and cookie).
    await signIn(first);
    const storageState = await first.context().storageState();
    for (const [scheme, size, name] of [
      ['dark', {}, 'editor-dark'],
      ['light', PHONE, 'editor-light'],
      ['dark', PHONE, 'editor-dark'],
    ] as const) {
      const context = await browser.newContext({ ...size, colorScheme: scheme, storageState, baseURL: server.url + '/' });
      const page = await context.newPage();
      const view = new FileView(page);
      await page.goto('files/ed-theme/style.css');
      const editor = view.editor('style.css');
      // A fresh context loads the editor's chunks from scratch.
      await expect(editor).toContainText('margin: 0;', { timeout: 30_000 });
      await expect(page.locator('html')).toHaveClass(scheme);
      const background = await page.locator('.cm-editor').evaluate((el) => getComputedStyle(el).backgroundColor);
      expect(background).toBe(scheme === 'dark' ? 'rgb(26, 30, 38)' : 'rgb(255, 255, 255)');
      await editor.click();
      await page.keyboard.press('ControlOrMeta+End');
      await page.keyboard.type('/* edited */');
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        page.viewportSize()?.width ?? 0,
      );
      await shot(page, name);
      await context.close();
    }
  });
});
