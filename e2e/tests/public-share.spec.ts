import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createShare } from '../support/api';
import { expect, PHONE, shot, test } from '../support/fixtures';
import { png } from '../support/png';
import { seed } from '../support/seed';
import { startServer, type RunningServer } from '../support/server';
import { LoginPage, signIn } from '../pages/LoginPage';
import { SharePage } from '../pages/SharePage';

/** A folder to share: a subfolder, a picture, a song, a video and a text file. */
function seedFolder(root: string, name: string) {
  return seed(root, name, {
    'sub/deep.txt': 'deep',
    'photo.png': png(480, 300, [70, 140, 90]),
    'song.mp3': 'ID3 not really a song',
    'clip.mp4': 'not really a video',
    'notes.txt': 'shared notes',
  });
}

test.describe('the public share page', () => {
  test('shows a shared folder to a visitor: box, QR, listing, previews, downloads, subfolders', async ({
    page,
    server,
    context,
  }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    seedFolder(server.root, 'pub-folder');
    const { hash } = await createShare(server.url, '/pub-folder/');
    const share = new SharePage(page);
    await share.goto(hash);
    await share.expectHeading('pub-folder');
    await expect(page).toHaveTitle(/^pub-folder - Shared - /);
    // Nobody is signed in: the sidebar offers the login.
    await expect(
      page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Log in' }),
    ).toBeVisible();

    const box = share.box();
    await expect(box).toContainText('Folders: 1, files: 4');
    await expect(box.locator('time')).toHaveText(/ago|now/);
    await expect(box.locator('time')).toHaveAttribute('title', /\d/);
    await expect(box.getByRole('link', { name: 'Download' })).toHaveAttribute(
      'href',
      `/api/public/dl/${hash}/`,
    );
    await expect(box.getByRole('link', { name: 'Open in new tab' })).toHaveCount(0);
    await expect(share.qr().locator('svg')).toHaveAttribute('width', '100');
    await expect(share.items()).toHaveText(
      ['sub', 'clip.mp4', 'notes.txt', 'photo.png', 'song.mp3'].map((n) => new RegExp(n)),
    );
    await shot(page, 'public-folder');

    // One picture: previewed; one song and one video: players.
    await share.item('photo.png').click();
    const img = share.preview('photo.png').getByRole('img', { name: 'photo.png' });
    await expect.poll(() => img.evaluate((i: HTMLImageElement) => i.naturalWidth)).toBe(480);
    await shot(page, 'public-preview');
    await share.item('song.mp3').click();
    await expect(share.preview('song.mp3').locator('audio[controls]')).toHaveAttribute(
      'src',
      `/api/public/dl/${hash}/song.mp3?inline=true`,
    );
    await share.item('clip.mp4').click();
    await expect(share.preview('clip.mp4').locator('video[controls]')).toBeVisible();

    // One file: copy its download link, download it directly.
    await share.item('notes.txt').click();
    await share.action('Copy download link').click();
    await expect(page.getByRole('status').filter({ hasText: 'Link copied.' })).toBeVisible();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe(`${server.url}/api/public/dl/${hash}/notes.txt`);
    expect(await (await fetch(copied)).text()).toBe('shared notes');
    const single = page.waitForEvent('download');
    await share.download().click();
    const file = await single;
    expect(file.suggestedFilename()).toBe('notes.txt');
    expect(readFileSync(await file.path(), 'utf8')).toBe('shared notes');

    // Several items in multiple-selection mode: the format prompt, then one archive.
    await share.action('Select multiple').click();
    await expect(share.action('Select multiple')).toHaveAttribute('aria-pressed', 'true');
    await share.item('photo.png').click();
    await share.item('sub').click();
    await expect(share.listing().locator('[aria-selected="true"]')).toHaveCount(3);
    await expect(share.action('Copy download link')).toHaveCount(0);
    await share.download().click();
    const formats = page.getByRole('dialog', { name: 'Download' });
    const archive = page.waitForEvent('download');
    await formats.getByRole('button', { name: '.tar.gz' }).click();
    expect((await archive).suggestedFilename()).toBe('_pub-folder.tar.gz');
    await page.keyboard.press('Escape');
    await expect(share.listing().locator('[aria-selected="true"]')).toHaveCount(0);
    await expect(share.action('Select multiple')).toHaveAttribute('aria-pressed', 'false');

    // Into a subfolder and back by the breadcrumbs.
    await share.item('sub').dblclick();
    await expect(page).toHaveURL(new RegExp(`/share/${hash}/sub/$`));
    await share.expectHeading('sub');
    await expect(share.items()).toHaveText([/deep\.txt/]);
    await expect(share.box().getByRole('link', { name: 'Download' })).toHaveAttribute(
      'href',
      `/api/public/dl/${hash}/sub`,
    );
    await share.item('deep.txt').dblclick();
    await share.expectHeading('deep.txt');
    await expect(share.qr().locator('svg')).toHaveAttribute('width', '200');
    await page
      .getByRole('navigation', { name: 'Location' })
      .getByRole('link', { name: 'Shared files' })
      .click();
    await share.expectHeading('pub-folder');
  });

  test('lists 100 items first and adds 100 with the "+N" tile', async ({ page, server }) => {
    const base = path.join(server.root, 'pub-many');
    mkdirSync(base, { recursive: true });
    for (let i = 0; i < 230; i++) writeFileSync(path.join(base, `f${String(i).padStart(3, '0')}.txt`), '');
    const { hash } = await createShare(server.url, '/pub-many/');
    const share = new SharePage(page);
    await share.goto(hash);
    await share.expectHeading('pub-many');
    await expect(share.items()).toHaveCount(100);
    const more = page.getByRole('button', { name: 'Show more (130 not shown)' });
    await expect(more).toHaveText('+130');
    await more.click();
    await expect(share.items()).toHaveCount(200);
    await page.getByRole('button', { name: 'Show more (30 not shown)' }).click();
    await expect(share.items()).toHaveCount(230);
    await expect(page.getByRole('button', { name: /^Show more/ })).toHaveCount(0);
  });

  test('asks for the password of a protected file, says when it is wrong, then downloads with the token', async ({
    page,
    server,
  }) => {
    const base = seedFolder(server.root, 'pub-secret');
    const { hash } = await createShare(server.url, '/pub-secret/photo.png', { password: 'letmein' });
    const share = new SharePage(page);
    await share.goto(hash);
    await expect(page.getByRole('heading', { name: 'This link is protected' })).toBeVisible({
      timeout: 30_000,
    });
    await expect(share.password()).toBeFocused();
    await expect(page.getByText('Wrong password.')).toHaveCount(0);
    await shot(page, 'public-password');
    await share.unlock('nope');
    await expect(page.getByText('Wrong password.')).toBeVisible();
    await expect(share.password()).toHaveAttribute('aria-invalid', 'true');
    await shot(page, 'public-password-wrong');
    await share.unlock('letmein');
    await share.expectHeading('photo.png');

    const download = share.box().getByRole('link', { name: 'Download' });
    const href = (await download.getAttribute('href')) ?? '';
    expect(href).toMatch(new RegExp(`^/api/public/dl/${hash}\\?token=.{16,}`));
    const res = await fetch(`${server.origin}${href}`);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(path.join(base, 'photo.png')))).toBe(
      true,
    );
    await expect(share.box().getByRole('link', { name: 'Open in new tab' })).toHaveAttribute(
      'href',
      /\?inline=true&token=/,
    );
    await expect(share.box()).toContainText('1.1 KiB');
    await expect(share.qr().locator('svg')).toHaveAttribute('width', '200');
    // A shared file is previewed as it is.
    const img = share.preview('photo.png').getByRole('img', { name: 'photo.png' });
    await expect.poll(() => img.evaluate((i: HTMLImageElement) => i.naturalWidth)).toBe(480);
    await shot(page, 'public-file');
  });

  test('works for a signed-in user too, and shows the error page for an unknown link', async ({
    page,
    server,
  }) => {
    seedFolder(server.root, 'pub-signed');
    const { hash } = await createShare(server.url, '/pub-signed/notes.txt');
    await signIn(page);
    const share = new SharePage(page);
    await page.goto(`share/${hash}`);
    await share.expectHeading('notes.txt');
    await expect(
      page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'admin' }),
    ).toBeVisible();
    await expect(share.box()).toContainText('12 B');
    await page.goto('share/not-a-real-hash');
    await expect(page.getByText("This page doesn't exist.")).toBeVisible({ timeout: 30_000 });
  });

  test('Log in from a share brings the visitor back to the same place once signed in', async ({
    page,
    server,
  }) => {
    seedFolder(server.root, 'pub-back');
    const { hash } = await createShare(server.url, '/pub-back/');
    const share = new SharePage(page);
    await share.goto(hash, '/sub/');
    await share.expectHeading('sub');
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Log in' }).click();
    const login = new LoginPage(page);
    await expect(login.username()).toBeVisible({ timeout: 20_000 });
    expect(new URL(page.url()).searchParams.get('redirect')).toBe(`/share/${hash}/sub/`);
    await login.signIn();
    await expect(page).toHaveURL(`${server.url}/share/${hash}/sub/`);
    await share.expectHeading('sub');
    await expect(share.item('deep.txt')).toBeVisible();
    await expect(nav.getByRole('link', { name: 'admin' })).toBeVisible();
  });
});

test.describe('the public share page under a base URL', () => {
  let prefixed: RunningServer;
  test.beforeAll(async () => {
    prefixed = await startServer({ args: ['--baseurl', '/coffer'], baseurl: '/coffer' });
  });
  test.afterAll(async () => {
    await prefixed.stop();
  });

  test('builds every link under the prefix', async ({ page }) => {
    seedFolder(prefixed.root, 'pub-base');
    const { hash } = await createShare(prefixed.url, '/pub-base/', { password: 'pw' });
    const share = new SharePage(page);
    await page.goto(`${prefixed.url}/share/${hash}`);
    await share.unlock('pw');
    await share.expectHeading('pub-base');
    await expect(share.box().getByRole('link', { name: 'Download' })).toHaveAttribute(
      'href',
      new RegExp(`^/coffer/api/public/dl/${hash}/\\?token=`),
    );
    await share.item('sub').dblclick();
    await expect(page).toHaveURL(`${prefixed.url}/share/${hash}/sub/`);
    await share.expectHeading('sub');
    const single = page.waitForEvent('download');
    await share.item('deep.txt').click();
    await share.download().click();
    expect((await single).suggestedFilename()).toBe('deep.txt');
  });
});

test.describe('the public share page on a phone', () => {
  test.use(PHONE);

  test('stacks the box above the listing, also in the dark theme', async ({ page, server }) => {
    seedFolder(server.root, 'pub-phone');
    const { hash } = await createShare(server.url, '/pub-phone/');
    const share = new SharePage(page);
    await share.goto(hash);
    await share.expectHeading('pub-phone');
    await share.item('photo.png').click();
    await expect(share.preview('photo.png')).toBeVisible();
    await shot(page, 'public-folder');
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect(page.locator('html')).toHaveClass(/\bdark\b/);
    await shot(page, 'public-folder-dark');
    const secret = await createShare(server.url, '/pub-phone/notes.txt', { password: 'pw' });
    await share.goto(secret.hash);
    await expect(share.password()).toBeVisible({ timeout: 30_000 });
    await shot(page, 'public-password-dark');
  });
});
