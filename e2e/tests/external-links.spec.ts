/**
 * The outside links (docs/client.md §2 "Sidebar", "Notifications"): the sidebar's project link and
 * the error toasts' "Report issue", from --project-url and --issues-url (empty by default: no
 * link), both hidden when branding disables external links.
 */
import path from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { listByName, updateSettings } from '../support/api';
import { expect, PHONE, shot, test } from '../support/fixtures';
import { seed } from '../support/seed';
import { startServer, type RunningServer } from '../support/server';
import { FileView } from '../pages/FileView';
import { signInWithToken } from '../pages/LoginPage';
import { Shell } from '../pages/Shell';

const PROJECT = 'https://example.org/coffer';
const ISSUES = 'https://example.org/coffer/issues';

let linked: RunningServer;
test.beforeAll(async () => {
  test.setTimeout(120_000);
  linked = await startServer({ args: ['--project-url', PROJECT, '--issues-url', ISSUES] });
  await listByName(linked.url);
});
test.afterAll(async () => {
  await linked?.stop();
});

/** An error toast: the open file is removed behind the editor's back, then saved (PUT → 404). */
async function failASave(page: Page, server: RunningServer, folder: string) {
  const base = seed(server.root, folder, { 'gone.txt': 'soon gone' });
  await page.goto(`${server.url}/files/${folder}/gone.txt`);
  const view = new FileView(page);
  await expect(view.editor('gone.txt')).toHaveText('soon gone');
  return view.failSave('gone.txt', path.join(base, 'gone.txt'));
}

async function boxOf(locator: Locator) {
  const box = await locator.boundingBox();
  expect(box, 'on screen').not.toBeNull();
  return box!;
}

/** `item` ends above the top of `toast` (nothing of it under the toast). */
async function expectAbove(item: Locator, toast: Locator) {
  const [a, t] = [await boxOf(item), await boxOf(toast)];
  expect(a.y + a.height).toBeLessThanOrEqual(t.y);
}

/** `item` and `toast` do not overlap. */
async function expectApart(item: Locator, toast: Locator) {
  const [a, t] = [await boxOf(item), await boxOf(toast)];
  const apart = a.x + a.width <= t.x || t.x + t.width <= a.x || a.y + a.height <= t.y || t.y + t.height <= a.y;
  expect(apart, JSON.stringify({ item: a, toast: t })).toBe(true);
}

test.describe('with a project and an issue tracker address', () => {
  test('the sidebar links the project and an error toast offers Report issue, in a new tab', async ({ page }) => {
    await signInWithToken(page, linked.url);
    const toast = await failASave(page, linked, 'ext-desktop');
    const report = toast.getByRole('link', { name: 'Report issue' });
    await expect(report).toHaveAttribute('href', ISSUES);
    await expect(report).toHaveAttribute('target', '_blank');
    await expect(report).toHaveAttribute('rel', 'noopener noreferrer');
    const project = new Shell(page).sidebar().getByRole('link', { name: 'Project website' });
    await expect(project).toHaveAttribute('href', PROJECT);
    await expectApart(project, toast);
    await expect(project).toHaveAttribute('target', '_blank');
    await expect(project).toHaveAttribute('rel', 'noopener noreferrer');
    await shot(page, 'external-links');

    // Opening it leaves Coffer where it was.
    const opened = page.context().waitForEvent('page');
    await page.context().route(`${ISSUES}**`, (route) => route.fulfill({ body: 'tracker' }));
    await report.click();
    const tab = await opened;
    await expect(tab).toHaveURL(ISSUES);
    await tab.close();
    await expect(page).toHaveURL(/\/files\/ext-desktop\/gone\.txt$/);
  });

  test.describe('on a phone', () => {
    test.use(PHONE);
    test('the drawer holds the project link; the toast fits with its button', async ({ page }) => {
      await signInWithToken(page, linked.url);
      const toast = await failASave(page, linked, 'ext-phone');
      await expect(toast.getByRole('link', { name: 'Report issue' })).toBeInViewport();
      const box = await toast.boundingBox();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(375);
      await shot(page, 'external-links-toast');
      await toast.getByRole('button', { name: 'Dismiss' }).click();
      const shell = new Shell(page);
      await shell.menuButton().click();
      await expect(shell.sidebar().getByRole('link', { name: 'Project website' })).toBeInViewport();
      await shot(page, 'external-links-drawer');
    });

    test('an error toast leaves the open drawer’s end (project link, version) in view', async ({ page }) => {
      await signInWithToken(page, linked.url);
      const toast = await failASave(page, linked, 'ext-drawer');
      const shell = new Shell(page);
      await shell.menuButton().click();
      const sidebar = shell.sidebar();
      await expect(sidebar).toBeInViewport();
      await expect(toast).toBeVisible();
      // Scrolled to its end (a short drawer does not scroll at all), the last lines sit above the toast.
      await sidebar.evaluate((el) => el.scrollTo(0, el.scrollHeight));
      await expectAbove(sidebar.getByRole('link', { name: 'Project website' }), toast);
      await expectAbove(sidebar.getByText(/^Version /), toast);
      await shot(page, 'external-links-drawer-toast');
    });
  });

  test('branding "disable external links" hides both', async ({ page }) => {
    await updateSettings(linked.url, (s) => {
      (s.branding as Record<string, unknown>).disableExternal = true;
    });
    try {
      await signInWithToken(page, linked.url);
      const toast = await failASave(page, linked, 'ext-off');
      await expect(toast.getByRole('link')).toHaveCount(0);
      await expect(new Shell(page).sidebar().getByRole('link', { name: 'Project website' })).toHaveCount(0);
    } finally {
      await updateSettings(linked.url, (s) => {
        (s.branding as Record<string, unknown>).disableExternal = false;
      });
    }
  });
});

test('without the addresses (the default) there is no project link and no Report issue', async ({ page, server }) => {
  await listByName(server.url);
  await signInWithToken(page, server.url);
  const toast = await failASave(page, server, 'ext-default');
  await expect(toast.getByRole('link')).toHaveCount(0);
  const sidebar = new Shell(page).sidebar();
  await expect(sidebar.getByRole('button', { name: 'Help' })).toBeVisible();
  await expect(sidebar.getByRole('link', { name: 'Project website' })).toHaveCount(0);
});
