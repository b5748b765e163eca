import { expect, shot, test } from '../support/fixtures';
import { startFakeRecaptcha, CAPTCHA_TOKEN } from '../support/fake-recaptcha';
import { ADMIN, startServer, type RunningServer } from '../support/server';
import { LoginPage } from '../pages/LoginPage';
import { Shell } from '../pages/Shell';

// One instance mounted under --baseurl /coffer, with the captcha on (served by a local stand-in).
let server: RunningServer;
let captcha: Awaited<ReturnType<typeof startFakeRecaptcha>>;

test.beforeAll(async () => {
  captcha = await startFakeRecaptcha();
  server = await startServer({
    init: [
      '--recaptcha.host',
      captcha.origin,
      '--recaptcha.key',
      'site-key-1',
      '--recaptcha.secret',
      'secret-1',
    ],
    args: ['--baseurl', '/coffer'],
    baseurl: '/coffer',
  });
});
test.afterAll(async () => {
  await server.stop();
  await captcha.stop();
});

test('under --baseurl every request stays below the prefix', async ({ page }) => {
  const outside: string[] = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.origin === server.origin && !url.pathname.startsWith('/coffer/')) outside.push(url.pathname);
  });
  await page.goto(`${server.url}/files/`);
  await expect(page).toHaveURL(`${server.url}/login?redirect=%2Ffiles%2F`);
  await expect(page.locator('img.login__logo')).toHaveAttribute('src', '/coffer/static/img/logo.svg');
  const login = new LoginPage(page);
  await login.username().fill(ADMIN.username);
  await login.password().fill(ADMIN.password);
  await page.getByRole('checkbox', { name: 'I am not a robot' }).check();
  await login.submit().click();
  await expect(page).toHaveURL(`${server.url}/files/`);
  await new Shell(page).expectSignedIn(ADMIN.username);
  await expect(page.getByRole('progressbar', { name: 'Storage' })).toBeVisible();
  expect(outside).toEqual([]);

  // A cold load with the stored session: the listing is asked for below the prefix too, without
  // waiting for the renewal.
  const api: string[] = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith('/coffer/api/')) api.push(url.pathname);
  });
  await page.goto(`${server.url}/files/`);
  await new Shell(page).expectSignedIn(ADMIN.username);
  expect(api.indexOf('/coffer/api/resources/')).toBeGreaterThanOrEqual(0);
  expect(api.indexOf('/coffer/api/resources/')).toBeLessThan(api.indexOf('/coffer/api/renew'));
  expect(outside).toEqual([]);
});

test('the captcha must be answered: without it, the wrong-credentials message', async ({ page }) => {
  const login = new LoginPage(page);
  await login.goto(`${server.url}/login`);
  const box = page.getByRole('checkbox', { name: 'I am not a robot' });
  await expect(box).toHaveAttribute('data-sitekey', 'site-key-1');
  let sent = false;
  page.on('request', (r) => {
    if (r.url().endsWith('/api/login')) sent = true;
  });
  await login.signIn();
  await expect(login.problem()).toHaveText('Wrong username or password.');
  expect(sent).toBe(false);
  await shot(page, 'login-captcha');
  await box.check();
  await login.submit().click();
  await new Shell(page).expectSignedIn(ADMIN.username);
  expect(captcha.verified).toContain(CAPTCHA_TOKEN);
});
