import { expect, test } from '../support/fixtures';
import { ADMIN, startServer, type RunningServer } from '../support/server';
import { LoginPage } from '../pages/LoginPage';
import { Shell } from '../pages/Shell';

// A 5 s session: every answer asks for renewal (docs/api.md §2.3: less than an hour left), and a user
// who does nothing is signed out when the token expires.
let short: RunningServer;
test.beforeAll(async () => {
  short = await startServer({ args: ['--token-expiration-time', '5s'] });
});
test.afterAll(async () => {
  await short.stop();
});

test('renews the token when an answer carries X-Renew-Token', async ({ page, context }) => {
  const login = new LoginPage(page);
  await login.goto(`${short.url}/login`);
  const loggedIn = page.waitForResponse((r) => r.url().endsWith('/api/login'));
  const renewed = page.waitForResponse((r) => r.url().endsWith('/api/renew') && r.status() === 200);
  await login.signIn();
  const first = await (await loggedIn).text();
  const fresh = await (await renewed).text();
  expect(fresh).not.toBe(first);
  await expect.poll(() => page.evaluate(() => localStorage.getItem('jwt'))).not.toBe(first);
  // Every answer asks for renewal with a 5 s token, so renewals keep coming: read both together.
  await expect
    .poll(async () => {
      const stored = await page.evaluate(() => localStorage.getItem('jwt'));
      return (await context.cookies()).find((c) => c.name === 'auth')?.value === stored;
    })
    .toBe(true);
  await new Shell(page).expectSignedIn(ADMIN.username);
});

test('an idle session ends at the token expiry and the login screen brings the user back', async ({
  page,
}) => {
  const login = new LoginPage(page);
  await login.goto(`${short.url}/settings/profile`);
  await login.signIn();
  await expect(page.getByRole('heading', { name: 'Profile settings' })).toBeVisible();
  await expect(page).toHaveURL(/\/login\?redirect=%2Fsettings%2Fprofile$/, { timeout: 15_000 });
  expect(await page.evaluate(() => localStorage.getItem('jwt'))).toBeNull();
  await login.signIn();
  await expect(page.getByRole('heading', { name: 'Profile settings' })).toBeVisible();
});
