/**
 * Compress (docs/client.md §2 "Jobs panel"): a selection's context menu (desktop) or selection bar
 * (phone) asks the archive's name and format; the server makes the archive as a job, the jobs
 * panel shows it and the listing shows the archive, which the standard tool opens.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { apiLogin, listByName } from '../support/api';
import { expect, PHONE, shot, test } from '../support/fixtures';
import { Files } from '../pages/Files';
import { signInWithToken } from '../pages/LoginPage';

test.describe.configure({ timeout: 90_000 });

/** Forgets the admin's ended jobs: another spec's finished job would keep the panel over the phone's toolbar. */
async function forgetEndedJobs(url: string): Promise<void> {
  const headers = { 'X-Auth': await apiLogin(url) };
  const jobs = (await (await fetch(`${url}/api/jobs`, { headers })).json()) as { id: string; state: string }[];
  for (const j of jobs) if (j.state !== 'queued' && j.state !== 'running') await fetch(`${url}/api/jobs/${j.id}`, { method: 'DELETE', headers });
}

for (const [label, use] of [['desktop', {}], ['phone', PHONE]] as const) {
  test.describe(`compress (${label})`, () => {
    test.use(use);

    test('a selection becomes a tar.gz in the folder; the jobs panel shows the job', async ({ page, server }) => {
      await listByName(server.url);
      await forgetEndedJobs(server.url);
      const folder = `co-${label}`;
      const dir = path.join(server.root, folder);
      mkdirSync(path.join(dir, 'photos'), { recursive: true });
      writeFileSync(path.join(dir, 'photos', 'a.txt'), 'a');
      writeFileSync(path.join(dir, 'notes.txt'), 'n');
      writeFileSync(path.join(dir, 'left-out.txt'), 'x');
      await signInWithToken(page, server.url);
      const files = new Files(page);
      await files.goto(`${folder}/`);
      if (label === 'phone') {
        // A long press starts selecting; a tap then adds an item.
        await files.item('notes.txt').click();
        await files.run('Select multiple');
        await files.item('photos').click();
        await files.run('Compress');
      } else {
        await files.item('notes.txt').click();
        await files.item('photos').click({ modifiers: ['ControlOrMeta'] });
        await files.item('photos').click({ button: 'right' });
        await page.getByRole('menuitem', { name: 'Compress' }).click();
      }
      const prompt = page.getByRole('dialog', { name: 'Compress' });
      const name = prompt.getByRole('textbox', { name: 'Archive name' });
      await expect(name).toHaveValue(`${folder}.zip`);
      await prompt.getByRole('combobox', { name: 'Archive format' }).selectOption('targz');
      await expect(name).toHaveValue(`${folder}.tar.gz`);
      await name.fill('bundle.tar.gz');
      await shot(page, `compress-prompt-${label}`);
      await prompt.getByRole('button', { name: 'Compress' }).click();
      const panel = page.getByRole('region', { name: /Jobs/ });
      await expect(panel.getByText('Compress to bundle.tar.gz')).toBeVisible();
      await expect(panel.getByText('Done')).toBeVisible({ timeout: 20_000 });
      await expect(files.item('bundle.tar.gz')).toBeVisible();
      await shot(page, `compress-done-${label}`);
      const names = execFileSync('tar', ['tzf', path.join(dir, 'bundle.tar.gz')]).toString().split('\n').filter(Boolean).sort();
      expect(names).toEqual(['notes.txt', 'photos/', 'photos/a.txt']);
    });
  });
}
