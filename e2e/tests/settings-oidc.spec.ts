import { CLIENT, startProvider, type TestProvider } from '../../server/test/oidc-support';
import { seriousViolations } from '../support/axe';
import { expect, PHONE, shot, test } from '../support/fixtures';
import { startServer, type RunningServer } from '../support/server';
import { LoginPage } from '../pages/LoginPage';

// Settings → Global's single sign-on card (docs/api.md §2.14) against a real OpenID provider
// (oidc-provider) on 127.0.0.1: field checks, "Test discovery", the write-only secret, choosing
// the oidc method from the screen, and signing in with it at once (no restart).
let coffer: RunningServer;
let op: TestProvider;

test.use({ serverGroup: 'settings-oidc' });
test.describe.configure({ mode: 'serial', timeout: 90_000 });

test.beforeAll(async () => {
  coffer = await startServer();
  op = await startProvider([`${coffer.url}/api/oidc/callback`]);
  op.accounts.set('olga-sub', { preferred_username: 'olga', groups: ['coffer-admins'] });
});
test.afterAll(async () => {
  await op?.close();
  await coffer?.stop();
});

const card = (page: import('@playwright/test').Page) => page.getByRole('form', { name: 'Single sign-on (OpenID Connect)' });

async function openCard(page: import('@playwright/test').Page) {
  const login = new LoginPage(page);
  await page.goto(`${coffer.url}/login?redirect=${encodeURIComponent('/settings/global')}`);
  await login.signIn();
  await expect(card(page)).toBeVisible();
  return card(page);
}

test('checks the fields, tests discovery, keeps the secret write-only and turns single sign-on on', async ({ page }) => {
  const oidc = await openCard(page);
  await expect(oidc.getByLabel('Sign-in method')).toHaveValue('json');
  await expect(oidc.getByText('No secret is stored.')).toBeVisible();

  // Field checks before anything is sent.
  const puts: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'PUT' && r.url().endsWith('/api/settings/oidc')) puts.push(r.url());
  });
  await oidc.getByLabel('Sign-in method').selectOption('oidc');
  await oidc.getByLabel('Issuer URL').fill('http://auth.example.com');
  await oidc.getByLabel('Admin claim').fill('groups');
  await oidc.getByRole('button', { name: 'Save' }).click();
  await expect(oidc.getByText('Use https; http is allowed only on this machine.')).toBeVisible();
  await expect(oidc.getByText('Fill in both the admin claim and the admin value, or neither.')).toBeVisible();
  await expect(oidc.getByText('Required for single sign-on.').first()).toBeVisible();
  await expect(oidc.getByLabel('Issuer URL')).toBeFocused();
  expect(puts).toEqual([]);

  // Test discovery: why not, then OK.
  await oidc.getByLabel('Issuer URL').fill(`${op.issuer}/`);
  await oidc.getByRole('button', { name: 'Test discovery' }).click();
  await expect(oidc.getByRole('status')).toContainText('The document names another issuer');
  await oidc.getByLabel('Issuer URL').fill(op.issuer);
  await oidc.getByRole('button', { name: 'Test discovery' }).click();
  await expect(oidc.getByRole('status')).toHaveText("OK: the provider's discovery document is usable.");

  await oidc.getByLabel('Client ID').fill(CLIENT.id);
  await oidc.getByLabel('Client secret').fill(CLIENT.secret);
  await oidc.getByLabel('Callback URL').fill(`${coffer.url}/api/oidc/callback`);
  await oidc.getByLabel('Scopes').fill('openid profile groups');
  await oidc.getByLabel('Admin value').fill('coffer-admins');
  await oidc.getByLabel('Button name').fill('Test ID');
  await shot(page, 'settings-oidc-filled');
  const saved = page.waitForResponse((r) => r.url().endsWith('/api/settings/oidc') && r.request().method() === 'PUT');
  await oidc.getByRole('button', { name: 'Save' }).click();
  expect((await saved).status()).toBe(200);
  await expect(page.getByText('Settings updated.')).toBeVisible();

  // Read back: the secret is set, and nowhere in the page.
  await expect(oidc.getByText('A secret is stored. Leave this empty to keep it, or type a new one to replace it.')).toBeVisible();
  await expect(oidc.getByLabel('Client secret')).toHaveValue('');
  expect(await page.content()).not.toContain(CLIENT.secret);
  await expect(oidc.getByLabel('Sign-in method')).toHaveValue('oidc');
  // Another issuer does not inherit the stored secret: the form asks for its own.
  await oidc.getByLabel('Issuer URL').fill(`${op.issuer}/elsewhere`);
  await expect(oidc.getByText('The issuer changed: type its client secret.', { exact: false })).toBeVisible();
  await oidc.getByLabel('Client secret').scrollIntoViewIfNeeded();
  await shot(page, 'settings-oidc-new-issuer');
  await oidc.getByRole('button', { name: 'Save' }).click();
  await expect(oidc.getByText('Required for single sign-on.')).toBeVisible();
  await oidc.getByLabel('Issuer URL').fill(op.issuer);
  await expect(oidc.getByText('A secret is stored. Leave this empty to keep it, or type a new one to replace it.')).toBeVisible();
  await expect(oidc.getByText('Required for single sign-on.')).toHaveCount(0);
  expect(await seriousViolations(page)).toEqual([]);
  await oidc.getByRole('heading', { name: 'Single sign-on (OpenID Connect)' }).scrollIntoViewIfNeeded();
  await shot(page, 'settings-oidc');
});

test('the login page offers the provider at once, and signing in there works', async ({ page }) => {
  await page.goto(`${coffer.url}/login?redirect=${encodeURIComponent('/files/')}`);
  await page.getByRole('link', { name: 'Sign in with Test ID' }).click();
  await page.locator('input[name="login"]').fill('olga-sub');
  await page.locator('input[name="password"]').fill('any');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page).toHaveURL(`${coffer.url}/files/`);
  await expect(page.getByRole('heading', { level: 1, name: 'My files' })).toBeVisible();
});

test.describe('on a phone', () => {
  test.use(PHONE);

  test('the card fits 375 px; a stored secret can be cleared', async ({ page }) => {
    const oidc = await openCard(page);
    await expect(oidc.getByLabel('Sign-in method')).toHaveValue('oidc');
    await oidc.getByRole('button', { name: 'Test discovery' }).click();
    await expect(oidc.getByRole('status')).toHaveText("OK: the provider's discovery document is usable.");
    // Nothing wider than the screen.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await oidc.scrollIntoViewIfNeeded();
    await shot(page, 'settings-oidc');
    // Clearing the secret while oidc is on is refused in the form; back to passwords, it is cleared.
    await oidc.getByRole('checkbox', { name: 'Remove the stored secret' }).check();
    await expect(oidc.getByText('The stored secret will be removed when you save.')).toBeVisible();
    await oidc.getByRole('button', { name: 'Save' }).click();
    await expect(oidc.getByText('Required for single sign-on.')).toBeVisible();
    await oidc.getByLabel('Sign-in method').selectOption('json');
    const saved = page.waitForResponse((r) => r.url().endsWith('/api/settings/oidc') && r.request().method() === 'PUT');
    await oidc.getByRole('button', { name: 'Save' }).click();
    expect((await saved).status()).toBe(200);
    await expect(oidc.getByText('No secret is stored.')).toBeVisible();
    await expect(oidc.getByLabel('Sign-in method')).toHaveValue('json');
  });
});
