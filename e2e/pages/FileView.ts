import { rmSync } from 'node:fs';
import { expect, type Page } from '@playwright/test';
import { menuEntry } from './Menu';

/** An open file: the preview or the editor, their toolbar and the discard prompt. */
export class FileView {
  constructor(readonly page: Page) {}

  toolbar = () => this.page.getByRole('toolbar', { name: 'File actions' });
  button = (name: string) => this.toolbar().getByRole('button', { name, exact: true });
  /** The "More" menu button (what does not fit the toolbar's line goes into its menu). */
  more = () => this.toolbar().getByRole('button', { name: 'More actions' });
  menu = () => this.page.getByRole('menu', { name: 'More actions' });
  title = () => this.page.getByRole('heading', { level: 1 });
  breadcrumbs = () => this.page.getByRole('navigation', { name: 'Location' });
  position = () => this.toolbar().getByText(/^\d+ of \d+$/);
  /** The editor's text area (CodeMirror's content element). */
  editor = (name: string) => this.page.getByRole('textbox', { name: `Contents of ${name}` });
  /** The card of a file without an in-page preview, named by the file. */
  card = (name: string) => this.page.getByRole('region', { name });
  discardPrompt = () => this.page.getByRole('dialog', { name: 'Discard changes?' });

  /** Runs a toolbar action: its button when it is on the line, else its entry in the More menu. */
  async run(name: string) {
    const button = this.button(name);
    if (await button.isVisible()) {
      await button.click();
      return;
    }
    await this.more().click();
    await menuEntry(this.menu(), name).click();
  }

  async expectOpen(name: string) {
    await expect(this.title()).toHaveText(name);
    await expect(this.toolbar()).toBeVisible();
  }

  /**
   * A save the server refuses: the open file (`name`, at `onDisk`) is edited, removed behind the
   * editor's back, then saved (PUT answers 404). Returns the error toast.
   */
  async failSave(name: string, onDisk: string) {
    await this.editor(name).click();
    await this.page.keyboard.type('!');
    rmSync(onDisk);
    await this.page.keyboard.press('ControlOrMeta+S');
    const toast = this.page.getByRole('alert').filter({ hasText: '404' });
    await expect(toast).toBeVisible();
    return toast;
  }

  /** Replaces the editor's text by typing (what a person does; Ctrl+A selects inside the editor). */
  async typeText(name: string, text: string) {
    const box = this.editor(name);
    await box.click();
    await this.page.keyboard.press('ControlOrMeta+A');
    await this.page.keyboard.type(text);
  }
}
