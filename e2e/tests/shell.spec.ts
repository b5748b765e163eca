import { writeFileSync, mkdirSync } from 'node:fs';
import { createUser } from '../support/api';
import { expect, PHONE, shot, test } from '../support/fixtures';
import { LoginPage, signIn } from '../pages/LoginPage';
import { Shell } from '../pages/Shell';

test.describe('the shell', () => {
  test.beforeEach(async ({ page }) => {
    await signIn(page);
  });

  test('shows storage used of total on file screens only', async ({ page }) => {
    const bar = page.getByRole('progressbar', { name: 'Storage' });
    await expect(bar).toBeVisible();
    const now = Number(await bar.getAttribute('aria-valuenow'));
    expect(now).toBeGreaterThanOrEqual(0);
    expect(now).toBeLessThanOrEqual(100);
    await expect(page.getByTestId('usage')).toContainText(/ of .* used/);
    await page.getByRole('link', { name: 'admin' }).click();
    await expect(page.getByRole('heading', { name: 'Profile settings' })).toBeVisible();
    await expect(bar).toHaveCount(0);
  });

  test('the help prompt opens from the sidebar and with F1, keeps focus, closes with Escape and Enter', async ({
    page,
  }) => {
    await page.getByRole('button', { name: 'Help' }).click();
    const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await expect(dialog).toBeVisible();
    const ok = dialog.getByRole('button', { name: 'OK' });
    await expect(ok).toBeFocused();
    // Two stops, both inside the card: the scrolling list of shortcuts (focusable so that keyboard
    // users can scroll it) and OK. Tab never leaves the card.
    await page.keyboard.press('Tab');
    await expect(ok).not.toBeFocused();
    expect(await dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true);
    await page.keyboard.press('Tab');
    await expect(ok).toBeFocused();
    await shot(page, 'prompt-help');
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await expect(page.getByRole('button', { name: 'Help' })).toBeFocused(); // focus goes back
    await page.keyboard.press('F1');
    await expect(dialog).toBeVisible();
    await page.keyboard.press('Enter');
    await expect(dialog).toBeHidden();
  });

  test('search opens from the header and with Ctrl+Shift+F, finds files, closes with Escape', async ({
    page,
    server,
  }) => {
    mkdirSync(`${server.root}/notes`, { recursive: true });
    writeFileSync(`${server.root}/notes/holiday-plan.txt`, 'x');
    await new Shell(page).searchButton().click();
    const dialog = page.getByRole('dialog', { name: 'Search' });
    await expect(dialog).toBeVisible();
    const box = dialog.getByRole('searchbox');
    await expect(box).toBeFocused();
    await dialog.getByRole('button', { name: 'Images' }).click();
    await expect(box).toHaveValue('type:image ');
    await box.fill('holiday');
    await box.press('Enter');
    await expect(dialog.getByRole('link', { name: 'notes/holiday-plan.txt' })).toBeVisible();
    await shot(page, 'prompt-search');
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await page.keyboard.press('Control+Shift+F');
    await expect(dialog).toBeVisible();
    await page.keyboard.press('Escape');
  });

  test('not-found: an unknown path and a missing folder show the error page with the header', async ({
    page,
  }) => {
    await page.goto('no/such/place');
    await expect(page).toHaveURL(/\/files\/no\/such\/place$/);
    await expect(page.getByRole('heading', { name: "This page doesn't exist." })).toBeVisible();
    await expect(page.getByRole('banner')).toBeVisible();
    await page.goto('404');
    await expect(page.getByRole('heading', { name: "This page doesn't exist." })).toBeVisible();
    await expect(page).toHaveTitle('Not found - Coffer');
    await shot(page, 'not-found');
    await page.getByRole('link', { name: 'Go to my files' }).click();
    await expect(page).toHaveURL(/\/files\/$/);
  });
});

test.describe('the shell on a 375 px phone', () => {
  test.use(PHONE);

  test('the sidebar is a drawer: menu opens it, Escape and navigation close it', async ({ page }) => {
    const login = new LoginPage(page);
    await login.goto();
    await shot(page, 'login');
    await login.signIn();
    const shell = new Shell(page);
    await expect(page.getByRole('heading', { level: 1, name: 'My files' })).toBeVisible();
    await expect(shell.sidebar()).toBeHidden();
    await shot(page, 'shell');
    await shell.menuButton().click();
    await expect(shell.sidebar()).toBeInViewport();
    await expect(shell.menuButton()).toHaveAttribute('aria-expanded', 'true');
    await shot(page, 'drawer');
    await page.keyboard.press('Escape');
    await expect(shell.sidebar()).toBeHidden();
    await shell.menuButton().click();
    await shell.sidebar().getByRole('link', { name: 'admin' }).click();
    await expect(page.getByRole('heading', { name: 'Profile settings' })).toBeVisible();
    await expect(shell.sidebar()).toBeHidden();
    // Nothing sticks out sideways at 375 px.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await page.keyboard.press('F1');
    await expect(page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toBeVisible();
    await shot(page, 'prompt-help');
    await page.keyboard.press('Escape');
    await page.goto('404');
    await expect(page.getByRole('heading', { name: "This page doesn't exist." })).toBeVisible();
    await shot(page, 'not-found');
  });
});

test.describe('admin pages', () => {
  test('a user who is not an admin is sent to the forbidden page', async ({ page, server }) => {
    await createUser(server.url, { username: 'nora', password: 'nora-password-12' });
    const login = new LoginPage(page);
    await login.goto('settings/global');
    await login.signIn('nora', 'nora-password-12');
    await expect(page).toHaveURL(/\/403$/);
    await expect(
      page.getByRole('heading', { name: "You don't have permission to access this." }),
    ).toBeVisible();
    await expect(page).toHaveTitle('Forbidden - Coffer');
    await expect(
      page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }),
    ).toHaveCount(0);
    await shot(page, 'forbidden');
  });

  test('an admin reaches the global settings from the sidebar', async ({ page }) => {
    const login = new LoginPage(page);
    await login.goto();
    await login.signIn();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await expect(page).toHaveURL(/\/settings\/global$/);
    await expect(page.getByRole('heading', { name: 'Global settings' })).toBeVisible();
  });
});
