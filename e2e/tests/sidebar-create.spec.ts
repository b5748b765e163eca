/**
 * The sidebar's New folder and New file (docs/client.md §2 "Sidebar"): on file screens, with the
 * create permission, the toolbar's prompts and flows — the new folder listed and selected, the new
 * file open in the editor and selected once closed — in the folder shown (or the open file's); none
 * off the file screens.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { listByName } from '../support/api';
import { expect, PHONE, shot, test } from '../support/fixtures';
import { seed } from '../support/seed';
import { FileView } from '../pages/FileView';
import { Files } from '../pages/Files';
import { signInWithToken } from '../pages/LoginPage';
import { Shell } from '../pages/Shell';

test.beforeEach(async ({ page, server }) => {
  await listByName(server.url);
  await signInWithToken(page, server.url);
});

/** The sidebar's New folder or New file, the name typed and confirmed. */
async function createFromSidebar(page: Page, kind: 'New folder' | 'New file', name: string) {
  await new Shell(page).sidebar().getByRole('button', { name: kind }).click();
  const prompt = page.getByRole('dialog', { name: kind });
  await prompt.getByRole('textbox').fill(name);
  await prompt.getByRole('button', { name: 'Create' }).click();
  await expect(prompt).toBeHidden();
}

test('creates a folder and a file in the folder shown, as the toolbar does', async ({ page, server }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const base = seed(server.root, 'sb-desk', { 'old.txt': 'x' });
  const files = new Files(page);
  const view = new FileView(page);
  const sidebar = new Shell(page).sidebar();
  await files.goto('sb-desk/');
  await expect(files.item('old.txt')).toBeVisible();
  await shot(page, 'sidebar-create');

  await createFromSidebar(page, 'New folder', 'drafts');
  await files.expectSelected(['drafts']);
  expect(statSync(path.join(base, 'drafts')).isDirectory()).toBe(true);

  await createFromSidebar(page, 'New file', 'plan.md');
  await expect(page).toHaveURL(/\/files\/sb-desk\/plan\.md$/);
  await view.expectOpen('plan.md');
  expect(existsSync(path.join(base, 'plan.md'))).toBe(true);

  await view.button('Close').click();
  await expect(page).toHaveURL(/\/files\/sb-desk\/$/);
  await files.expectSelected(['plan.md']);

  // With a file open they create next to it.
  await files.item('plan.md').dblclick();
  await view.expectOpen('plan.md');
  await createFromSidebar(page, 'New folder', 'beside');
  await expect.poll(() => existsSync(path.join(base, 'beside'))).toBe(true);

  // Not off the file screens.
  await sidebar.getByRole('link', { name: 'admin' }).click();
  await expect(page.getByRole('heading', { name: 'Profile settings' })).toBeVisible();
  await expect(sidebar.getByRole('button', { name: 'New folder' })).toHaveCount(0);
  await expect(sidebar.getByRole('button', { name: 'New file' })).toHaveCount(0);
});

test('a folder reached without its final slash gets one, so New folder creates inside it', async ({
  page,
  server,
}) => {
  const base = seed(server.root, 'sb-slash', {}, ['inner']);
  const files = new Files(page);
  await files.goto('sb-slash');
  await expect(page).toHaveURL(/\/files\/sb-slash\/$/);
  await expect(files.item('inner')).toBeVisible();
  await createFromSidebar(page, 'New folder', 'here');
  await files.expectSelected(['here']);
  expect(existsSync(path.join(base, 'here'))).toBe(true);
});

test.describe('on a phone', () => {
  test.use(PHONE);

  test('the drawer offers them and closes for the prompt', async ({ page, server }) => {
    const base = seed(server.root, 'sb-phone', { 'old.txt': 'x' });
    const files = new Files(page);
    const shell = new Shell(page);
    await files.goto('sb-phone/');
    await shell.menuButton().click();
    const create = shell.sidebar().getByRole('button', { name: 'New folder' });
    await expect(create).toBeInViewport();
    await expect(shell.sidebar().getByRole('button', { name: 'New file' })).toBeInViewport();
    await shot(page, 'sidebar-create-drawer');
    await create.click();
    await expect(shell.sidebar()).toBeHidden();
    const prompt = page.getByRole('dialog', { name: 'New folder' });
    await prompt.getByRole('textbox').fill('from-drawer');
    await shot(page, 'sidebar-create-prompt');
    await prompt.getByRole('button', { name: 'Create' }).click();
    await files.expectSelected(['from-drawer']);
    expect(existsSync(path.join(base, 'from-drawer'))).toBe(true);
  });
});
