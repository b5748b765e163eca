import { expect, type Page } from '@playwright/test';
import { apiLogin } from '../support/api';
import { ADMIN } from '../support/server';

/** The login screen, by role and accessible name (UI in English unless a test says otherwise). */
export class LoginPage {
  constructor(readonly page: Page) {}

  username = () => this.page.getByLabel('Username');
  password = () => this.page.getByLabel('Password', { exact: true });
  submit = () => this.page.getByRole('button', { name: 'Log in' });
  problem = () => this.page.getByRole('alert');

  async goto(path = '/login') {
    await this.page.goto(path.replace(/^\//, ''));
    // The first screen loads its chunks: allow for a busy machine.
    await expect(this.username()).toBeVisible({ timeout: 20_000 });
  }

  async signIn(username = ADMIN.username, password = ADMIN.password) {
    await this.username().fill(username);
    await this.password().fill(password);
    await this.submit().click();
  }
}

/**
 * Signs in through the login screen (default: as the admin) and waits for My files, allowing for a
 * busy machine. The login flow itself has its own tests; this is the way in for the others.
 */
export async function signIn(page: Page, username?: string, password?: string): Promise<void> {
  const login = new LoginPage(page);
  await login.goto();
  await login.signIn(username, password);
  await expect(page.getByRole('heading', { level: 1, name: 'My files' })).toBeVisible({ timeout: 30_000 });
}

/**
 * Signs in without the login screen: a token from the API, stored as the login screen would store
 * it before the page's first script runs (once per tab: a reload keeps the token the page renewed
 * since). For tests about what comes after signing in.
 */
export async function signInWithToken(
  page: Page,
  url: string,
  username = ADMIN.username,
  password = ADMIN.password,
): Promise<void> {
  const token = await apiLogin(url, username, password);
  await page.context().addInitScript((jwt) => {
    if (sessionStorage.getItem('e2e-signed-in')) return;
    sessionStorage.setItem('e2e-signed-in', '1');
    localStorage.setItem('jwt', jwt);
  }, token);
}
