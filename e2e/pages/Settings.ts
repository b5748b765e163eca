import { expect, type Page } from '@playwright/test';

/** The settings screens: side menu, profile, password form, global settings cards. */
export class Settings {
  constructor(readonly page: Page) {}

  menu = () => this.page.getByRole('navigation', { name: 'Settings sections' });
  toast = (text: string | RegExp) => this.page.getByRole('status').filter({ hasText: text });
  checkbox = (name: string) => this.page.getByRole('checkbox', { name, exact: true });

  // Profile
  uploadsLimit = () => this.page.getByRole('spinbutton', { name: 'Uploads at the same time' });
  passwordForm = () =>
    this.page.locator('form').filter({ has: this.page.getByRole('heading', { name: 'Change password' }) });
  currentPassword = () => this.passwordForm().getByLabel('Current password', { exact: true });
  newPassword = () => this.passwordForm().getByLabel('New password', { exact: true });
  confirmPassword = () => this.passwordForm().getByLabel('Confirm new password', { exact: true });

  async gotoProfile() {
    await this.page.goto('settings/profile');
    await expect(this.page.getByRole('heading', { level: 1, name: 'Profile settings' })).toBeVisible();
  }

  /** Ticks or unticks a box that saves at once, and waits for the confirmation. */
  async toggle(name: string, on: boolean) {
    const box = this.checkbox(name);
    const saved = this.page.waitForResponse((r) => r.url().includes('/api/renew') && r.ok());
    if (on) await box.check();
    else await box.uncheck();
    await saved;
    await expect(box).toBeEnabled();
  }

  async changePassword(current: string, next: string, confirm = next) {
    await this.currentPassword().fill(current);
    await this.newPassword().fill(next);
    await this.confirmPassword().fill(confirm);
    await this.passwordForm().getByRole('button', { name: 'Change password' }).click();
  }
}

/** /settings/global: the cards are forms named by their titles. */
export class GlobalSettings {
  constructor(readonly page: Page) {}

  card = (name: 'General' | 'User defaults' | 'Command runner') => this.page.getByRole('form', { name });
  general = () => this.card('General');
  defaults = () => this.card('User defaults');
  runner = () => this.card('Command runner');
  /** The collapsible box of one command runner event. */
  runnerEvent = (name: string) => this.runner().locator('summary').filter({ hasText: name });
  rule = (n: number) => this.general().getByRole('group', { name: `Rule ${n}`, exact: true });

  async goto() {
    await this.page.goto('settings/global');
    await expect(this.general()).toBeVisible();
  }

  /** Saves with the button of `card` and waits for the answer. */
  async save(card: 'General' | 'User defaults' | 'Command runner' = 'General') {
    const put = this.page.waitForResponse(
      (r) => r.url().endsWith('/api/settings') && r.request().method() === 'PUT',
    );
    await this.card(card).getByRole('button', { name: 'Save' }).click();
    return put;
  }

  async addRule(text: string, options: { allow?: boolean; regex?: boolean } = {}) {
    await this.general().getByRole('button', { name: 'Add rule' }).click();
    const rows = this.general().getByRole('group', { name: /^Rule \d+$/ });
    const row = rows.last();
    if (options.regex) await row.getByRole('checkbox', { name: 'Regular expression' }).check();
    await row.getByRole('textbox').fill(text);
    if (options.allow) await row.getByRole('combobox').selectOption('allow');
  }
}
