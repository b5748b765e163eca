import { expect, type Page } from '@playwright/test';

/** The app shell: header, sidebar or drawer, main area. */
export class Shell {
  constructor(readonly page: Page) {}

  sidebar = () => this.page.getByRole('navigation', { name: 'Main' });
  main = () => this.page.locator('main#main');
  menuButton = () => this.page.getByRole('button', { name: 'Open menu' });
  searchButton = () => this.page.getByRole('banner').getByRole('button', { name: 'Search' });

  async expectSignedIn(username: string) {
    await expect(this.sidebar().getByRole('link', { name: username })).toBeAttached();
  }

  async logout() {
    await this.sidebar().getByRole('button', { name: 'Log out' }).click();
  }
}
