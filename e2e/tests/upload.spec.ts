/**
 * Uploads from the file browser (docs/client.md §2 "File browser", "Prompts", "Upload progress panel", §4):
 * the Upload prompt for files and folders, drops from outside, the replace prompt, abort, resume
 * after a reload, errors per file, and no upload without the create permission. Every result is
 * checked on the server's root on disk.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page, Request } from '@playwright/test';
import { apiLogin, createUser, listByName, updateSettings } from '../support/api';
import { seriousViolations } from '../support/axe';
import { expect, PHONE, shot, test } from '../support/fixtures';
import { startServer, type RunningServer } from '../support/server';
import { Files } from '../pages/Files';
import { LoginPage, signIn } from '../pages/LoginPage';
import { Uploads } from '../pages/Uploads';

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const onDisk = (root: string, p: string) => readFileSync(path.join(root, p));
const DEFAULT_TUS = { chunkSize: 10 * 1024 * 1024, retryCount: 5 };

async function setTus(url: string, tus: { chunkSize: number; retryCount: number }) {
  await updateSettings(url, (s) => {
    s.tus = tus;
  });
}

/** Signed in (as the admin, or as `user`), in `folder` of a listing sorted by name. */
async function openFolder(page: Page, url: string, folder: string, user?: [string, string]) {
  await listByName(url);
  await signIn(page, ...(user ?? []));
  const files = new Files(page);
  await files.goto(folder);
  return files;
}

/** The server's view of an unfinished tus upload: status and offset (HEAD /api/tus/…). */
async function tusHead(url: string, p: string): Promise<{ status: number; offset: number }> {
  const token = await apiLogin(url);
  const res = await fetch(`${url}/api/tus${p}`, { method: 'HEAD', headers: { 'X-Auth': token } });
  return { status: res.status, offset: Number(res.headers.get('upload-offset') ?? -1) };
}

/** Holds every tus PATCH for `ms` so an upload takes long enough to act on mid-way. */
async function slowPatches(page: Page, ms: number) {
  await page.route('**/api/tus/**', async (route) => {
    if (route.request().method() === 'PATCH') await new Promise((r) => setTimeout(r, ms));
    await route.continue().catch(() => undefined); // the page may have aborted or reloaded meanwhile
  });
}

test.describe('uploading', () => {
  test.afterEach(async ({ server }) => {
    await setTus(server.url, DEFAULT_TUS);
  });

  test('files from the Upload prompt go over tus, arrive intact and are selected; storage refreshes', async ({
    page,
    server,
  }) => {
    mkdirSync(path.join(server.root, 'up-files'), { recursive: true });
    const files = await openFolder(page, server.url, 'up-files/');
    const uploads = new Uploads(page);
    const big = randomBytes(300 * 1024);
    const posts: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().includes('/api/tus/')) posts.push(new URL(r.url()).pathname);
    });
    const usage = page.waitForRequest((r) => r.url().includes('/api/usage/up-files/'));
    await uploads.button().click();
    await expect(uploads.prompt()).toBeVisible();
    await shot(page, 'upload-prompt');
    await page.keyboard.press('Escape');
    await uploads.chooseFiles([
      { name: 'a b#.txt', mimeType: 'text/plain', buffer: Buffer.from('hello upload') },
      { name: 'big.bin', mimeType: 'application/octet-stream', buffer: big },
    ]);
    await expect(page.getByText('Upload complete.')).toBeVisible();
    await files.expectSelected(['a b#.txt', 'big.bin']);
    await usage;
    expect(onDisk(server.root, 'up-files/a b#.txt').toString()).toBe('hello upload');
    expect(sha256(onDisk(server.root, 'up-files/big.bin'))).toBe(sha256(big));
    expect(posts.sort()).toEqual(['/api/tus/up-files/a%20b%23.txt', '/api/tus/up-files/big.bin']);
    await expect(uploads.panel()).toHaveCount(0);
  });

  test('a folder keeps its tree; with chunk size 0 each file goes in one plain POST', async ({
    page,
    server,
  }) => {
    await setTus(server.url, { chunkSize: 0, retryCount: 1 });
    mkdirSync(path.join(server.root, 'up-folder'), { recursive: true });
    const local = mkdtempSync(path.join(tmpdir(), 'coffer-upload-'));
    const tree = path.join(local, 'album');
    mkdirSync(path.join(tree, '2024', 'summer'), { recursive: true });
    writeFileSync(path.join(tree, 'cover.txt'), 'cover');
    writeFileSync(path.join(tree, '2024', 'summer', 'beach.txt'), 'sand');
    writeFileSync(path.join(tree, '2024', 'notes.txt'), 'notes');
    try {
      const files = await openFolder(page, server.url, 'up-folder/');
      const uploads = new Uploads(page);
      const plain: string[] = [];
      page.on('request', (r) => {
        if (r.method() === 'POST' && r.url().includes('/api/resources/'))
          plain.push(new URL(r.url()).pathname);
        if (r.url().includes('/api/tus/')) plain.push('tus!');
      });
      await uploads.chooseFolder(tree);
      await expect(page.getByText('Upload complete.')).toBeVisible();
      await files.expectSelected(['album']);
      expect(onDisk(server.root, 'up-folder/album/cover.txt').toString()).toBe('cover');
      expect(onDisk(server.root, 'up-folder/album/2024/summer/beach.txt').toString()).toBe('sand');
      expect(onDisk(server.root, 'up-folder/album/2024/notes.txt').toString()).toBe('notes');
      expect(plain.sort()).toEqual([
        '/api/resources/up-folder/album/2024/notes.txt',
        '/api/resources/up-folder/album/2024/summer/beach.txt',
        '/api/resources/up-folder/album/cover.txt',
      ]);
    } finally {
      rmSync(local, { recursive: true, force: true });
    }
  });

  test('files dropped from outside upload into the folder, or into the folder item they land on', async ({
    page,
    server,
  }) => {
    mkdirSync(path.join(server.root, 'up-drop', 'inbox'), { recursive: true });
    writeFileSync(path.join(server.root, 'up-drop', 'old.txt'), 'old');
    const longAgo = new Date('2020-01-01T12:00:00Z');
    utimesSync(path.join(server.root, 'up-drop', 'inbox'), longAgo, longAgo);
    const files = await openFolder(page, server.url, 'up-drop/');
    const uploads = new Uploads(page);
    const dragged = await uploads.drop(files.listing(), [{ name: 'dropped.txt', text: 'x' }], true);
    await expect(page.getByRole('status').filter({ hasText: 'Drop to upload to “up-drop”' })).toBeVisible();
    await expect(page.locator('.upload-zone--over')).toHaveCount(1);
    await shot(page, 'upload-drop');
    await files.listing().dispatchEvent('dragleave', { dataTransfer: dragged });
    await expect(page.locator('.upload-zone--over')).toHaveCount(0);

    await uploads.drop(files.listing(), [
      { name: 'dropped.txt', text: 'from the desktop' },
      { name: 'second.txt', text: '2' },
    ]);
    await expect(page.getByText('Upload complete.')).toBeVisible();
    await files.expectSelected(['dropped.txt', 'second.txt']);
    expect(onDisk(server.root, 'up-drop/dropped.txt').toString()).toBe('from the desktop');

    const folder = files.item('inbox');
    const dataTransfer = await uploads.drop(folder, [{ name: 'into.txt', text: 'inside' }], true);
    await expect(folder).toHaveAttribute('data-drop-target', '');
    await expect(page.getByText('Drop to upload to “inbox”')).toBeVisible();
    await folder.dispatchEvent('drop', { dataTransfer });
    await expect.poll(() => existsSync(path.join(server.root, 'up-drop/inbox/into.txt'))).toBe(true);
    expect(onDisk(server.root, 'up-drop/inbox/into.txt').toString()).toBe('inside');
    await expect(folder).not.toHaveAttribute('data-drop-target');
    // The listing on screen shows the folder as changed just now, not as it was before the drop.
    await expect(folder).toHaveAccessibleDescription(/^Folder, (now|\d+ seconds? ago|1 minute ago)$/);
  });

  test('a server without the space answers 507: the file fails at once with its own reason, not retried', async ({
    page,
    server,
  }) => {
    mkdirSync(path.join(server.root, 'up-full'), { recursive: true });
    const files = await openFolder(page, server.url, 'up-full/');
    const uploads = new Uploads(page);
    // The real server checks the declared length against the free space of its disk: declaring a
    // petabyte makes it answer 507 Insufficient Storage as it would with a full disk.
    const creations: string[] = [];
    await page.route('**/api/tus/**', async (route) => {
      const request = route.request();
      if (request.method() !== 'POST') return route.continue();
      creations.push(request.url());
      await route.continue({ headers: { ...request.headers(), 'upload-length': String(10 ** 15) } });
    });
    await uploads.chooseFiles([
      { name: 'huge.bin', mimeType: 'application/octet-stream', buffer: randomBytes(1024) },
    ]);
    const panel = page.getByRole('region', { name: 'Some uploads failed' });
    await expect(panel.getByRole('alert')).toHaveText('Not enough space on the server (507)');
    await expect(panel).toContainText('huge.bin');
    await shot(page, 'upload-disk-full');
    // retryCount is 5 with a first retry after 0 ms: a retried 507 would have been sent again by now.
    await page.waitForTimeout(1500);
    expect(creations).toHaveLength(1);
    await expect(files.item('huge.bin')).toHaveCount(0);
    expect(existsSync(path.join(server.root, 'up-full', 'huge.bin'))).toBe(false);
  });

  test('names that exist ask first: skip, keep both or replace', async ({ page, server }) => {
    mkdirSync(path.join(server.root, 'up-conflict'), { recursive: true });
    writeFileSync(path.join(server.root, 'up-conflict', 'same.txt'), 'old');
    const files = await openFolder(page, server.url, 'up-conflict/');
    const uploads = new Uploads(page);
    const file = (text: string) => [{ name: 'same.txt', mimeType: 'text/plain', buffer: Buffer.from(text) }];

    await uploads.chooseFiles(file('skipped'));
    await expect(uploads.conflict()).toContainText('same.txt');
    await shot(page, 'upload-conflict');
    await uploads.conflict().getByRole('button', { name: 'Skip them' }).click();
    await expect(uploads.conflict()).toBeHidden();
    expect(onDisk(server.root, 'up-conflict/same.txt').toString()).toBe('old');

    await uploads.chooseFiles(file('both'));
    await uploads.conflict().getByRole('button', { name: 'Keep both' }).click();
    await expect(files.item('same(1).txt')).toBeVisible();
    await files.expectSelected(['same(1).txt']);
    expect(onDisk(server.root, 'up-conflict/same(1).txt').toString()).toBe('both');

    await uploads.chooseFiles(file('replaced'));
    await uploads.conflict().getByRole('button', { name: 'Replace' }).click();
    await expect(page.getByText('Upload complete.').last()).toBeVisible();
    await expect.poll(() => onDisk(server.root, 'up-conflict/same.txt').toString()).toBe('replaced');
  });

  test('abort asks, stops the upload, removes it from the server and reloads the listing', async ({
    page,
    server,
  }) => {
    test.slow(); // megabytes sent slowly on purpose
    await setTus(server.url, { chunkSize: 64 * 1024, retryCount: 0 });
    mkdirSync(path.join(server.root, 'up-abort'), { recursive: true });
    const files = await openFolder(page, server.url, 'up-abort/');
    const uploads = new Uploads(page);
    await slowPatches(page, 250);
    const deleted = page.waitForRequest(
      (r) => r.method() === 'DELETE' && r.url().includes('/api/tus/up-abort/big.bin'),
    );
    await uploads.chooseFiles([
      { name: 'big.bin', mimeType: 'application/octet-stream', buffer: randomBytes(3 * 1024 * 1024) },
    ]);
    const panel = uploads.panel();
    await expect(panel).toBeVisible();
    await expect(uploads.topBar()).toBeVisible();
    await expect(panel.getByRole('progressbar', { name: 'big.bin' })).toBeVisible();
    // A second or two in, the speed and the time left are known.
    await expect(panel.getByText(/^\d\d:\d\d:\d\d$/)).toBeVisible({ timeout: 15_000 });
    await expect(panel).toContainText(/\d KiB\u2069\/s/); // sizes are isolated (U+2068…U+2069)
    await expect(panel).toContainText(/of \u20683 MiB/);
    await shot(page, 'upload-panel');
    await panel.getByRole('button', { name: 'Hide the file list' }).click();
    await expect(panel.getByRole('progressbar')).toBeHidden();
    await panel.getByRole('button', { name: 'Show the file list' }).click();
    await expect(panel.getByRole('progressbar', { name: 'big.bin' })).toBeVisible();

    await panel.getByRole('button', { name: 'Abort' }).click();
    const confirm = page.getByRole('dialog', { name: 'Abort the uploads?' });
    await expect(confirm).toContainText('Are you sure you want to abort the uploads?');
    await confirm.getByRole('button', { name: 'Keep uploading' }).click();
    await expect(panel).toBeVisible();
    await panel.getByRole('button', { name: 'Abort' }).click();
    const reload = page.waitForResponse(
      (r) => r.url().includes('/api/resources/up-abort/') && r.request().method() === 'GET',
    );
    await confirm.getByRole('button', { name: 'Abort' }).click();
    await expect(panel).toHaveCount(0);
    await expect(uploads.topBar()).toHaveCount(0);
    await deleted;
    await reload;
    await expect.poll(async () => (await tusHead(server.url, '/up-abort/big.bin')).status).toBe(404);
    expect(existsSync(path.join(server.root, 'up-abort', 'big.bin'))).toBe(false);
    await expect(page.getByText('This folder is empty.')).toBeVisible();
    await expect(files.items()).toHaveCount(0);
  });

  test('an upload interrupted by a page reload continues from the server offset', async ({
    page,
    server,
  }) => {
    test.slow(); // a megabyte sent slowly on purpose
    await setTus(server.url, { chunkSize: 64 * 1024, retryCount: 0 });
    mkdirSync(path.join(server.root, 'up-resume'), { recursive: true });
    const files = await openFolder(page, server.url, 'up-resume/');
    const uploads = new Uploads(page);
    await slowPatches(page, 150);
    const data = randomBytes(1024 * 1024);
    const file = [{ name: 'resume.bin', mimeType: 'application/octet-stream', buffer: data }];
    await uploads.chooseFiles(file);
    await expect
      .poll(async () => (await tusHead(server.url, '/up-resume/resume.bin')).offset, { timeout: 30_000 })
      .toBeGreaterThanOrEqual(256 * 1024);

    // The leave-page warning is on while the upload runs; the user leaves anyway.
    const warned: string[] = [];
    page.once('dialog', (d) => {
      warned.push(d.type());
      void d.accept();
    });
    await page.reload();
    await expect(files.listing().or(page.getByText('This folder is empty.'))).toBeVisible();
    expect(warned).toEqual(['beforeunload']);
    const before = await tusHead(server.url, '/up-resume/resume.bin');
    expect(before.status).toBe(200);
    expect(before.offset).toBeGreaterThanOrEqual(256 * 1024);
    expect(existsSync(path.join(server.root, 'up-resume', 'resume.bin'))).toBe(false);

    await page.unrouteAll({ behavior: 'ignoreErrors' });
    const sent: Request[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/tus/')) sent.push(r);
    });
    await uploads.chooseFiles(file);
    await expect(page.getByText('Upload complete.')).toBeVisible();
    await files.expectSelected(['resume.bin']);
    expect(sha256(onDisk(server.root, 'up-resume/resume.bin'))).toBe(sha256(data));
    expect(sent.some((r) => r.method() === 'POST')).toBe(false);
    const firstPatch = sent.find((r) => r.method() === 'PATCH');
    expect(Number(await firstPatch?.headerValue('upload-offset'))).toBeGreaterThanOrEqual(before.offset);
  });

  test('a user without the create permission has no Upload action and drops are refused', async ({
    page,
    server,
  }) => {
    mkdirSync(path.join(server.root, 'up-none'), { recursive: true });
    writeFileSync(path.join(server.root, 'up-none', 'a.txt'), 'a');
    await createUser(server.url, {
      username: 'no-upload',
      password: 'no-upload-password-2024',
      perm: { create: false },
    });
    const files = await openFolder(page, server.url, 'up-none/', ['no-upload', 'no-upload-password-2024']);
    await expect(files.item('a.txt')).toBeVisible();
    const uploads = new Uploads(page);
    await expect(uploads.button()).toHaveCount(0);
    const sent: string[] = [];
    page.on('request', (r) => {
      if (r.method() !== 'GET') sent.push(r.url());
    });
    await uploads.drop(files.listing(), [{ name: 'nope.txt', text: 'x' }]);
    await expect(page.locator('.upload-zone--over')).toHaveCount(0);
    await expect(uploads.panel()).toHaveCount(0);
    expect(sent).toEqual([]);
    expect(existsSync(path.join(server.root, 'up-none', 'nope.txt'))).toBe(false);
  });
});

test.describe('uploading on a phone', () => {
  test.use(PHONE);
  test.afterEach(async ({ server }) => {
    await setTus(server.url, DEFAULT_TUS);
  });

  test('the prompts and the panel fit, pass axe, and abort works', async ({ page, server }) => {
    test.slow(); // megabytes sent slowly on purpose
    await setTus(server.url, { chunkSize: 64 * 1024, retryCount: 0 });
    mkdirSync(path.join(server.root, 'up-phone'), { recursive: true });
    writeFileSync(path.join(server.root, 'up-phone', 'taken.txt'), 'old');
    const files = await openFolder(page, server.url, 'up-phone/');
    const uploads = new Uploads(page);
    await uploads.button().click();
    await expect(uploads.prompt()).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'upload-prompt');
    await page.keyboard.press('Escape');

    await uploads.chooseFiles([{ name: 'taken.txt', mimeType: 'text/plain', buffer: Buffer.from('new') }]);
    await expect(uploads.conflict()).toBeVisible();
    await shot(page, 'upload-conflict');
    await uploads.conflict().getByRole('button', { name: 'Cancel' }).click();
    expect(onDisk(server.root, 'up-phone/taken.txt').toString()).toBe('old');

    await slowPatches(page, 250);
    await uploads.chooseFiles([
      {
        name: 'a-rather-long-file-name-from-a-camera-20240801.bin',
        mimeType: 'application/octet-stream',
        buffer: randomBytes(2 * 1024 * 1024),
      },
      { name: 'second.bin', mimeType: 'application/octet-stream', buffer: randomBytes(1024 * 1024) },
    ]);
    const panel = uploads.panel();
    await expect(panel.getByText(/^\d\d:\d\d:\d\d$/)).toBeVisible({ timeout: 15_000 });
    // The whole page: the panel over the listing.
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'upload-panel');
    await panel.getByRole('button', { name: 'Abort' }).click();
    await page
      .getByRole('dialog', { name: 'Abort the uploads?' })
      .getByRole('button', { name: 'Abort' })
      .click();
    await expect(panel).toHaveCount(0);
    await expect(files.item('second.bin')).toHaveCount(0);
  });
});

test.describe('upload errors', () => {
  let small: RunningServer;
  test.beforeAll(async () => {
    small = await startServer({ args: ['--max-upload-size', String(100 * 1024)] });
  });
  test.afterAll(async () => {
    await small.stop();
  });

  for (const [label, use] of [
    ['desktop', {}],
    ['phone', PHONE],
  ] as const) {
    test.describe(label, () => {
      test.use(use);
      test('each failed file says why and stays listed until the panel is closed', async ({ page }) => {
        const name = `too-big-${label}.bin`;
        const login = new LoginPage(page);
        await login.goto(`${small.url}/login`);
        await login.signIn();
        await expect(page.getByRole('heading', { level: 1, name: 'My files' })).toBeVisible();
        const files = new Files(page);
        const uploads = new Uploads(page);
        await uploads.chooseFiles([
          { name, mimeType: 'application/octet-stream', buffer: randomBytes(200 * 1024) },
          { name: `fits-${label}.txt`, mimeType: 'text/plain', buffer: Buffer.from('fits') },
        ]);
        const panel = page.getByRole('region', { name: 'Some uploads failed' });
        await expect(panel).toBeVisible();
        await expect(panel.getByRole('alert')).toHaveText('Too large for the server (413)');
        await expect(panel).toContainText(name);
        await expect(files.item(`fits-${label}.txt`)).toBeVisible();
        await expect(files.item(name)).toHaveCount(0);
        await shot(page, 'upload-failed');
        await panel.getByRole('button', { name: 'Close' }).click();
        await expect(panel).toHaveCount(0);
        expect(existsSync(path.join(small.root, name))).toBe(false);
      });
    });
  }
});
