/** Two-factor sign-in with TOTP (docs/api.md §2.12): enrol in Settings → Profile, sign in with codes computed here. */
import type { Page } from '@playwright/test';
import { Secret, TOTP } from 'otpauth';
import { createUser } from '../support/api';
import { expect, PHONE, shot, test } from '../support/fixtures';
import { LoginPage } from '../pages/LoginPage';
import { ADMIN, startServer, type RunningServer } from '../support/server';

// Types wrong passwords on purpose: a server of its own, so the shared one's login throttle stays clean.
test.use({ serverGroup: 'signin-totp' });

let counter = 0;
const codeAt = (secret: string, at = Date.now() / 1000) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({
    timestamp: at * 1000,
  });

async function newUser(url: string) {
  const name = `totp${process.pid}x${++counter}`;
  const password = `${name}-password`;
  await createUser(url, { username: name, password });
  return { name, password };
}

const card = (page: Page) => page.getByRole('region', { name: 'Two-factor sign-in' });

/** Signs in at /settings/profile and turns TOTP on through the card: the secret and the recovery codes. */
async function enrol(page: Page, name: string, password: string) {
  const login = new LoginPage(page);
  await login.goto('settings/profile');
  await login.signIn(name, password);
  await card(page).getByRole('button', { name: 'Set up two-factor sign-in' }).click();
  await expect(card(page).getByRole('img', { name: 'QR code for your authenticator app' })).toBeVisible();
  const secret = (await card(page).getByTestId('totp-secret').getAttribute('data-secret'))!;
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  await card(page).getByLabel('Code from the app').fill('000000');
  await card(page).getByLabel('Current password').fill(password);
  await card(page).getByRole('button', { name: 'Turn on' }).click();
  await expect(card(page).getByText('This code is not right.')).toBeVisible();
  await card(page).getByLabel('Code from the app').fill(codeAt(secret));
  await card(page).getByRole('button', { name: 'Turn on' }).click();
  const list = card(page).getByRole('list', { name: 'Recovery codes' });
  await expect(list.getByRole('listitem')).toHaveCount(10);
  const codes = (await list.getByRole('listitem').allTextContents()).map((c) => c.trim());
  return { secret, codes };
}

async function logOut(page: Page) {
  await page.getByRole('button', { name: 'Log out' }).click();
  await expect(page.getByLabel('Username')).toBeVisible();
}

test.describe('two-factor sign-in', () => {
  test.describe.configure({ timeout: 120_000 });

  test('enrols with the QR code and a code, then signs in with a code and with a recovery code once', async ({
    page,
    server,
  }) => {
    const u = await newUser(server.url);
    const { secret, codes } = await enrol(page, u.name, u.password);
    await shot(page, 'signin-totp-codes');
    await card(page).getByRole('button', { name: 'Done' }).click();
    await expect(card(page)).toContainText('Recovery codes left: 10.');

    await logOut(page);
    const login = new LoginPage(page);
    await login.signIn(u.name, u.password);
    const codeField = page.getByLabel('Authentication code');
    await expect(codeField).toBeVisible();
    await shot(page, 'signin-totp-login');
    await codeField.fill('123456');
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect(login.problem()).toHaveText('Wrong code.');
    // The code of the next step: the enrolment spent the current one.
    await codeField.fill(codeAt(secret, Date.now() / 1000 + 30));
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'My files' })).toBeVisible({ timeout: 30_000 });

    await logOut(page);
    await login.signIn(u.name, u.password);
    await codeField.fill(codes[0]!);
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'My files' })).toBeVisible({ timeout: 30_000 });

    await logOut(page);
    await login.signIn(u.name, u.password);
    await codeField.fill(codes[0]!);
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect(login.problem()).toHaveText('Wrong code.');
    // Start over goes back to the name and password.
    await page.getByRole('button', { name: 'Start over' }).click();
    await expect(login.password()).toBeVisible();
    await expect(codeField).toHaveCount(0);
  });

  test('turns off with the current password', async ({ page, server }) => {
    const u = await newUser(server.url);
    await enrol(page, u.name, u.password);
    await card(page).getByRole('button', { name: 'Done' }).click();
    await card(page).getByLabel('Current password').fill(u.password);
    await card(page).getByRole('button', { name: 'Turn off' }).click();
    await page
      .getByRole('dialog', { name: 'Turn off two-factor sign-in?' })
      .getByRole('button', { name: 'Turn off' })
      .click();
    await expect(card(page).getByRole('button', { name: 'Set up two-factor sign-in' })).toBeVisible();
    await logOut(page);
    const login = new LoginPage(page);
    await login.signIn(u.name, u.password);
    await expect(page.getByRole('heading', { level: 1, name: 'My files' })).toBeVisible({ timeout: 30_000 });
  });

  test.describe('on a phone', () => {
    test.use(PHONE);
    test('the enrolment fits a 375 px screen', async ({ page, server }) => {
      const u = await newUser(server.url);
      const login = new LoginPage(page);
      await login.goto('settings/profile');
      await login.signIn(u.name, u.password);
      await card(page).getByRole('button', { name: 'Set up two-factor sign-in' }).click();
      await card(page)
        .getByRole('img', { name: 'QR code for your authenticator app' })
        .scrollIntoViewIfNeeded();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      await shot(page, 'signin-totp-enrol-phone');
    });
  });
});

test.describe('--require-second-factor admins', () => {
  test.describe.configure({ timeout: 120_000 });
  let strict: RunningServer;
  test.beforeAll(async () => {
    strict = await startServer({ args: ['--require-second-factor', 'admins'] });
  });
  test.afterAll(async () => {
    await strict.stop();
  });

  test('an admin without a second factor can only set it up, then reaches the files', async ({ page }) => {
    const login = new LoginPage(page);
    await page.goto(`${strict.url}/files/`);
    await expect(login.username()).toBeVisible({ timeout: 20_000 });
    await login.signIn(ADMIN.username, ADMIN.password);
    await expect(page).toHaveURL(/\/settings\/profile$/);
    await expect(card(page).getByRole('alert')).toHaveText(
      'Your administrator requires two-factor sign-in. Set it up to go on.',
    );
    await expect(page.getByRole('region', { name: 'Signed-in sessions' })).toHaveCount(0);
    await shot(page, 'signin-totp-required-before');
    await page.goto(`${strict.url}/files/`);
    await expect(page).toHaveURL(/\/settings\/profile$/);
    await card(page).getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    const secret = (await card(page).getByTestId('totp-secret').getAttribute('data-secret'))!;
    await card(page).getByLabel('Code from the app').fill(codeAt(secret));
    await card(page).getByLabel('Current password').fill(ADMIN.password);
    await card(page).getByRole('button', { name: 'Turn on' }).click();
    await expect(card(page).getByRole('list', { name: 'Recovery codes' }).getByRole('listitem')).toHaveCount(
      10,
    );
    await expect(card(page).getByRole('list', { name: 'Recovery codes' })).toBeInViewport();
    await shot(page, 'signin-totp-required');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'My files' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'My files' })).toBeVisible({ timeout: 30_000 });
  });
});
