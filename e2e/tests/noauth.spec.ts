import { expect, test } from '../support/fixtures';
import { startServer, type RunningServer } from '../support/server';
import { Shell } from '../pages/Shell';

// --noauth (first run): no login form; the client signs in by itself (POST /api/login) on the
// first navigation and offers no logout.
let open: RunningServer;
test.beforeAll(async () => {
  open = await startServer({ args: ['--noauth'] });
});
test.afterAll(async () => {
  await open.stop();
});

test('without authentication the files open straight away and there is no logout', async ({ page }) => {
  const config = await page.goto(`${open.url}/files/`).then(() => page.evaluate(() => window.FileBrowser));
  expect(config).toMatchObject({ NoAuth: true, LoginPage: false });
  const shell = new Shell(page);
  await expect(page.getByRole('heading', { level: 1, name: 'My files' })).toBeVisible();
  await expect(shell.sidebar().getByRole('link', { name: 'My files' })).toBeVisible();
  await expect(shell.sidebar().getByRole('button', { name: 'Log out' })).toHaveCount(0);
  await page.goto(`${open.url}/login`);
  await expect(page).toHaveURL(`${open.url}/files/`);
});

declare global {
  interface Window {
    FileBrowser?: Record<string, unknown>;
  }
}
