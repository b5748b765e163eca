import { expect, test } from '../support/fixtures';
import { ADMIN, startServer, type RunningServer } from '../support/server';
import { LoginPage } from '../pages/LoginPage';

let server: RunningServer;
test.beforeAll(async () => {
  server = await startServer();
});
test.afterAll(async () => {
  await server.stop();
});

test('after too many failures the login screen says when to try again (E6)', async ({ page }) => {
  // S30: ten failures from one address within 15 minutes; sent together, they take about 1 s.
  await Promise.all(
    Array.from({ length: 10 }, () =>
      fetch(`${server.url}/api/login`, {
        method: 'POST',
        body: JSON.stringify({ username: ADMIN.username, password: 'wrong', recaptcha: '' }),
      }),
    ),
  );
  const login = new LoginPage(page);
  await login.goto(`${server.url}/login`);
  const answer = page.waitForResponse((r) => r.url().endsWith('/api/login'));
  await login.signIn();
  const res = await answer;
  expect(res.status()).toBe(429);
  const seconds = Number(res.headers()['retry-after']);
  expect(seconds).toBeGreaterThan(0);
  await expect(login.problem()).toHaveText(
    new RegExp(`^Too many attempts\\. Try again in \\d+ seconds?\\.$`),
  );
  await expect(page).toHaveURL(/\/login$/);
});
