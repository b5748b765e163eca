/**
 * The preview (docs/client.md §2: files that are not text open in a preview): images with zoom, audio,
 * video with subtitles, PDF, a card for anything else; previous/next, close, rename, delete.
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { createUser, listByName } from '../support/api';
import { seriousViolations } from '../support/axe';
import { expect, PHONE, shot, test } from '../support/fixtures';
import { binary, pdf, wav } from '../support/media';
import { png } from '../support/png';
import { seed } from '../support/seed';
import { FileView } from '../pages/FileView';
import { Files } from '../pages/Files';
import { signIn } from '../pages/LoginPage';

/** A short WebM recorded from a canvas by the browser itself (no video fixture needed). */
async function recordWebm(page: Page): Promise<Buffer> {
  const base64 = await page.evaluate(async () => {
    const canvas = document.createElement('canvas');
    canvas.width = 160;
    canvas.height = 120;
    const ctx = canvas.getContext('2d');
    const recorder = new MediaRecorder(canvas.captureStream(20), { mimeType: 'video/webm' });
    const parts: Blob[] = [];
    recorder.ondataavailable = (e) => parts.push(e.data);
    recorder.start();
    for (let i = 0; i < 12; i++) {
      if (ctx) {
        ctx.fillStyle = `hsl(${i * 30} 70% 50%)`;
        ctx.fillRect(0, 0, 160, 120);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    const stopped = new Promise((r) => (recorder.onstop = r));
    recorder.stop();
    await stopped;
    const bytes = new Uint8Array(await new Blob(parts).arrayBuffer());
    let text = '';
    for (const b of bytes) text += String.fromCharCode(b);
    return btoa(text);
  });
  return Buffer.from(base64, 'base64');
}

const SRT = '1\n00:00:00,000 --> 00:00:05,000\nHello<br>world\n';

test.describe('the preview', () => {
  test.beforeEach(async ({ page, server }) => {
    await listByName(server.url);
    await signIn(page);
  });

  test('opens an image from the listing, zooms, and Escape returns to the folder', async ({ page, server }) => {
    seed(server.root, 'pv-image', { 'photo.png': png(1600, 1000), 'other.txt': 'x' });
    const files = new Files(page);
    const view = new FileView(page);
    await files.goto('pv-image/');
    await files.item('photo.png').dblclick();
    await expect(page).toHaveURL(/\/files\/pv-image\/photo\.png$/);
    await view.expectOpen('photo.png');
    await expect(page).toHaveTitle(/^photo\.png - Files - /);
    await expect(view.breadcrumbs().getByRole('link')).toHaveText(['Home', 'pv-image', 'photo.png']);
    const image = page.getByRole('img', { name: 'photo.png' });
    // Resizing is on by default: the 1080 px preview first, fitted to the screen.
    await expect(image).toHaveAttribute('src', /\/api\/preview\/big\/pv-image\/photo\.png\?inline=true&key=\d+$/);
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1080);
    const fitted = await image.boundingBox();
    expect(fitted?.width).toBeLessThan(1080);
    await expect(view.toolbar().getByText('Fit', { exact: true })).toBeVisible();
    await shot(page, 'preview-image');

    // Zooming shows the original at a step above the fitted scale.
    await view.button('Zoom in').click();
    await expect(image).toHaveAttribute('src', /\/api\/raw\/pv-image\/photo\.png\?inline=true$/);
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1600);
    await expect(view.toolbar().getByText(/^\d+\s?%$/)).toBeVisible();
    const zoomed = await image.boundingBox();
    expect(zoomed?.width).toBeGreaterThan(fitted?.width ?? 0);
    await page.keyboard.press('0');
    await expect(view.toolbar().getByText('Fit', { exact: true })).toBeVisible();
    await view.button('Actual size').click();
    await expect(view.toolbar().getByText('100%')).toBeVisible();
    await expect.poll(async () => (await image.boundingBox())?.width).toBe(1600);
    expect(await seriousViolations(page)).toEqual([]);

    await page.keyboard.press('Escape');
    await expect(page).toHaveURL(/\/files\/pv-image\/$/);
    await expect(files.item('photo.png')).toBeVisible();
    // Closing went back in history: forward opens the image again.
    await page.goForward();
    await view.expectOpen('photo.png');
  });

  test('steps through the folder with the arrow keys and buttons: audio, PDF, a card, the editor', async ({
    page,
    server,
  }) => {
    test.slow(); // five files, each loaded for real
    seed(server.root, 'pv-walk', {
      '1-image.png': png(64, 48),
      '2-sound.wav': wav(),
      '3-doc.pdf': pdf('Coffer preview'),
      '4-data.bin': binary(3000),
      '5-notes.txt': 'notes',
    });
    mkdirSync(path.join(server.root, 'pv-walk', '0-folder'));
    const files = new Files(page);
    const view = new FileView(page);
    await files.goto('pv-walk/');
    await files.item('1-image.png').click();
    await page.keyboard.press('Enter');
    await view.expectOpen('1-image.png');
    await expect(view.position()).toHaveText('1 of 5');
    await expect(view.button('Previous file')).toBeDisabled();

    await page.keyboard.press('ArrowRight');
    await view.expectOpen('2-sound.wav');
    const audio = page.locator('audio');
    await expect(audio).toHaveAttribute('src', /\/api\/raw\/pv-walk\/2-sound\.wav\?inline=true$/);
    await expect.poll(() => audio.evaluate((a: HTMLAudioElement) => a.readyState)).toBeGreaterThanOrEqual(1);
    expect(await audio.evaluate((a: HTMLAudioElement) => a.duration)).toBeCloseTo(0.5, 1);
    await shot(page, 'preview-audio');

    const pdfAnswer = page.waitForResponse((r) => r.url().includes('/api/raw/pv-walk/3-doc.pdf'));
    await page.keyboard.press('ArrowRight');
    await view.expectOpen('3-doc.pdf');
    const answer = await pdfAnswer;
    expect(answer.status()).toBe(200);
    expect(answer.headers()['content-type']).toBe('application/pdf');
    // S60: the file answer may be framed by the app itself.
    expect(answer.headers()['content-security-policy']).toContain("frame-ancestors 'self'");
    await expect(page.frameLocator('iframe[title="PDF document 3-doc.pdf"]').locator('body')).toBeAttached();
    // The browser's own PDF viewer took the document (rather than offering a download).
    await expect
      .poll(() => page.frames().some((f) => f.url().startsWith('chrome-extension://')), { timeout: 20_000 })
      .toBe(true);
    await expect(view.toolbar().getByRole('link', { name: 'Open in a new tab' })).toHaveAttribute(
      'href',
      /\/api\/raw\/pv-walk\/3-doc\.pdf\?inline=true$/,
    );
    await shot(page, 'preview-pdf');

    await view.button('Next file').click();
    await view.expectOpen('4-data.bin');
    const card = view.card('4-data.bin');
    await expect(card).toContainText('There is no preview for this type of file.');
    await expect(card).toContainText('Binary file');
    await expect(card).toContainText('2.9 KiB');
    const download = page.waitForEvent('download');
    await card.getByRole('button', { name: 'Download' }).click();
    expect((await download).suggestedFilename()).toBe('4-data.bin');
    await shot(page, 'preview-card');

    await page.keyboard.press('ArrowRight');
    await view.expectOpen('5-notes.txt');
    await expect(view.editor('5-notes.txt')).toHaveText('notes');
    await expect(view.button('Next file')).toBeDisabled();
    await view.button('Previous file').click();
    await view.expectOpen('4-data.bin');
    await page.keyboard.press('ArrowLeft');
    await view.expectOpen('3-doc.pdf');

    // Stepping replaced the history entry: back returns to the folder.
    await page.goBack();
    await expect(page).toHaveURL(/\/files\/pv-walk\/$/);
    await expect(files.item('0-folder')).toBeVisible();
  });

  test('plays a video with the subtitles found beside it', async ({ page, server }) => {
    const webm = await recordWebm(page);
    seed(server.root, 'pv-video', { 'clip.webm': webm, 'clip.en.srt': SRT });
    const view = new FileView(page);
    await page.goto('files/pv-video/clip.webm');
    await view.expectOpen('clip.webm');
    const video = page.getByLabel('clip.webm', { exact: true });
    await expect(video).toHaveAttribute('src', /\/api\/raw\/pv-video\/clip\.webm\?inline=true$/);
    await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.readyState)).toBeGreaterThanOrEqual(1);
    const track = video.locator('track');
    await expect(track).toHaveAttribute('src', /\/api\/subtitle\/pv-video\/clip\.en\.srt\?inline=true$/);
    await expect(track).toHaveAttribute('label', 'clip.en.srt');
    await expect(track).toHaveAttribute('srclang', 'en');
    // The default track loads and its cue is the converted SubRip text.
    await expect
      .poll(() =>
        video.evaluate((v: HTMLVideoElement) => {
          const cues = v.textTracks[0]?.cues;
          return cues && cues.length > 0 ? (cues[0] as VTTCue).text : null;
        }),
      )
      .toBe('Hello\nworld');
    await shot(page, 'preview-video');
  });

  test('renames and deletes from the preview, then returns to the folder', async ({ page, server }) => {
    const base = seed(server.root, 'pv-edit', { 'old.bin': binary(10), 'keep.bin': binary(10) });
    const files = new Files(page);
    const view = new FileView(page);
    await files.goto('pv-edit/');
    await files.item('old.bin').dblclick();
    await view.expectOpen('old.bin');
    await view.button('Rename').click();
    const dialog = page.getByRole('dialog', { name: 'Rename' });
    await dialog.getByRole('textbox').fill('new.bin');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(page).toHaveURL(/\/files\/pv-edit\/new\.bin$/);
    await view.expectOpen('new.bin');
    expect(existsSync(path.join(base, 'new.bin'))).toBe(true);

    await view.button('Delete').click();
    const confirm = page.getByRole('dialog', { name: 'Move to trash' });
    await expect(confirm).toContainText('Move “new.bin” to the trash?');
    await confirm.getByRole('button', { name: 'Move to trash' }).click();
    await expect(page).toHaveURL(/\/files\/pv-edit\/$/);
    await expect(files.item('keep.bin')).toBeVisible();
    await expect(files.item('new.bin')).toHaveCount(0);
    expect(existsSync(path.join(base, 'new.bin'))).toBe(false);
  });

  test('without download, rename and delete permissions shows a card and no such actions', async ({
    page,
    server,
  }) => {
    seed(server.root, 'pv-perm', { 'pic.png': png(32, 32) });
    await createUser(server.url, {
      username: 'pv-viewer',
      password: 'pv-viewer-password-1',
      perm: { download: false, share: false, rename: false, delete: false },
    });
    await page.context().clearCookies();
    await page.evaluate(() => localStorage.clear());
    await signIn(page, 'pv-viewer', 'pv-viewer-password-1');
    const view = new FileView(page);
    await page.goto('files/pv-perm/pic.png');
    await view.expectOpen('pic.png');
    await expect(view.card('pic.png')).toContainText('Showing this file needs the download permission.');
    await expect(view.card('pic.png').getByRole('button', { name: 'Download' })).toHaveCount(0);
    await expect(view.toolbar().getByRole('button')).toHaveText(['Close', 'File information']);
  });

  test('fits the phone screen', async ({ page: first, browser, server }) => {
    test.slow(); // a second browser context
    seed(server.root, 'pv-phone', { 'wide.png': png(1200, 600), 'b.bin': binary(10) });
    // Signed in by beforeEach: the phone context starts with the same token.
    const storageState = await first.context().storageState();
    const context = await browser.newContext({ ...PHONE, storageState, baseURL: server.url + '/' });
    const page = await context.newPage();
    const view = new FileView(page);
    await page.goto('files/pv-phone/wide.png');
    await expect(view.title()).toHaveText('wide.png', { timeout: 30_000 });
    const image = page.getByRole('img', { name: 'wide.png' });
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1080);
    const box = await image.boundingBox();
    expect(box?.width).toBeLessThanOrEqual(375);
    // Nothing wider than the screen: the toolbar scrolls rather than the page.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await shot(page, 'preview-image');
    await view.button('Previous file').click();
    await view.expectOpen('b.bin');
    await shot(page, 'preview-card');
    await context.close();
  });
});
