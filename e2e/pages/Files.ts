import { expect, type Page } from '@playwright/test';
import { FileView } from './FileView';
import { menuEntry } from './Menu';

/**
 * The toolbar at 1280 px in English with one file selected, for a user with every permission but
 * execute: the selection's actions with their names, two icons and the More button on the line
 * (then the selection count's Clear selection), and what the More menu holds in its place.
 */
const NAMED = ['Share', 'Rename', 'Copy', 'Move', 'Delete', 'Download1', 'Info', 'Select multiple'];
export const WITH_SELECTION = {
  line: [...NAMED, 'More actions', 'Clear selection'],
  offered: [...NAMED, 'New folder', 'New file', 'Compress', 'Switch view List', 'Upload', 'Clear selection'],
};

/** The file browser: breadcrumbs, toolbar, listing, selection bar and its prompts. */
export class Files {
  /** `labels`: the toolbar's and the More button's names, for a page in another language. */
  constructor(
    readonly page: Page,
    readonly labels = { toolbar: 'Actions', more: 'More actions' },
  ) {}

  listing = () => this.page.getByRole('listbox', { name: 'Items' });
  item = (name: string) => this.listing().getByRole('option', { name, exact: true });
  items = () => this.listing().getByRole('option');
  breadcrumbs = () => this.page.getByRole('navigation', { name: 'Location' });
  toolbar = () => this.page.getByRole('toolbar', { name: this.labels.toolbar });
  /** The names of the toolbar's visible buttons, in order (the selection bar's included). */
  toolbarButtons = () =>
    this.toolbar()
      .getByRole('button')
      .evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? e.textContent ?? ''));
  action = (name: string) => this.page.getByRole('button', { name, exact: true });
  /** The toolbar's "More" menu button (actions that do not fit the line go into its menu). */
  more = () => this.toolbar().getByRole('button', { name: this.labels.more });
  selectionBar = () => this.page.getByRole('region', { name: /^Selected: / });
  menu = () => this.page.getByRole('menu');
  menuItems = () => this.menu().getByRole('menuitem');
  crumb = (name: string) => this.breadcrumbs().getByRole('link', { name, exact: true });
  sortButton = (name: 'Name' | 'Size' | 'Last modified') =>
    this.listing()
      .locator('xpath=..')
      .getByRole('button', { name: new RegExp(`^${name}`) });

  /**
   * Runs a toolbar action by name: its button when it is on the line, else its entry in the More
   * menu (the toolbar moves what does not fit into that menu; where an action is depends on the
   * window's width, the language and the selection).
   */
  async run(name: string) {
    const button = this.toolbar().getByRole('button', { name, exact: true });
    // Wait until the toolbar has laid out (the button or the More menu is there): right after a
    // load, isVisible() answers at once and would take a toolbar not yet drawn for "in the menu".
    await expect(button.or(this.more()).first()).toBeVisible();
    if (await button.isVisible()) {
      await button.click();
      return;
    }
    await this.more().click();
    await menuEntry(this.menu(), name).click();
  }

  /**
   * Everything the toolbar offers, by name: the buttons on the line (the selection bar's too) and,
   * in place of the More button, its menu's entries (the menu is opened and closed to read them).
   */
  async offered(): Promise<string[]> {
    const names = await this.toolbarButtons();
    const at = names.indexOf(this.labels.more);
    if (at < 0) return names;
    await this.more().click();
    const entries = await this.menu()
      .locator('[role="menuitem"], [role="menuitemcheckbox"]')
      .evaluateAll((els) => els.map((e) => e.querySelector('.menu__label')?.textContent ?? ''));
    await this.page.keyboard.press('Escape');
    await expect(this.menu()).toHaveCount(0);
    return [...names.slice(0, at), ...entries, ...names.slice(at + 1)];
  }

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
    await this.run(kind);
    const dialog = this.dialog(kind);
    await dialog.getByRole('textbox').fill(name);
    await dialog.getByRole('button', { name: 'Create' }).click();
    await expect(dialog).toBeHidden();
    if (kind === 'New file') {
      // A new file opens in the editor (docs/client.md §2); closing it comes back to the folder.
      const view = new FileView(this.page);
      await view.expectOpen(name);
      await view.button('Close').click();
    }
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

  /** Delete key, then the prompt's answer: "Move to trash" with the trash on (the default), else "Delete forever". */
  async deleteSelected(expectedText: string | RegExp, action: 'Move to trash' | 'Delete forever' = 'Move to trash') {
    await this.page.keyboard.press('Delete');
    const dialog = this.dialog(action);
    await expect(dialog).toContainText(expectedText);
    await dialog.getByRole('button', { name: action }).click();
    await expect(dialog).toBeHidden();
  }
}
