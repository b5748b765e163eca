import { apiLogin } from '../support/api';
import { expect, shot, test } from '../support/fixtures';
import { ADMIN } from '../support/server';
import { LoginPage } from '../pages/LoginPage';
import { Shell } from '../pages/Shell';

// Types wrong passwords on purpose: a server of its own, so the shared one's login throttle stays clean.
test.use({ serverGroup: 'auth' });

test.describe('signing in and out', () => {
  test('a newcomer signs in and sees the shell', async ({ page, pageErrors }) => {
    const login = new LoginPage(page);
    await login.goto();
    await expect(page).toHaveTitle('Login - Coffer');
    await expect(page.getByRole('heading', { level: 1, name: 'Coffer' })).toBeVisible();
    await shot(page, 'login');
    await login.signIn();
    await expect(page).toHaveURL(/\/files\/$/);
    const shell = new Shell(page);
    await shell.expectSignedIn(ADMIN.username);
    await expect(shell.sidebar().getByRole('link', { name: 'My files' })).toBeVisible();
    await expect(page).toHaveTitle('My files - Files - Coffer');
    await shot(page, 'shell');
    expect(pageErrors).toEqual([]);
  });

  test('comes back to the page it was sent away from', async ({ page, server }) => {
    const { mkdirSync } = await import('node:fs');
    mkdirSync(`${server.root}/Reports 2024`, { recursive: true });
    await page.goto('files/Reports%202024/');
    await expect(page).toHaveURL(/\/login\?redirect=%2Ffiles%2FReports%25202024%2F$/);
    await new LoginPage(page).signIn();
    await expect(page).toHaveURL(/\/files\/Reports%202024\/$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Reports 2024' })).toBeVisible();
  });

  test('a wrong password says so, shows the busy state meanwhile, and stays on the login screen', async ({
    page,
  }) => {
    const login = new LoginPage(page);
    await login.goto();
    await login.username().fill(ADMIN.username);
    await login.password().fill('not-the-password');
    const answer = page.waitForResponse((r) => r.url().endsWith('/api/login'));
    await login.submit().click();
    // The server takes about a second to refuse (S30): the form is busy meanwhile.
    const busy = page.getByRole('button', { name: 'Logging in…' });
    await expect(busy).toBeDisabled();
    expect((await answer).status()).toBe(403);
    await expect(login.problem()).toHaveText('Wrong username or password.');
    await expect(login.submit()).toBeEnabled();
    await expect(page).toHaveURL(/\/login$/);
    expect(await page.evaluate(() => localStorage.getItem('jwt'))).toBeNull();
    await shot(page, 'login-wrong-password');
  });

  test('logout ends the session on the server (E5) and forgets the token', async ({
    page,
    server,
    context,
  }) => {
    const login = new LoginPage(page);
    await login.goto();
    await login.signIn();
    await new Shell(page).expectSignedIn(ADMIN.username);
    const token = await page.evaluate(() => localStorage.getItem('jwt'));
    expect(token).toBeTruthy();
    expect((await context.cookies()).find((c) => c.name === 'auth')?.value).toBe(token);

    const logout = page.waitForResponse((r) => r.url().endsWith('/api/logout'));
    await new Shell(page).logout();
    expect((await logout).status()).toBe(204);
    await expect(page).toHaveURL(/\/login$/);
    expect(await page.evaluate(() => localStorage.getItem('jwt'))).toBeNull();
    expect((await context.cookies()).find((c) => c.name === 'auth')?.value ?? '').toBe('');
    const after = await fetch(`${server.url}/api/usage/`, { headers: { 'X-Auth': token ?? '' } });
    expect(after.status).toBe(401);
  });

  test('a session ended elsewhere (401) leads to the login screen and back', async ({ page, server }) => {
    const { mkdirSync } = await import('node:fs');
    mkdirSync(`${server.root}/Photos`, { recursive: true });
    const login = new LoginPage(page);
    await login.goto();
    await login.signIn();
    await expect(page.getByRole('option', { name: 'Photos' })).toBeVisible();
    const token = await page.evaluate(() => localStorage.getItem('jwt'));
    const res = await fetch(`${server.url}/api/logout`, {
      method: 'POST',
      headers: { 'X-Auth': token ?? '' },
    });
    expect(res.status).toBe(204);
    await page.getByRole('option', { name: 'Photos' }).dblclick();
    await expect(page).toHaveURL(/\/login\?redirect=%2Ffiles%2FPhotos%2F$/);
    await login.signIn();
    await expect(page).toHaveURL(/\/files\/Photos\/$/);
  });

  test('a signed-in user opening /login goes to the files', async ({ page, server }) => {
    const token = await apiLogin(server.url);
    await page.addInitScript((jwt) => localStorage.setItem('jwt', jwt), token);
    await page.goto('login');
    await expect(page).toHaveURL(/\/files\/$/);
    await new Shell(page).expectSignedIn(ADMIN.username);
  });
});
