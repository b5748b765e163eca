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
