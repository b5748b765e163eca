import { expect, type Page } from '@playwright/test';
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
