/**
 * Upload-only shares (docs/api.md §23): the owner makes one from the share prompt and sees its
 * kind in the share list; an anonymous visitor sees the message and an upload area only, uploads
 * files, sees them listed, continues an upload after a reload, meets the limits and a password.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { createShare, listByName, sharesOf } from '../support/api';
import { expect, PHONE, shot, test } from '../support/fixtures';
import { seed } from '../support/seed';
import { Files } from '../pages/Files';
import { signIn } from '../pages/LoginPage';

const zone = (page: Page) => page.getByText('Drop files or folders here');
const fileInput = (page: Page) => page.locator('input[type="file"]:not([webkitdirectory])');
const yours = (page: Page) => page.getByRole('list', { name: 'Uploaded from this browser' });

async function open(page: Page, hash: string) {
  await page.goto(`share/${hash}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Upload files' })).toBeVisible({ timeout: 30_000 });
}

test.describe('upload-only shares', () => {
  test('the owner makes one from the share prompt; the share list says its kind', async ({ page, server }) => {
    seed(server.root, 'inbox-ui', { 'private.txt': 'do not show' });
    await listByName(server.url);
    await signIn(page);
    const files = new Files(page);
    await files.goto('');
    await (await files.reveal('inbox-ui')).click();
    await files.action('Share').click();
    const dialog = page.getByRole('dialog', { name: 'Share' });
    await dialog.getByLabel("Let people upload files (they won't see the folder's contents)").check();
    await dialog.getByLabel('Message for uploaders').fill('Please send the signed forms.');
    await dialog.getByLabel('Most files').fill('5');
    await shot(page, 'upload-share-create');
    await dialog.getByRole('button', { name: 'Create link' }).click();
    const links = dialog.getByRole('list', { name: 'Share links' });
    await expect(links).toContainText('Upload only');
    const [made] = await sharesOf(server.url, '/inbox-ui/');
    expect(made).toMatchObject({ kind: 'upload', upload: { message: 'Please send the signed forms.', maxFiles: 5, maxFileSize: 0, maxBytes: 0 } });
    await page.goto('settings/shares');
    await expect(page.getByRole('table').getByRole('row').filter({ hasText: '/inbox-ui/' })).toContainText('Upload only');
  });

  test('an anonymous visitor sees the message and an upload area only, uploads, and sees what they sent', async ({ page, server }) => {
    const dir = seed(server.root, 'inbox-anon', { 'secret-report.txt': 'SECRET', 'taken.txt': 'old' });
    const { hash } = await createShare(server.url, '/inbox-anon/', { kind: 'upload', message: 'Hello! Drop your <b>photos</b> here.' });
    await open(page, hash);
    await expect(page.getByText('Hello! Drop your <b>photos</b> here.')).toBeVisible();
    await expect(page.getByText('secret-report.txt')).toHaveCount(0);
    await expect(page.getByRole('listbox')).toHaveCount(0);
    await expect(page.getByRole('link', { name: /Download/ })).toHaveCount(0);
    await expect(zone(page)).toBeVisible();
    await expect(page.getByText('Choose a folder')).toBeVisible();
    await shot(page, 'upload-share-visitor');

    await fileInput(page).setInputFiles([
      { name: 'one.txt', mimeType: 'text/plain', buffer: Buffer.from('first file') },
      { name: 'taken.txt', mimeType: 'text/plain', buffer: Buffer.from('new one') },
    ]);
    await expect(yours(page).getByRole('listitem')).toHaveCount(2, { timeout: 30_000 });
    await expect(yours(page)).toContainText('one.txt');
    await expect(yours(page)).toContainText('taken (1).txt');
    expect(readFileSync(path.join(dir, 'one.txt'), 'utf8')).toBe('first file');
    expect(readFileSync(path.join(dir, 'taken.txt'), 'utf8')).toBe('old');
    expect(readFileSync(path.join(dir, 'taken (1).txt'), 'utf8')).toBe('new one');
    await shot(page, 'upload-share-done');

    // Remembered in this browser only.
    await page.reload();
    await expect(yours(page).getByRole('listitem')).toHaveCount(2, { timeout: 30_000 });
  });

  test('a resumed upload after a reload continues where it stopped', async ({ page, server }) => {
    const dir = seed(server.root, 'inbox-resume', {});
    const { hash } = await createShare(server.url, '/inbox-resume/', { kind: 'upload' });
    const data = Buffer.alloc(3 * 1024 * 1024, 'r');
    // A file on disk keeps its modification time across picks, as a real one does: tus-js-client
    // finds the unfinished upload by name, size, type and that time.
    const file = path.join(seed(server.root, 'resume-source', { 'big.bin': data }), 'big.bin');
    // The first chunk goes through, then the page goes away before the rest.
    await page.route('**/api/public/tus/**', async (route) => {
      const req = route.request();
      if (req.method() === 'PATCH' && req.headers()['upload-offset'] !== '0') return route.abort();
      return route.continue();
    });
    // Chunks of 1 MiB and no retries for this page (the server's tus settings stay as they are).
    await page.addInitScript(() => {
      let kept: unknown;
      Object.defineProperty(window, 'FileBrowser', {
        configurable: true,
        set(v: { TusSettings: { chunkSize: number; retryCount: number } }) {
          v.TusSettings = { chunkSize: 1024 * 1024, retryCount: 0 };
          kept = v;
        },
        get: () => kept,
      });
    });
    await open(page, hash);
    const offsets: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'PATCH') offsets.push(r.headers()['upload-offset'] ?? '');
    });
    await fileInput(page).setInputFiles(file);
    await expect(page.getByRole('alert')).toContainText('Upload failed.', { timeout: 30_000 });
    expect(existsSync(path.join(dir, 'big.bin'))).toBe(false);

    await page.unroute('**/api/public/tus/**');
    await page.reload();
    await expect(zone(page)).toBeVisible({ timeout: 30_000 });
    offsets.length = 0;
    await fileInput(page).setInputFiles(file);
    await expect(yours(page)).toContainText('big.bin', { timeout: 30_000 });
    // Continued at the first chunk's end: no PATCH started from 0 again.
    expect(offsets[0]).toBe(String(1024 * 1024));
    expect(readFileSync(path.join(dir, 'big.bin')).equals(data)).toBe(true);
  });

  test('limits reached: a file too large is refused, and a full link says so', async ({ page, server }) => {
    const dir = seed(server.root, 'inbox-limits', {});
    const { hash } = await createShare(server.url, '/inbox-limits/', { kind: 'upload', maxFileSize: 10, maxFiles: 1 });
    await open(page, hash);
    await expect(page.getByText(/Up to \u206810\sB\u2069 per file/)).toBeVisible();
    await fileInput(page).setInputFiles({ name: 'big.txt', mimeType: 'text/plain', buffer: Buffer.from('more than ten bytes') });
    await expect(page.getByRole('alert')).toHaveText('This file is larger than the link accepts.', { timeout: 30_000 });
    expect(existsSync(path.join(dir, 'big.txt'))).toBe(false);
    await fileInput(page).setInputFiles({ name: 'ok.txt', mimeType: 'text/plain', buffer: Buffer.from('small') });
    await expect(page.getByRole('status')).toHaveText('This link accepts no more files.', { timeout: 30_000 });
    await expect(zone(page)).toHaveCount(0);
    await shot(page, 'upload-share-full');
  });
});

test.describe('a protected upload-only share', () => {
  test('asks for the password, then uploads with the token', async ({ page, server }) => {
    const dir = seed(server.root, 'inbox-pw', {});
    const { hash } = await createShare(server.url, '/inbox-pw/', { kind: 'upload', password: 'letmein' });
    await page.goto(`share/${hash}`);
    const pw = page.getByLabel('Password', { exact: true });
    await pw.fill('wrong');
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await expect(page.getByText('Wrong password.')).toBeVisible({ timeout: 30_000 });
    await pw.fill('letmein');
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await expect(zone(page)).toBeVisible({ timeout: 30_000 });
    await fileInput(page).setInputFiles({ name: 'signed.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4') });
    await expect(yours(page)).toContainText('signed.pdf', { timeout: 30_000 });
    expect(readFileSync(path.join(dir, 'signed.pdf'), 'utf8')).toBe('%PDF-1.4');
  });
});

test.describe('upload-only share on a phone', () => {
  test.use(PHONE);
  test('fits 375 px: message, pickers and the sent list', async ({ page, server }) => {
    seed(server.root, 'inbox-phone', {});
    const { hash } = await createShare(server.url, '/inbox-phone/', {
      kind: 'upload',
      message: 'Wedding photos, please! Any size, as many as you like. Thank you for coming.',
      maxFileSize: 50 * 1024 * 1024,
    });
    await open(page, hash);
    await fileInput(page).setInputFiles({ name: 'a-rather-long-file-name-from-a-phone-camera-20240612_183455.jpg', mimeType: 'image/jpeg', buffer: Buffer.from('jpeg') });
    await expect(yours(page).getByRole('listitem')).toHaveCount(1, { timeout: 30_000 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await shot(page, 'upload-share-phone');
  });
});
