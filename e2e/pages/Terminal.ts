import { expect, type Page } from '@playwright/test';
import { Files } from './Files';

/** The shell panel and its toggle in the file browser toolbar. */
export class Terminal {
  constructor(readonly page: Page) {}

  toggle = () => this.page.getByRole('toolbar', { name: 'Actions' }).getByRole('button', { name: 'Shell' });
  panel = () => this.page.getByRole('region', { name: 'Shell' });
  input = () => this.panel().getByRole('textbox', { name: 'Command' });
  log = () => this.panel().getByRole('log', { name: 'Shell output' });
  divider = () => this.panel().getByRole('separator', { name: 'Resize the shell' });
  entries = () => this.log().locator('.terminal__entry');

  async open() {
    // On a narrow screen the toggle may be in the toolbar's More menu (while the shell is closed).
    await new Files(this.page).run('Shell');
    await expect(this.panel()).toBeVisible();
    await expect(this.input()).toBeFocused();
  }

  /** Types a line and presses Enter; waits until the input takes text again. */
  async run(line: string) {
    await this.input().fill(line);
    await this.input().press('Enter');
    await expect(this.input()).toBeEnabled();
    await expect(this.input()).toHaveValue('');
  }

  /** The last entry's text (command, output, note). */
  last = () => this.entries().last();

  async heightPx(): Promise<number> {
    const box = await this.panel().boundingBox();
    return box?.height ?? 0;
  }
}
