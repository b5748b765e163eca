/**
 * Looking inside an archive (docs/client.md §2 "Preview"): the preview of a zip lists its entries
 * (folders collapsed until opened) without extracting it, a hostile-named entry shows as text, and
 * one entry downloads on its own.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { listByName } from '../support/api';
import { expect, PHONE, shot, test } from '../support/fixtures';
import { Files } from '../pages/Files';
import { signInWithToken } from '../pages/LoginPage';

test.describe.configure({ timeout: 90_000 });

const HOSTILE = '<img src=x onerror=alert(1)>.txt';

for (const [label, use] of [['desktop', {}], ['phone', PHONE]] as const) {
  test.describe(`archive preview (${label})`, () => {
    test.use(use);

    test('lists a zip, opens a folder, downloads one entry; nothing is extracted', async ({ page, server }) => {
      await listByName(server.url);
      const folder = `av-${label}`;
      const dir = path.join(server.root, folder);
      mkdirSync(path.join(dir, 'src', 'photos'), { recursive: true });
      writeFileSync(path.join(dir, 'src', 'photos', 'a.txt'), 'alpha in the zip');
      writeFileSync(path.join(dir, 'src', 'readme.md'), 'r');
      writeFileSync(path.join(dir, 'src', HOSTILE), 'h');
      execFileSync('zip', ['-qr', path.join(dir, 'photos.zip'), 'photos', 'readme.md', HOSTILE], { cwd: path.join(dir, 'src') });
      await signInWithToken(page, server.url);
      const files = new Files(page);
      await files.goto(`${folder}/photos.zip`);
      const view = page.getByRole('region', { name: 'Archive contents' });
      await expect(view.getByText('Entries: 4')).toBeVisible();
      // A name made of markup is text: no image element, no script ran (the fixture fails on errors).
      await expect(view.getByText(HOSTILE)).toBeVisible();
      await expect(view.locator('img')).toHaveCount(0);
      await expect(view.getByText('a.txt')).toHaveCount(0);
      await view.getByRole('button', { name: 'photos' }).click();
      await expect(view.getByText('a.txt')).toBeVisible();
      await shot(page, `archive-view-${label}`);
      const downloading = page.waitForEvent('download');
      await view.getByRole('button', { name: 'Download a.txt' }).click();
      const download = await downloading;
      expect(download.suggestedFilename()).toBe('a.txt');
      expect(readFileSync(await download.path(), 'utf8')).toBe('alpha in the zip');
      expect(readdirSync(dir).sort()).toEqual(['photos.zip', 'src']);
    });
  });
}
