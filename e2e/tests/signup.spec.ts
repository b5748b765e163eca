import { expect, shot, test } from '../support/fixtures';
import { startServer, type RunningServer } from '../support/server';
import { createUser } from '../support/api';
import { Shell } from '../pages/Shell';

let open: RunningServer;
test.beforeAll(async () => {
  open = await startServer({ init: ['--signup', '--minimum-password-length', '12'] });
  await createUser(open.url, { username: 'taken', password: 'taken-password-1' });
});
test.afterAll(async () => {
  await open.stop();
});

test.describe('signup', () => {
  test.beforeEach(async ({ page }) => {
    await page.goto(`${open.url}/login`);
    await page.getByRole('button', { name: "Don't have an account? Sign up" }).click();
    await expect(page.getByLabel('Confirm password')).toBeVisible();
  });

  const fill = async (page: import('@playwright/test').Page, user: string, pass: string, confirm: string) => {
    await page.getByLabel('Username').fill(user);
    await page.getByLabel('Password', { exact: true }).fill(pass);
    await page.getByLabel('Confirm password').fill(confirm);
    await page.getByRole('button', { name: 'Create account' }).click();
  };

  test('different passwords are caught before anything is sent', async ({ page }) => {
    let sent = false;
    page.on('request', (r) => {
      if (r.url().includes('/api/signup')) sent = true;
    });
    await fill(page, 'newbie', 'first-password-1', 'second-password-2');
    await expect(page.getByRole('alert')).toHaveText("The passwords don't match.");
    expect(sent).toBe(false);
    await shot(page, 'signup-mismatch');
  });

  test('a taken username says so (409)', async ({ page }) => {
    await fill(page, 'taken', 'another-password-1', 'another-password-1');
    await expect(page.getByRole('alert')).toHaveText('This username is already taken.');
  });

  test("other refusals show the server's reason in the error prompt", async ({ page }) => {
    await fill(page, 'shorty', 'short', 'short');
    const dialog = page.getByRole('dialog', { name: 'Something went wrong' });
    await expect(dialog).toContainText('400 Bad Request (password is too short, minimum length is 12)');
    await shot(page, 'prompt-error');
    await dialog.getByRole('button', { name: 'OK' }).click();
    await expect(dialog).toBeHidden();
  });

  test('a new account signs in straight away', async ({ page }) => {
    await fill(page, 'newcomer', 'newcomer-password-1', 'newcomer-password-1');
    await expect(page).toHaveURL(/\/files\/$/);
    await new Shell(page).expectSignedIn('newcomer');
  });

  test('the sidebar offers login and signup to a signed-out visitor', async ({ page }) => {
    await page.goto(`${open.url}/404`);
    const nav = page.getByRole('navigation', { name: 'Main' });
    await expect(nav.getByRole('link', { name: 'Log in' })).toBeVisible();
    await nav.getByRole('link', { name: 'Sign up' }).click();
    await expect(page.getByLabel('Confirm password')).toBeVisible();
  });
});
