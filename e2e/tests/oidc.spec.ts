import { spawnSync } from 'node:child_process';
import { CLIENT, startProvider, type TestProvider } from '../../server/test/oidc-support';
import { expect, PHONE, shot, test } from '../support/fixtures';
import { startServer, type RunningServer } from '../support/server';

// OIDC sign-in (docs/api.md §2.13) against a real OpenID provider (oidc-provider) on 127.0.0.1:
// the "Sign in with …" button, the provider's own login and consent forms, back to the files.
let coffer: RunningServer;
let op: TestProvider;
let paths: { database: string; bin: string };

/** `coffer config set` on the running server's database (the auth method is read per request). */
function configSet(...flags: string[]) {
  const r = spawnSync(process.execPath, [paths.bin, 'config', 'set', '-d', paths.database, ...flags], {
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`config set failed: ${r.stderr}`);
}

test.use({ serverGroup: 'oidc' });

test.beforeAll(async () => {
  coffer = await startServer({ beforeStart: (p) => (paths = p) });
  op = await startProvider([`${coffer.url}/api/oidc/callback`]);
  op.accounts.set('olga-sub', { preferred_username: 'olga', groups: ['coffer-admins'] });
  op.accounts.set('pat-sub', { preferred_username: 'pat', groups: [] });
  configSet(
    '--auth.method',
    'oidc',
    '--oidc.issuer',
    op.issuer,
    '--oidc.client-id',
    CLIENT.id,
    '--oidc.client-secret',
    CLIENT.secret,
    '--oidc.redirect-url',
    `${coffer.url}/api/oidc/callback`,
    '--oidc.scopes',
    'openid profile groups',
    '--oidc.admin-claim',
    'groups',
    '--oidc.admin-value',
    'coffer-admins',
    '--oidc.name',
    'Test ID',
  );
});
test.afterAll(async () => {
  await op?.close();
  await coffer?.stop();
});

async function signInAtProvider(page: import('@playwright/test').Page, login: string) {
  await page.getByRole('link', { name: 'Sign in with Test ID' }).click();
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}

test('"Sign in with …" goes through the provider to the files, creating an admin from the group', async ({
  page,
}) => {
  await page.goto(`${coffer.url}/login?redirect=${encodeURIComponent('/files/')}`);
  await expect(page.getByRole('link', { name: 'Sign in with Test ID' })).toBeVisible();
  await expect(page.getByLabel('Username')).toBeVisible();
  await shot(page, 'oidc-login');
  await page.screenshot({ path: '/tmp/oidc-login-1280.png' });
  await signInAtProvider(page, 'olga-sub');
  await expect(page).toHaveURL(`${coffer.url}/files/`);
  await expect(page.getByRole('heading', { level: 1, name: 'My files' })).toBeVisible();
  await page.goto(`${coffer.url}/settings/global`);
  await expect(page.getByRole('heading', { level: 1, name: 'Global settings' })).toBeVisible();
});

test.describe('on a phone', () => {
  test.use(PHONE);

  test('only the provider: the password form is hidden; a refused user sees why', async ({ page }) => {
    configSet('--oidc.password-login=false', '--oidc.create-users=false');
    try {
      await page.goto(`${coffer.url}/login`);
      await expect(page.getByRole('link', { name: 'Sign in with Test ID' })).toBeVisible();
      await expect(page.getByLabel('Username')).toBeHidden();
      await page.screenshot({ path: '/tmp/oidc-login-375.png' });
      await signInAtProvider(page, 'pat-sub');
      await expect(page.getByRole('alert')).toHaveText(
        'Your Test ID account may not use this server. Ask an administrator.',
      );
      await page.screenshot({ path: '/tmp/oidc-refused-375.png' });
      configSet('--oidc.create-users=true');
      // The provider remembers pat's sign-in and consent: straight back to Coffer.
      await page.getByRole('link', { name: 'Sign in with Test ID' }).click();
      await expect(page).toHaveURL(`${coffer.url}/files/`);
      await expect(page.getByRole('heading', { level: 1, name: 'My files' })).toBeVisible();
      await page.screenshot({ path: '/tmp/oidc-files-375.png' });
    } finally {
      configSet('--oidc.password-login=true', '--oidc.create-users=true');
    }
  });
});
