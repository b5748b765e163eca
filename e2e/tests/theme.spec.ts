import { expect, PHONE, shot, test } from '../support/fixtures';
import { startServer, type RunningServer } from '../support/server';
import { updateSettings } from '../support/api';
import { LoginPage } from '../pages/LoginPage';

test.describe('themes', () => {
  test.describe('system dark', () => {
    test.use({ colorScheme: 'dark' });

    test('follows the system colour scheme while nothing is chosen', async ({ page }) => {
      await page.goto('login');
      await expect(page.locator('html')).toHaveClass(/\bdark\b/);
      const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      expect(background).toBe('rgb(17, 20, 26)');
      await shot(page, 'login-dark');
      await new LoginPage(page).signIn();
      await expect(page.getByRole('heading', { level: 1, name: 'My files' })).toBeVisible();
      await shot(page, 'shell-dark');
    });

    test.describe('phone', () => {
      test.use(PHONE);
      test('dark on a phone', async ({ page }) => {
        await page.goto('login');
        await expect(page.locator('html')).toHaveClass(/\bdark\b/);
        await shot(page, 'login-dark');
        await new LoginPage(page).signIn();
        await expect(page.getByRole('heading', { level: 1, name: 'My files' })).toBeVisible();
        await shot(page, 'shell-dark');
      });
    });
  });

  test('a choice in the profile wins over the system and survives a reload', async ({ page }) => {
    await page.emulateMedia({ colorScheme: 'light' });
    const login = new LoginPage(page);
    await login.goto('settings/profile');
    await login.signIn();
    await expect(page.getByRole('heading', { name: 'Profile settings' })).toBeVisible();
    await expect(page.locator('html')).not.toHaveClass(/\bdark\b/);
    await page.getByLabel('Theme').selectOption('dark');
    await expect(page.locator('html')).toHaveClass(/\bdark\b/);
    await page.reload();
    await expect(page.getByLabel('Theme')).toHaveValue('dark');
    await expect(page.locator('html')).toHaveClass(/\bdark\b/);
    await shot(page, 'settings-dark');
    await page.getByLabel('Theme').selectOption('system');
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect(page.locator('html')).toHaveClass(/\bdark\b/);
    await page.emulateMedia({ colorScheme: 'light' });
    await expect(page.locator('html')).toHaveClass(/\blight\b/);
  });

  test.describe('branding', () => {
    let branded: RunningServer;
    test.beforeAll(async () => {
      branded = await startServer();
      await updateSettings(branded.url, (s) => {
        const branding = s.branding as Record<string, unknown>;
        branding.name = 'Acme <Files>';
        branding.color = '#8e24aa';
        branding.theme = 'dark';
      });
    });
    test.afterAll(async () => {
      await branded.stop();
    });

    test('name, colour and default theme come from the settings', async ({ page }) => {
      await page.goto(`${branded.url}/login`);
      await expect(page).toHaveTitle('Login - Acme <Files>');
      await expect(page.getByRole('heading', { level: 1, name: 'Acme <Files>' })).toBeVisible();
      await expect(page.locator('html')).toHaveClass(/\bdark\b/);
      const button = page.getByRole('button', { name: 'Log in' });
      await expect(button).toHaveCSS('background-color', 'rgb(142, 36, 170)');
      await expect(button).toHaveCSS('color', 'rgb(255, 255, 255)');
      await expect(page.locator('meta[name="theme-color"]')).toHaveAttribute('content', '#8e24aa');
      await shot(page, 'login-branded');
    });
  });
});
