import type { Page } from '@playwright/test';
import { seriousViolations } from '../support/axe';
import { createUser } from '../support/api';
import { expect, PHONE, test } from '../support/fixtures';
import { LoginPage } from '../pages/LoginPage';

// Types wrong passwords on purpose: a server of its own, so the shared one's login throttle stays clean.
test.use({ serverGroup: 'a11y' });

/** axe-core over each screen: no serious or critical violation. */
async function expectAccessible(page: Page, screen: string) {
  expect(await seriousViolations(page), screen).toEqual([]);
}

async function everyScreen(page: Page) {
  const login = new LoginPage(page);
  await login.goto();
  await expectAccessible(page, 'login');
  await login.password().fill('wrong-password');
  await login.username().fill('nobody');
  await login.submit().click();
  await expect(login.problem()).toBeVisible();
  await expectAccessible(page, 'login with error');
  await login.signIn();
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await expect(page.getByTestId('usage')).toBeAttached();
  await expectAccessible(page, 'files');
  await page.keyboard.press('F1');
  await expect(page.getByRole('dialog')).toBeVisible();
  await expectAccessible(page, 'help prompt');
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+Shift+F');
  await expect(page.getByRole('dialog', { name: 'Search' })).toBeVisible();
  await expectAccessible(page, 'search');
  await page.keyboard.press('Escape');
  await page.goto('settings/profile');
  await expect(page.getByLabel('Language')).toBeVisible();
  await expectAccessible(page, 'profile settings');
  await page.goto('404');
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await expectAccessible(page, 'not found');
}

test.describe('accessibility', () => {
  test('light, desktop', async ({ page }) => {
    await everyScreen(page);
  });

  test.describe('dark', () => {
    test.use({ colorScheme: 'dark' });
    test('dark, desktop', async ({ page }) => {
      await everyScreen(page);
    });
  });

  test.describe('phone', () => {
    test.use(PHONE);
    test('light, phone, with the drawer open', async ({ page }) => {
      await everyScreen(page);
      await page.goto('files/');
      await page.getByRole('button', { name: 'Open menu' }).click();
      await expect(page.getByRole('navigation', { name: 'Main' })).toBeInViewport();
      await expectAccessible(page, 'drawer');
    });
  });

  test('right to left', async ({ page, server }) => {
    await createUser(server.url, { username: 'hadas', password: 'hadas-password-1', locale: 'he' });
    const login = new LoginPage(page);
    await login.goto();
    await login.signIn('hadas', 'hadas-password-1');
    await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await expectAccessible(page, 'files in Hebrew');
  });
});
