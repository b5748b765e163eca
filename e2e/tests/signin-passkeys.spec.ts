/**
 * Passkeys (docs/api.md §2.13) with Chromium's virtual authenticator (DevTools protocol, WebAuthn
 * domain): register in Settings → Profile, sign in without a name, as the second step after the
 * password, remove.
 */
import type { Page } from '@playwright/test';
import { createUser } from '../support/api';
import { expect, PHONE, shot, test } from '../support/fixtures';
import { LoginPage } from '../pages/LoginPage';

// Signs in and out many times: a server of its own, so the shared one's login throttle stays clean.
test.use({ serverGroup: 'signin-passkeys' });
// WebAuthn needs a host name for its RP ID, not an address: the page opens the server as localhost.
test.use({ baseURL: async ({ server }, use) => use(server.url.replace('127.0.0.1', 'localhost') + '/') });
test.describe.configure({ timeout: 120_000 });

let counter = 0;
async function newUser(url: string) {
  const name = `pk${process.pid}x${++counter}`;
  const password = `${name}-password`;
  await createUser(url, { username: name, password });
  return { name, password };
}

/** A platform authenticator that keeps discoverable credentials and verifies the user. */
async function virtualAuthenticator(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return {
    credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials,
  };
}

const card = (page: Page) => page.getByRole('region', { name: 'Passkeys' });
const toast = (page: Page, text: string) => page.getByRole('region', { name: 'Notifications' }).getByText(text);

async function logOut(page: Page) {
  await page.getByRole('button', { name: 'Log out' }).click();
  await expect(page.getByLabel('Username')).toBeVisible();
}

async function addPasskey(page: Page, name: string, password: string) {
  await card(page).getByLabel('Name', { exact: true }).fill(name);
  await card(page).getByLabel('Current password').fill(password);
  await card(page).getByRole('button', { name: 'Add a passkey' }).click();
  await expect(toast(page, 'Passkey added.')).toBeVisible();
  await expect(card(page).getByRole('listitem').filter({ hasText: name })).toBeVisible();
}

test('registers a passkey, signs in with it without a name and as the second step, then removes it', async ({
  page,
  server,
}) => {
  const u = await newUser(server.url);
  const authenticator = await virtualAuthenticator(page);
  const login = new LoginPage(page);
  await login.goto('settings/profile');
  await login.signIn(u.name, u.password);
  await expect(card(page).getByText('No passkeys yet.')).toBeVisible({ timeout: 20_000 });
  // The current password confirms it, as for two-factor sign-in.
  await card(page).getByLabel('Name', { exact: true }).fill('Laptop');
  await card(page).getByRole('button', { name: 'Add a passkey' }).click();
  await expect(card(page).getByText('Enter your current password.')).toBeVisible();
  await addPasskey(page, 'Laptop', u.password);
  const [credential] = await authenticator.credentials();
  expect(credential?.isResidentCredential).toBe(true);
  expect(credential?.rpId).toBe('localhost');
  await card(page).scrollIntoViewIfNeeded();
  await shot(page, 'passkeys-card');

  // Without a name: the browser offers the passkey it has for this site.
  await logOut(page);
  await shot(page, 'passkeys-login');
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'My files' })).toBeVisible({ timeout: 30_000 });

  // After the password the passkey is the second step (the user has no TOTP: no code field).
  await logOut(page);
  await login.signIn(u.name, u.password);
  const usePasskey = page.getByRole('button', { name: 'Use a passkey' });
  await expect(usePasskey).toBeVisible();
  await expect(page.getByLabel('Code')).toHaveCount(0);
  await shot(page, 'passkeys-second-step');
  await usePasskey.click();
  await expect(page.getByRole('heading', { level: 1, name: 'My files' })).toBeVisible({ timeout: 30_000 });

  // Removed: it no longer signs in.
  await page.goto('settings/profile');
  await card(page).getByLabel('Current password').fill(u.password);
  await card(page).getByRole('button', { name: 'Remove Laptop' }).click();
  const dialog = page.getByRole('dialog', { name: 'Remove this passkey?' });
  await expect(dialog).toContainText('Your other sessions and app passwords end too.');
  await dialog.getByRole('button', { name: 'Remove' }).click();
  await expect(toast(page, 'Passkey removed.')).toBeVisible();
  await expect(card(page).getByText('No passkeys yet.')).toBeVisible();
  await logOut(page);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await expect(page.getByRole('alert')).toHaveText('The passkey was not accepted.');
});

test.describe('on a phone', () => {
  test.use(PHONE);
  test('the passkeys card and the login button at 375 px', async ({ page, server }) => {
    const u = await newUser(server.url);
    await virtualAuthenticator(page);
    const login = new LoginPage(page);
    await login.goto('settings/profile');
    await shot(page, 'passkeys-login');
    await login.signIn(u.name, u.password);
    await expect(card(page).getByText('No passkeys yet.')).toBeVisible({ timeout: 20_000 });
    await addPasskey(page, 'Phone', u.password);
    await card(page).getByRole('heading', { name: 'Passkeys' }).scrollIntoViewIfNeeded();
    await shot(page, 'passkeys-card');
  });
});
