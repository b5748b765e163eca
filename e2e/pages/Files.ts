import { expect, type Page } from '@playwright/test';

/** The file browser: breadcrumbs, toolbar, listing, selection bar and its prompts. */
export class Files {
  constructor(readonly page: Page) {}

  listing = () => this.page.getByRole('listbox', { name: 'Items' });
  item = (name: string) => this.listing().getByRole('option', { name, exact: true });
  items = () => this.listing().getByRole('option');
  breadcrumbs = () => this.page.getByRole('navigation', { name: 'Location' });
  toolbar = () => this.page.getByRole('toolbar', { name: 'Actions' });
  /** The names of the toolbar's visible buttons, in order (the selection bar's included). */
  toolbarButtons = () =>
    this.toolbar()
      .getByRole('button')
      .evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? e.textContent ?? ''));
  action = (name: string) => this.page.getByRole('button', { name, exact: true });
  selectionBar = () => this.page.getByRole('region', { name: /^Selected: / });
  menu = () => this.page.getByRole('menu');
  menuItems = () => this.menu().getByRole('menuitem');
  crumb = (name: string) => this.breadcrumbs().getByRole('link', { name, exact: true });
  sortButton = (name: 'Name' | 'Size' | 'Last modified') =>
    this.listing()
      .locator('xpath=..')
      .getByRole('button', { name: new RegExp(`^${name}`) });

  async goto(path = '') {
    await this.page.goto(`files/${path}`);
    // A first load parses the whole client: slow on a busy machine.
    await expect(this.page.getByRole('heading', { level: 1 })).toBeVisible({ timeout: 30_000 });
  }

  /**
   * The item `name`, scrolled into the DOM first: the listing is virtualized, so in a crowded
   * folder (the worker's shared root) an item below the fold is not rendered until scrolled to.
   */
  async reveal(name: string) {
    const item = this.item(name);
    await this.items().first().waitFor();
    await this.page.evaluate(() => window.scrollTo(0, 0));
    for (let step = 0; step < 500 && (await item.count()) === 0; step++) {
      const moved = await this.page.evaluate(() => {
        const before = window.scrollY;
        window.scrollBy(0, window.innerHeight * 0.7);
        return window.scrollY !== before;
      });
      if (!moved) break;
      // One frame for the virtualizer to render the rows now in view.
      await this.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(null))));
    }
    return item;
  }

  async names(): Promise<string[]> {
    // An item is named by its name element (aria-labelledby).
    return this.items().evaluateAll((els) =>
      els.map((e) => document.getElementById(e.getAttribute('aria-labelledby') ?? '')?.textContent ?? ''),
    );
  }

  /** The name of the option that has keyboard focus, or null. */
  async focusedName(): Promise<string | null> {
    return this.page.evaluate(() => {
      const el = document.activeElement;
      if (el?.getAttribute('role') !== 'option') return null;
      return document.getElementById(el.getAttribute('aria-labelledby') ?? '')?.textContent ?? null;
    });
  }

  async expectSelected(names: string[]) {
    await expect(this.listing().locator('[aria-selected="true"]')).toHaveCount(names.length);
    for (const n of names) await expect(this.item(n)).toHaveAttribute('aria-selected', 'true');
  }

  private dialog(name: string) {
    return this.page.getByRole('dialog', { name });
  }

  async create(kind: 'New folder' | 'New file', name: string) {
    await this.toolbar().getByRole('button', { name: kind }).click();
    const dialog = this.dialog(kind);
    await dialog.getByRole('textbox').fill(name);
    await dialog.getByRole('button', { name: 'Create' }).click();
    await expect(dialog).toBeHidden();
    await expect(this.item(name)).toBeVisible();
  }

  async rename(from: string, to: string) {
    await this.item(from).click();
    await this.page.keyboard.press('F2');
    const dialog = this.dialog('Rename');
    await expect(dialog.getByRole('textbox')).toHaveValue(from);
    await dialog.getByRole('textbox').fill(to);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(this.item(to)).toBeVisible();
  }

  async deleteSelected(expectedText: string | RegExp) {
    await this.page.keyboard.press('Delete');
    const dialog = this.dialog('Delete');
    await expect(dialog).toContainText(expectedText);
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await expect(dialog).toBeHidden();
  }
}
