import { expect, type Page } from '@playwright/test';

/** An open file: the preview or the editor, their toolbar and the discard prompt. */
export class FileView {
  constructor(readonly page: Page) {}

  toolbar = () => this.page.getByRole('toolbar', { name: 'File actions' });
  button = (name: string) => this.toolbar().getByRole('button', { name, exact: true });
  title = () => this.page.getByRole('heading', { level: 1 });
  breadcrumbs = () => this.page.getByRole('navigation', { name: 'Location' });
  position = () => this.toolbar().getByText(/^\d+ of \d+$/);
  /** The editor's text area (CodeMirror's content element). */
  editor = (name: string) => this.page.getByRole('textbox', { name: `Contents of ${name}` });
  /** The card of a file without an in-page preview, named by the file. */
  card = (name: string) => this.page.getByRole('region', { name });
  discardPrompt = () => this.page.getByRole('dialog', { name: 'Discard changes?' });

  async expectOpen(name: string) {
    await expect(this.title()).toHaveText(name);
    await expect(this.toolbar()).toBeVisible();
  }

  /** Replaces the editor's text by typing (what a person does; Ctrl+A selects inside the editor). */
  async typeText(name: string, text: string) {
    const box = this.editor(name);
    await box.click();
    await this.page.keyboard.press('ControlOrMeta+A');
    await this.page.keyboard.type(text);
  }
}
