/**
 * The file browser in its variants (docs/client.md §2 "File browser", §6 "Roles and permissions"): a user
 * without the write permissions (toolbar, context menu and every shortcut), without modify, a
 * 375 px phone (every action reachable, nothing wider than the screen), image thumbnails on and
 * off, and the search overlay's type chips.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page, Request } from '@playwright/test';
import { createUser, listByName, updateUser } from '../support/api';
import { expect, PHONE, shot, test } from '../support/fixtures';
import { mp4 } from '../support/media';
import { png } from '../support/png';
import { seed } from '../support/seed';
import { startServer, type RunningServer } from '../support/server';
import { Files, WITH_SELECTION } from '../pages/Files';
import { signInWithToken } from '../pages/LoginPage';
import { Shell } from '../pages/Shell';

// Each test loads the client at least once; on a busy machine that alone can take many seconds.
test.describe.configure({ timeout: 60_000 });

/** Requests that would change files or fetch their contents (the renewal of the token aside). */
function watchWrites(page: Page): string[] {
  const seen: string[] = [];
  page.on('request', (r: Request) => {
    const { pathname } = new URL(r.url());
    if (!pathname.startsWith('/api/') || pathname === '/api/renew') return;
    if (r.method() !== 'GET' || pathname.startsWith('/api/raw')) seen.push(`${r.method()} ${pathname}`);
  });
  return seen;
}

/** Nothing sticks out sideways: neither the page nor any button of the toolbar and selection bar. */
async function expectFits(page: Page) {
  const width = page.viewportSize()!.width;
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
  const outside = await page
    .getByRole('toolbar', { name: 'Actions' })
    .getByRole('button')
    .evaluateAll(
      (els, w) =>
        els
          .map((e) => ({
            name: e.getAttribute('aria-label') ?? e.textContent,
            box: e.getBoundingClientRect(),
          }))
          .filter(({ box }) => box.width > 0 && (box.left < 0 || box.right > w))
          .map(({ name }) => name),
      width,
    );
  expect(outside, 'buttons outside the window').toEqual([]);
}

test.describe('the file browser without create, rename, delete, download and share', () => {
  const viewer = { username: 'variants-viewer', password: 'variants-viewer-password-2024' };

  test('the context menu and Ctrl+S, Ctrl+X, Ctrl+C and Ctrl+V offer and do nothing of it', async ({
    page,
    server,
  }) => {
    const base = seed(server.root, 'variants-readonly', { 'a.txt': 'a', 'b.txt': 'b' }, ['box']);
    await createUser(server.url, {
      ...viewer,
      perm: { create: false, rename: false, delete: false, download: false, share: false },
    });
    await signInWithToken(page, server.url, viewer.username, viewer.password);
    const writes = watchWrites(page);
    const files = new Files(page);
    await files.goto('variants-readonly/');
    await files.item('a.txt').click();
    await files.expectSelected(['a.txt']);
    // Only what needs no permission: no share, copy, move, upload (nor the rest files.spec checks).
    await expect
      .poll(() => files.toolbarButtons())
      .toEqual(['Switch view List', 'Info', 'Select multiple', 'Clear selection']);

    await files.item('a.txt').click({ button: 'right' });
    await expect(files.menuItems()).toHaveText(['Open', 'Info']);
    await page.keyboard.press('Escape');
    await expect(files.menu()).toHaveCount(0);

    // Ctrl+S: neither the file (one selected) nor the archive prompt (several).
    await page.keyboard.press('ControlOrMeta+s');
    await page.keyboard.press('ControlOrMeta+a');
    await files.expectSelected(['box', 'a.txt', 'b.txt']);
    await page.keyboard.press('ControlOrMeta+s');
    // F1 opens the help only when no prompt is open, after the keys before it were handled.
    await page.keyboard.press('F1');
    await expect(page.getByRole('dialog')).toHaveCount(1);
    await expect(page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(page.getByRole('dialog')).toHaveCount(0);

    // Cut, then paste in the folder: nothing moves.
    await files.item('a.txt').click();
    await page.keyboard.press('ControlOrMeta+x');
    await files.item('box').dblclick();
    await expect(page).toHaveURL(/\/files\/variants-readonly\/box\/$/);
    await expect(page.getByText('This folder is empty.')).toBeVisible();
    await page.keyboard.press('ControlOrMeta+v');
    await files.crumb('variants-readonly').click();
    await expect(files.item('a.txt')).toBeVisible();

    // Copy, then paste in the folder: nothing is created.
    await files.item('b.txt').click();
    await page.keyboard.press('ControlOrMeta+c');
    await files.item('box').dblclick();
    await expect(page.getByText('This folder is empty.')).toBeVisible();
    await page.keyboard.press('ControlOrMeta+v');
    // The help prompt opening shows every key before it was handled.
    await page.keyboard.press('F1');
    await expect(page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toBeVisible();
    await page.keyboard.press('Escape');
    await files.crumb('variants-readonly').click();
    await expect(files.item('b.txt')).toBeVisible();

    await expect(page.getByRole('dialog')).toHaveCount(0);
    expect(writes).toEqual([]);
    expect(readdirSync(path.join(base, 'box'))).toEqual([]);
    expect(readdirSync(base).sort()).toEqual(['a.txt', 'b.txt', 'box']);
  });
});

test.describe('the file browser without modify', () => {
  test('copying onto an existing name offers keep both but not overwrite', async ({ page, server }) => {
    const base = seed(server.root, 'variants-nomodify', { 'a.txt': 'new', 'dest/a.txt': 'old' });
    const user = { username: 'variants-no-modify', password: 'variants-no-modify-password-2024' };
    await createUser(server.url, { ...user, perm: { modify: false } });
    await signInWithToken(page, server.url, user.username, user.password);
    const files = new Files(page);
    await files.goto('variants-nomodify/');
    // Modify gates no action of the toolbar (docs/client.md §6): overwriting is all it adds.
    await files.item('a.txt').click();
    await expect.poll(() => files.toolbarButtons()).toEqual(WITH_SELECTION.line);
    expect(await files.offered()).toEqual(WITH_SELECTION.offered);
    await files.toolbar().getByRole('button', { name: 'Copy' }).click();
    const picker = page.getByRole('dialog', { name: 'Copy' });
    await picker.getByRole('button', { name: 'dest' }).click();
    await expect(picker).toContainText('/variants-nomodify/dest/');
    await picker.getByRole('button', { name: 'Copy', exact: true }).click();
    const replace = page.getByRole('dialog', { name: 'Replace items?' });
    await expect(replace.getByRole('button', { name: 'Keep both' })).toBeVisible();
    // The server refuses an overwrite without modify (docs/api.md §6.1): the prompt does not offer it.
    await expect(replace.getByRole('button', { name: 'Overwrite' })).toHaveCount(0);
    await replace.getByRole('button', { name: 'Keep both' }).click();
    await expect(replace).toBeHidden();
    await expect.poll(() => existsSync(path.join(base, 'dest/a(1).txt'))).toBe(true);
    expect(readFileSync(path.join(base, 'dest/a.txt'), 'utf8')).toBe('old');
  });
});

test.describe('the file browser on a 375 px phone', () => {
  test.use(PHONE);
  test.afterEach(async ({ server }) => {
    await listByName(server.url);
  });

  test('every action is reachable and nothing is wider than the screen, in every view', async ({
    page,
    server,
  }) => {
    const base = seed(
      server.root,
      'variants-phone',
      {
        'summary.txt': 30,
        'photo.png': png(64, 48),
        'a-rather-long-file-name-that-cannot-fit-on-a-phone-screen-at-all.txt': 10,
      },
      ['docs'],
    );
    await listByName(server.url);
    await signInWithToken(page, server.url);
    const files = new Files(page);
    await files.goto('variants-phone/');
    await expect(files.item('summary.txt')).toBeVisible();
    await expectFits(page);

    // New folder and New file stay in the toolbar (as icons).
    for (const name of ['New folder', 'New file'])
      await expect(files.toolbar().getByRole('button', { name })).toBeInViewport();
    await files.create('New folder', 'made-on-phone');
    expect(existsSync(path.join(base, 'made-on-phone'))).toBe(true);
    await files.create('New file', 'made-on-phone.txt');
    expect(existsSync(path.join(base, 'made-on-phone.txt'))).toBe(true);

    await files.item('summary.txt').click();
    const bar = files.selectionBar();
    await expect(bar).toContainText('Selected: 1');
    await expect(bar.getByRole('button')).toHaveText(['Share', 'Rename', 'Copy', 'Move', 'Compress', 'Delete', '']);
    for (const name of ['Copy', 'Move']) await expect(bar.getByRole('button', { name })).toBeInViewport();
    await expectFits(page);
    await shot(page, 'variants-phone-selection');

    for (const name of ['Copy', 'Move']) {
      await bar.getByRole('button', { name }).click();
      const picker = page.getByRole('dialog', { name });
      await expect(picker.getByRole('button', { name: 'docs' })).toBeInViewport();
      await expect(picker.getByRole('button', { name, exact: true })).toBeInViewport();
      if (name === 'Move') await shot(page, 'variants-phone-move');
      await page.keyboard.press('Escape');
      await expect(picker).toHaveCount(0);
    }
    // Download is no selection action: it stays in the toolbar, with the count.
    const download = files.toolbar().getByRole('button', { name: /^Download/ });
    await expect(download).toBeInViewport();
    await expect(download).toContainText('1');
    const started = page.waitForEvent('download');
    await download.click();
    expect((await started).suggestedFilename()).toBe('summary.txt');

    const view = page.getByRole('button', { name: /^Switch view/ });
    for (const mode of ['Mosaic', 'Gallery']) {
      await view.click();
      await expect(view).toContainText(mode);
      await expect(files.item('photo.png')).toBeVisible();
      await expectFits(page);
      const boxes = await files.items().evaluateAll((els) =>
        els.map((e) => ({
          top: Math.round(e.getBoundingClientRect().top),
          right: e.getBoundingClientRect().right,
        })),
      );
      expect(Math.max(...boxes.map((b) => b.right))).toBeLessThanOrEqual(375);
      // The gallery keeps two pictures a row on a phone; the mosaic's wider tiles take one.
      const perRow = Math.max(...boxes.map((b) => boxes.filter((o) => o.top === b.top).length));
      expect(perRow).toBe(mode === 'Gallery' ? 2 : 1);
      await shot(page, `variants-phone-${mode.toLowerCase()}`);
    }
    await view.click();
    await expect(view).toContainText('List');
  });
});

test.describe('thumbnails', () => {
  test.afterEach(async ({ server }) => {
    await listByName(server.url);
  });

  test('an image in the mosaic shows its lazy thumbnail; other files and a broken image show an icon', async ({
    page,
    server,
  }) => {
    seed(server.root, 'variants-thumbs', {
      'pic.png': png(96, 64, [200, 60, 40]),
      'notes.txt': 'hello',
      'broken.jpg': 'not a picture',
    });
    await updateUser(server.url, 1, { viewMode: 'mosaic', sorting: { by: 'name', asc: false } }, [
      'viewMode',
      'sorting',
    ]);
    await signInWithToken(page, server.url);
    const files = new Files(page);
    const thumb = page.waitForResponse(
      (r) => new URL(r.url()).pathname === '/api/preview/thumb/variants-thumbs/pic.png',
    );
    await files.goto('variants-thumbs/');
    await expect(page.getByRole('button', { name: /^Switch view/ })).toContainText('Mosaic');
    const img = files.item('pic.png').locator('img');
    await expect(img).toHaveAttribute('src', /\/api\/preview\/thumb\/variants-thumbs\/pic\.png\?/);
    await expect(img).toHaveAttribute('loading', 'lazy');
    const answer = await thumb;
    expect(answer.status()).toBe(200);
    expect(answer.headers()['content-type']).toMatch(/^image\//);
    await expect
      .poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth))
      .toBeGreaterThan(0);
    await expect(files.item('notes.txt').locator('img')).toHaveCount(0);
    await expect(files.item('notes.txt').locator('svg')).toHaveCount(1);
    // The server cannot make a thumbnail of it: the file icon, not a broken picture.
    await expect(files.item('broken.jpg').locator('img')).toHaveCount(0);
    await expect(files.item('broken.jpg').locator('svg')).toHaveCount(1);
    await shot(page, 'variants-thumbs-mosaic');
  });

  test('a video in the mosaic shows a frame as its thumbnail and the player that frame as its poster; a broken video shows an icon', async ({
    page,
    server,
  }) => {
    seed(server.root, 'variants-video', { 'clip.mp4': mp4(2, 'red'), 'broken.mp4': 'not a video' });
    await updateUser(server.url, 1, { viewMode: 'mosaic' }, ['viewMode']);
    await signInWithToken(page, server.url);
    const files = new Files(page);
    const thumb = page.waitForResponse(
      (r) => new URL(r.url()).pathname === '/api/preview/thumb/variants-video/clip.mp4',
    );
    await files.goto('variants-video/');
    expect(await page.evaluate(() => window.FileBrowser?.EnableVideoThumbs)).toBe(true);
    const img = files.item('clip.mp4').locator('img');
    await expect(img).toHaveAttribute('src', /\/api\/preview\/thumb\/variants-video\/clip\.mp4\?/);
    const answer = await thumb;
    expect(answer.status()).toBe(200);
    expect(answer.headers()['content-type']).toBe('image/jpeg');
    await expect
      .poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth))
      .toBe(256);
    // A red frame: the thumbnail shows the video, not some other picture.
    const red = await img.evaluate((el: HTMLImageElement) => {
      const c = document.createElement('canvas');
      c.width = c.height = 1;
      const g = c.getContext('2d')!;
      g.drawImage(el, 128, 128, 1, 1, 0, 0, 1, 1);
      return [...g.getImageData(0, 0, 1, 1).data];
    });
    expect(red[0]).toBeGreaterThan(200);
    await expect(files.item('broken.mp4').locator('img')).toHaveCount(0);
    await expect(files.item('broken.mp4').locator('svg')).toHaveCount(1);
    await shot(page, 'variants-video-mosaic');

    const poster = page.waitForResponse(
      (r) => new URL(r.url()).pathname === '/api/preview/big/variants-video/clip.mp4',
    );
    await page.goto('files/variants-video/clip.mp4');
    const video = page.getByLabel('clip.mp4', { exact: true });
    await expect(video).toHaveAttribute('poster', /\/api\/preview\/big\/variants-video\/clip\.mp4\?inline=true&key=/);
    expect((await poster).status()).toBe(200);
  });

  test.describe('with --disable-thumbnails', () => {
    let plain: RunningServer;
    test.beforeAll(async () => {
      plain = await startServer({ args: ['--disable-thumbnails'] });
    });
    test.afterAll(async () => {
      await plain.stop();
    });

    test('an image shows an icon and no thumbnail is asked for', async ({ page }) => {
      seed(plain.root, 'thumbs-off', { 'pic.png': png(96, 64), 'notes.txt': 'hello' });
      await updateUser(plain.url, 1, { viewMode: 'mosaic' }, ['viewMode']);
      await signInWithToken(page, plain.url);
      const previews: string[] = [];
      page.on('request', (r) => {
        if (new URL(r.url()).pathname.startsWith('/api/preview/')) previews.push(r.url());
      });
      await page.goto(`${plain.url}/files/thumbs-off/`);
      const files = new Files(page);
      await expect(files.item('pic.png')).toBeVisible({ timeout: 30_000 });
      await expect(page.getByRole('button', { name: /^Switch view/ })).toContainText('Mosaic');
      await expect(files.item('pic.png').locator('svg')).toHaveCount(1);
      await expect(files.item('pic.png').locator('img')).toHaveCount(0);
      expect(await page.evaluate(() => window.FileBrowser?.EnableThumbs)).toBe(false);
      expect(previews).toEqual([]);
    });
  });
});

test.describe('the search overlay type chips', () => {
  test('each chip puts its type in the query and finds only files of that type', async ({ page, server }) => {
    seed(server.root, 'variants-search', {
      'a.jpg': 1,
      'b.mp3': 1,
      'c.mp4': 1,
      'd.pdf': 1,
      'e.txt': 1,
      'inner/f.jpg': 1,
    });
    await listByName(server.url);
    await signInWithToken(page, server.url);
    const files = new Files(page);
    await files.goto('variants-search/');
    await new Shell(page).searchButton().click();
    const dialog = page.getByRole('dialog', { name: 'Search' });
    const box = dialog.getByRole('searchbox');
    const chips = dialog.getByRole('group', { name: 'Types' });
    for (const [chip, type, found] of [
      ['Images', 'image', ['a.jpg', 'inner/f.jpg']],
      ['Music', 'audio', ['b.mp3']],
      ['Video', 'video', ['c.mp4']],
      ['PDF', 'pdf', ['d.pdf']],
    ] as const) {
      await box.fill('');
      await chips.getByRole('button', { name: chip, exact: true }).click();
      await expect(box).toHaveValue(`type:${type} `);
      // The chip hands the focus back to the box: Enter searches, typing goes on after the type.
      await expect(box).toBeFocused();
      const answer = page.waitForResponse((r) => new URL(r.url()).pathname.startsWith('/api/search/'));
      await page.keyboard.press('Enter');
      const response = await answer;
      expect(new URL(response.url()).searchParams.get('query')).toBe(`type:${type}`);
      // Searching since Enter; done once every result has streamed in.
      await expect(dialog.locator('.search__results')).toHaveAttribute('aria-busy', 'false');
      await expect(dialog.getByRole('link')).toHaveText([...found]);
    }
    await shot(page, 'variants-search-chips');
    // Typing after a chip continues the text at its end.
    await box.fill('inner');
    await chips.getByRole('button', { name: 'Images', exact: true }).click();
    await page.keyboard.type('f');
    await expect(box).toHaveValue('type:image inner f');
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
  });
});

declare global {
  interface Window {
    FileBrowser?: Record<string, unknown>;
  }
}
