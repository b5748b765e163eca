import { expect, type Page } from '@playwright/test';

/** The public share page: the box, the read-only listing, the toolbar, the preview, the password card. */
export class SharePage {
  constructor(readonly page: Page) {}

  box = () => this.page.getByRole('region', { name: 'Details' });
  listing = () => this.page.getByRole('listbox', { name: 'Items' });
  item = (name: string) => this.listing().getByRole('option', { name, exact: true });
  items = () => this.listing().getByRole('option');
  toolbar = () => this.page.getByRole('toolbar', { name: 'Actions' });
  action = (name: string) => this.toolbar().getByRole('button', { name, exact: true });
  /** The download button's name ends with the selected count when there is one. */
  download = () => this.toolbar().getByRole('button', { name: /^Download/ });
  qr = () => this.box().getByRole('img', { name: 'QR code of the download link' });
  preview = (name: string) => this.page.getByRole('region', { name: `Preview of ${name}` });
  password = () => this.page.getByLabel('Password', { exact: true });

  async goto(hash: string, sub = '') {
    await this.page.goto(`share/${hash}${sub}`);
  }

  async expectHeading(name: string) {
    await expect(this.page.getByRole('heading', { level: 1, name })).toBeVisible({ timeout: 30_000 });
  }

  async unlock(password: string) {
    await this.password().fill(password);
    await this.page.getByRole('button', { name: 'Open', exact: true }).click();
  }
}
