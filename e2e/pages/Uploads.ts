import { expect, type Page } from '@playwright/test';
import { Files } from './Files';

export interface UploadFile {
  name: string;
  mimeType: string;
  buffer: Buffer;
}

/** Uploading in the file browser: the Upload action and its prompts, drops from outside, the panel. */
export class Uploads {
  constructor(readonly page: Page) {}

  button = () =>
    this.page.getByRole('toolbar', { name: 'Actions' }).getByRole('button', { name: 'Upload', exact: true });
  prompt = () => this.page.getByRole('dialog', { name: 'Upload' });
  conflict = () => this.page.getByRole('dialog', { name: 'Some items already exist' });
  panel = () => this.page.getByRole('region', { name: /^(Uploading|Some uploads failed)/ });
  topBar = () => this.page.locator('.upload-progress');

  /** Upload → Files → the file chooser gets `files` (buffers or paths). */
  async chooseFiles(files: (UploadFile | string)[]) {
    // With items selected, Upload may be in the toolbar's More menu.
    await new Files(this.page).run('Upload');
    const chooser = this.page.waitForEvent('filechooser');
    await this.prompt().getByRole('button', { name: 'Files' }).click();
    await (await chooser).setFiles(files as UploadFile[]);
    await expect(this.prompt()).toBeHidden();
  }

  /** Upload → Folder → the chooser gets a folder on disk (its files keep their relative paths). */
  async chooseFolder(dir: string) {
    await new Files(this.page).run('Upload');
    const chooser = this.page.waitForEvent('filechooser');
    await this.prompt().getByRole('button', { name: 'Folder' }).click();
    await (await chooser).setFiles(dir);
    await expect(this.prompt()).toBeHidden();
  }

  /**
   * Drags files from "outside" over `target` and drops them: the DataTransfer is built in the page,
   * as the browser builds one for files dragged in from the desktop. `hold` stops after dragover.
   */
  async drop(target: ReturnType<Page['locator']>, files: { name: string; text: string }[], hold = false) {
    const dataTransfer = await this.page.evaluateHandle((list) => {
      const dt = new DataTransfer();
      for (const f of list) dt.items.add(new File([f.text], f.name, { type: 'text/plain' }));
      return dt;
    }, files);
    await target.dispatchEvent('dragenter', { dataTransfer });
    await target.dispatchEvent('dragover', { dataTransfer });
    if (hold) return dataTransfer;
    await target.dispatchEvent('drop', { dataTransfer });
    return dataTransfer;
  }
}
