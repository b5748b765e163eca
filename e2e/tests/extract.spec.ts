/**
 * Extract here (docs/client.md §2 "Jobs panel"): an archive's context menu starts an extraction on
 * the server; the jobs panel shows it and links to the folder; the listing shows what came out.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { listByName } from '../support/api';
import { expect, PHONE, shot, test } from '../support/fixtures';
import { Files } from '../pages/Files';
import { signInWithToken } from '../pages/LoginPage';

test.describe.configure({ timeout: 90_000 });

/** `<root>/<folder>/photos.zip` holding photos/a.txt and photos/b.txt. */
function archive(root: string, folder: string): void {
  const dir = path.join(root, folder);
  mkdirSync(path.join(dir, 'src', 'photos'), { recursive: true });
  writeFileSync(path.join(dir, 'src', 'photos', 'a.txt'), 'a');
  writeFileSync(path.join(dir, 'src', 'photos', 'b.txt'), 'b');
  execFileSync('zip', ['-qr', path.join(dir, 'photos.zip'), 'photos'], { cwd: path.join(dir, 'src') });
}

for (const [label, use] of [['desktop', {}], ['phone', PHONE]] as const) {
  test.describe(`extract here (${label})`, () => {
    test.use(use);

    test('the context menu extracts an archive; the jobs panel shows the job and opens the result', async ({ page, server }) => {
      await listByName(server.url);
      const folder = `ex-${label}`;
      archive(server.root, folder);
      await signInWithToken(page, server.url);
      const files = new Files(page);
      await files.goto(`${folder}/`);
      if (label === 'phone') {
        // A tap selects; the action is in the selection bar (or its More menu).
        await files.item('photos.zip').click();
        await files.run('Extract here');
      } else {
        await files.item('photos.zip').click({ button: 'right' });
        await page.getByRole('menuitem', { name: 'Extract here' }).click();
      }
      const panel = page.getByRole('region', { name: /Jobs/ });
      await expect(panel).toBeVisible();
      await expect(panel.getByText('Extract photos.zip')).toBeVisible();
      // This job's row: the panel may still list an ended job of an earlier spec (same server).
      const row = panel.getByRole('listitem').filter({ hasText: 'Extract photos.zip' });
      await expect(row.getByText('Done')).toBeVisible({ timeout: 20_000 });
      await expect(files.item('photos')).toBeVisible();
      await shot(page, `extract-done-${label}`);
      await row.getByRole('link', { name: 'Open' }).click();
      await expect(page).toHaveURL(new RegExp(`/files/${folder}/$`));
      await files.item('photos').dblclick();
      await expect(files.item('a.txt')).toBeVisible();
      await expect(files.item('b.txt')).toBeVisible();
      await panel.getByRole('button', { name: 'Close' }).click();
      await expect(panel).toHaveCount(0);
    });
  });
}
