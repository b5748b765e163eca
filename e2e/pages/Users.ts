import { expect, type Page } from '@playwright/test';
import { ADMIN } from '../support/server';

/** User management: the users table and the user form (docs/client.md §2 "Users list and user form"). */
export class Users {
  constructor(readonly page: Page) {}

  table = () => this.page.getByRole('table');
  row = (username: string) =>
    this.table()
      .getByRole('row')
      .filter({ has: this.page.getByRole('cell', { name: username, exact: true }) });
  newButton = () => this.page.getByRole('link', { name: 'New user' });

  form = () => this.page.locator('form.user-form');
  username = () => this.form().getByLabel('Username', { exact: true });
  password = () => this.form().getByLabel('Password', { exact: true });
  scope = () => this.form().getByLabel('Scope', { exact: true });
  createHome = () => this.form().getByRole('checkbox', { name: 'Create a home folder' });
  lockPassword = () => this.form().getByRole('checkbox', { name: 'Prevent the user from changing the password' });
  perm = (name: string) => this.form().getByRole('checkbox', { name, exact: true });
  current = () => this.form().getByLabel('Your password', { exact: true });
  save = () => this.form().getByRole('button', { name: 'Save' });
  deleteButton = () => this.form().getByRole('button', { name: 'Delete' });
  toasts = () => this.page.getByRole('region', { name: 'Notifications' });

  async gotoList() {
    await this.page.goto('settings/users');
    await expect(this.page.getByRole('heading', { level: 1, name: 'User management' })).toBeVisible();
    await expect(this.table()).toBeVisible();
  }

  async gotoNew() {
    await this.page.goto('settings/users/new');
    await expect(this.page.getByRole('heading', { level: 1, name: 'New user' })).toBeVisible();
  }

  async edit(username: string) {
    await this.row(username).getByRole('link', { name: `Edit ${username}` }).click();
    await expect(this.page.getByRole('heading', { level: 1, name: `User “${username}”` })).toBeVisible();
  }

  /** Types the admin's own password (json auth) and saves. */
  async confirmAndSave(password = ADMIN.password) {
    await this.current().fill(password);
    await this.save().click();
  }

  /** The error shown under a field: its accessible description. */
  async expectFieldError(field: ReturnType<Page['getByLabel']>, text: string | RegExp) {
    await expect(field).toHaveAttribute('aria-invalid', 'true');
    await expect(field).toHaveAccessibleDescription(text);
  }
}
