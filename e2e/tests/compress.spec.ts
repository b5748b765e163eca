/**
 * Compress (docs/client.md §2 "Jobs panel"): a selection's context menu (desktop) or selection bar
 * (phone) asks the archive's name and format; the server makes the archive as a job, the jobs
 * panel shows it and the listing shows the archive, which the standard tool opens.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
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

/** Starts a compress job through the API; answers its id. */
async function startCompress(url: string, folder: string, body: Record<string, unknown>): Promise<string> {
  const headers = { 'X-Auth': await apiLogin(url), 'Content-Type': 'application/json' };
  const res = await fetch(`${url}/api/compress/${folder}`, { method: 'POST', headers, body: JSON.stringify(body) });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

test.describe('compress progress', () => {
  test('a running compress job shows how far it is ("x of y"), not "Starting…", and can be cancelled', async ({ page, server }) => {
    await forgetEndedJobs(server.url);
    const folder = 'co-progress';
    const dir = path.join(server.root, folder);
    mkdirSync(path.join(dir, 'out'), { recursive: true });
    // Random bytes through bzip2: slow enough to be seen running for a few seconds.
    writeFileSync(path.join(dir, 'noise.bin'), randomBytes(24 * 1024 * 1024));
    await startCompress(server.url, folder, { files: ['noise.bin'], destination: `/${folder}/out`, name: 'noise.tar.bz2', algo: 'tarbz2' });
    await signInWithToken(page, server.url);
    const files = new Files(page);
    await files.goto(`${folder}/`);
    const row = page.getByRole('region', { name: /Jobs/ }).getByRole('listitem').filter({ hasText: 'Compress to noise.tar.bz2' });
    // "4.8 MiB of 24 MiB" (sizes are wrapped in isolation marks).
    await expect(row.getByText(/\d[\d.,]* ?[KMG]?i?B\u2069? of \u2068?24 MiB/)).toBeVisible({ timeout: 20_000 });
    await expect(row.getByText('Starting…')).toHaveCount(0);
    await expect(row.getByRole('progressbar')).toHaveAttribute('aria-valuenow', /^\d+$/);
    await shot(page, 'compress-progress');
    await row.getByRole('button', { name: /Cancel/ }).click();
    await expect(row.getByText('Cancelled')).toBeVisible({ timeout: 20_000 });
  });
});

test.describe('jobs panel on a phone', () => {
  test.use(PHONE);

  test("an ended job's panel stands above the selection bar, whose actions stay reachable", async ({ page, server }) => {
    await listByName(server.url);
    await forgetEndedJobs(server.url);
    const folder = 'co-phone-panel';
    const dir = path.join(server.root, folder);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'notes.txt'), 'n');
    writeFileSync(path.join(dir, 'more.txt'), 'm');
    await startCompress(server.url, folder, { files: ['notes.txt'], destination: `/${folder}`, name: 'done.zip' });
    await signInWithToken(page, server.url);
    const files = new Files(page);
    await files.goto(`${folder}/`);
    const panel = page.getByRole('region', { name: /Jobs/ });
    await expect(panel.getByText('Done', { exact: true })).toBeVisible({ timeout: 20_000 });
    await files.item('more.txt').click();
    const bar = page.locator('.selection-bar');
    await expect(bar).toBeVisible();
    // Before the fix (the panel in its corner) for the record: it covered the bar's actions.
    const before = await page.addStyleTag({ content: '.corner-panels { inset-block-end: 1em !important; }' });
    await shot(page, 'jobs-panel-over-selection-before');
    await before.evaluate((el) => (el as HTMLStyleElement).remove());
    const panelBox = (await panel.boundingBox())!;
    const barBox = (await bar.boundingBox())!;
    expect(panelBox.y + panelBox.height).toBeLessThanOrEqual(barBox.y);
    await shot(page, 'jobs-panel-over-selection-after');
    // Every action of the bar can be pressed (nothing lies over it).
    for (const button of await bar.getByRole('button').all()) {
      const box = (await button.boundingBox())!;
      const hit = await page.evaluate(([x, y]) => document.elementFromPoint(x!, y!)?.closest('.selection-bar') !== null, [box.x + box.width / 2, box.y + box.height / 2]);
      expect(hit).toBe(true);
    }
  });
});
