/**
 * The file browser's ways of working with items (docs/client.md §2 "File browser"): the header actions,
 * multiple-selection mode, long press, drag and drop, the context menu, keyboard moves, scroll
 * memory on back/forward, re-selection after changes and the help prompt.
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { createUser, listByName, updateUser } from '../support/api';
import { expect, PHONE, shot, test } from '../support/fixtures';
import { seed } from '../support/seed';
import { Files, WITH_SELECTION } from '../pages/Files';
import { signInWithToken } from '../pages/LoginPage';

// Each test loads the client at least once; on a busy machine that alone can take many seconds.
test.describe.configure({ timeout: 90_000 });

/** The admin in list view, sorted by name, opening with a double click (or with one). */
const resetAdmin = (url: string, singleClick = false) => listByName(url, { singleClick });

test.describe('the file toolbar', () => {
  test.beforeEach(async ({ page, server }) => {
    await resetAdmin(server.url);
    await signInWithToken(page, server.url);
  });

  test('shows the header actions in the spec order; with a selection its actions lead, named, the rest in the More menu', async ({
    page,
    server,
  }) => {
    seed(server.root, 'tb', { 'a.txt': 1, 'b.txt': 1 });
    const files = new Files(page);
    await files.goto('tb/');
    await expect
      .poll(() => files.toolbarButtons())
      .toEqual([
        'New folder',
        'New file',
        'Switch view List',
        'Download',
        'Upload',
        'Info',
        'Select multiple',
      ]);
    await files.item('a.txt').click();
    await expect.poll(() => files.toolbarButtons()).toEqual(WITH_SELECTION.line);
    expect(await files.offered()).toEqual(WITH_SELECTION.offered);
  });

  test('multiple-selection mode: clicks add and remove, Escape or the toggle ends it', async ({
    page,
    server,
  }) => {
    seed(server.root, 'multi', { 'a.txt': 1, 'b.txt': 1, 'c.txt': 1 });
    const files = new Files(page);
    await files.goto('multi/');
    const toggle = files.action('Select multiple');
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-pressed', 'true');
    await expect(files.selectionBar()).toContainText('Selected: 0');
    await files.item('a.txt').click();
    await files.item('c.txt').click();
    await files.expectSelected(['a.txt', 'c.txt']);
    await files.item('a.txt').click();
    await files.expectSelected(['c.txt']);
    await files.item('b.txt').click();
    await shot(page, 'files-multiple');
    await page.keyboard.press('Escape');
    await expect(toggle).toHaveAttribute('aria-pressed', 'false');
    await files.expectSelected([]);

    // Turning the mode off with the toggle keeps the selection; plain clicks replace it again.
    await toggle.click();
    await files.item('a.txt').click();
    await files.item('b.txt').click();
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-pressed', 'false');
    await files.expectSelected(['a.txt', 'b.txt']);
    await files.item('c.txt').click();
    await files.expectSelected(['c.txt']);
  });

  test('in single-click mode a click opens, but toggles in multiple-selection mode', async ({
    page,
    server,
  }) => {
    seed(server.root, 'single', { 'a.txt': 1 }, ['sub']);
    // The session is renewed when the page starts, so the user's new preference applies.
    await resetAdmin(server.url, true);
    const files = new Files(page);
    await files.goto('single/');
    await files.action('Select multiple').click();
    await files.item('sub').click();
    await files.expectSelected(['sub']);
    await expect(page).toHaveURL(/\/files\/single\/$/);
    await files.action('Select multiple').click();
    await files.item('sub').click();
    await expect(page).toHaveURL(/\/files\/single\/sub\/$/);
  });
});

test.describe('the file toolbar on a phone', () => {
  test.use(PHONE);

  test('multiple-selection mode shows check boxes and the bar with the count and select all', async ({
    page,
    server,
  }) => {
    seed(server.root, 'phone-multi', { 'report.pdf': 2000, 'notes.txt': 30, 'photo.jpg': 10 }, ['docs']);
    await resetAdmin(server.url);
    await signInWithToken(page, server.url);
    const files = new Files(page);
    await files.goto('phone-multi/');
    await files.action('Select multiple').click();
    await files.item('report.pdf').tap();
    await files.item('notes.txt').tap();
    const bar = files.selectionBar();
    await expect(bar).toContainText('Selected: 2');
    await expect(bar.getByRole('button', { name: 'Delete' })).toBeVisible();
    await shots(page, 'files-multiple');
    await bar.getByRole('button', { name: 'Select all' }).tap();
    await expect(bar).toContainText('Selected: 4');
    await bar.getByRole('button', { name: 'Clear selection' }).tap();
    await expect(bar).toBeHidden();
    await expect(files.action('Select multiple')).toHaveAttribute('aria-pressed', 'false');
  });
});

/**
 * Screenshots in the light and the dark theme; the page is never wider than the window (at 375 px
 * nothing may scroll sideways).
 */
async function shots(page: Page, name: string) {
  await shot(page, name);
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect(page.locator('html')).toHaveClass(/\bdark\b/);
  await shot(page, `${name}-dark`);
  await page.emulateMedia({ colorScheme: 'light' });
  await expect(page.locator('html')).not.toHaveClass(/\bdark\b/);
  const width = page.viewportSize()!.width;
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
}

/** Touches driven over the DevTools protocol: Playwright's touchscreen only taps. */
async function touchscreen(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  const send = (type: 'touchStart' | 'touchMove' | 'touchEnd', at?: { x: number; y: number }) =>
    cdp.send('Input.dispatchTouchEvent', { type, touchPoints: at ? [at] : [] });
  return {
    start: (at: { x: number; y: number }) => send('touchStart', at),
    move: (at: { x: number; y: number }) => send('touchMove', at),
    end: () => send('touchEnd'),
  };
}

async function centre(locator: Locator) {
  const box = await locator.boundingBox();
  if (!box) throw new Error('not visible');
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

test.describe('long press', () => {
  test.describe('on a phone', () => {
    test.use(PHONE);

    test('500 ms selects and starts multiple selection; moving more than 10 px cancels; no tap or menu follows', async ({
      page,
      server,
    }) => {
      seed(server.root, 'press', { 'a.txt': 1, 'b.txt': 1, 'c.txt': 1 });
      await resetAdmin(server.url);
      await signInWithToken(page, server.url);
      const files = new Files(page);
      await files.goto('press/');
      const touch = await touchscreen(page);

      // a: held, but moved 20 px away, then let go.
      const a = await centre(files.item('a.txt'));
      await touch.start(a);
      await touch.move({ x: a.x + 20, y: a.y });
      await touch.end();
      // b: held still (a 5 px wobble is fine) until it is selected; that is later than a would have been.
      const b = await centre(files.item('b.txt'));
      await touch.start(b);
      await touch.move({ x: b.x + 3, y: b.y + 4 });
      await expect(files.item('b.txt')).toHaveAttribute('aria-selected', 'true');
      await expect(files.action('Select multiple')).toHaveAttribute('aria-pressed', 'true');
      await shots(page, 'files-long-press');
      await touch.end();
      // A tap now toggles c; had a tap followed the long press, b would have been toggled off.
      await files.item('c.txt').tap();
      await files.expectSelected(['b.txt', 'c.txt']);
      await expect(files.menu()).toHaveCount(0);
      await expect(files.selectionBar()).toContainText('Selected: 2');
    });
  });

  test.describe('double tap on a phone', () => {
    test.use(PHONE);

    test('opens a folder or a file like a double click; two taps far apart only select', async ({ page, server }) => {
      seed(server.root, 'dtap', { 'a.txt': 1, 'b.txt': 1 }, ['sub']);
      await resetAdmin(server.url);
      await signInWithToken(page, server.url);
      const files = new Files(page);
      await files.goto('dtap/');
      const touch = await touchscreen(page);
      const tap = async (at: { x: number; y: number }) => {
        await touch.start(at);
        await touch.end();
      };

      // Two taps more than 300 ms apart (docs/client.md §9): the item is selected, nothing opens.
      const a = await centre(files.item('a.txt'));
      await tap(a);
      await files.expectSelected(['a.txt']);
      await page.waitForTimeout(400); // the gap is what this step checks
      await tap(a);
      await expect(page).toHaveURL(/\/files\/dtap\/$/);

      // Within 300 ms on a folder: it opens.
      // Chromium turns two taps into a dblclick; Safari on iOS does not. Without one, two quick
      // taps on a folder still open it.
      await page.evaluate(() => {
        window.addEventListener('dblclick', (e) => e.stopImmediatePropagation(), { capture: true, once: true });
      });
      const sub = await centre(files.item('sub'));
      await tap(sub);
      await tap(sub);
      await expect(page).toHaveURL(/\/files\/dtap\/sub\/$/);
      await page.goBack();

      // And on a file, with Chromium's own dblclick too: it opens in the editor once (Back returns
      // to the folder, not to a second copy of the file).
      const b = await centre(files.item('b.txt'));
      await tap(b);
      await tap(b);
      await expect(page).toHaveURL(/\/files\/dtap\/b\.txt$/);
      await page.goBack();
      await expect(page).toHaveURL(/\/files\/dtap\/$/);
    });
  });

  test('with the mouse in single-click mode it selects instead of opening', async ({ page, server }) => {
    seed(server.root, 'press-mouse', { 'a.txt': 1 }, ['sub']);
    await resetAdmin(server.url, true);
    await signInWithToken(page, server.url);
    const files = new Files(page);
    await files.goto('press-mouse/');
    const sub = await centre(files.item('sub'));
    await page.mouse.move(sub.x, sub.y);
    await page.mouse.down();
    await expect(files.item('sub')).toHaveAttribute('aria-selected', 'true');
    await page.mouse.up();
    await expect(files.action('Select multiple')).toHaveAttribute('aria-pressed', 'true');
    await files.item('a.txt').click();
    await files.expectSelected(['sub', 'a.txt']);
    await expect(page).toHaveURL(/\/files\/press-mouse\/$/);
  });
});

test.describe('drag and drop', () => {
  test.beforeEach(async ({ page, server }) => {
    await resetAdmin(server.url);
    await signInWithToken(page, server.url);
  });

  test('moves the selected items onto a folder and onto a breadcrumb, never into themselves', async ({
    page,
    server,
  }) => {
    const base = seed(server.root, 'dnd', { 'a.txt': 1, 'b.txt': 2, 'c.txt': 3 }, ['inbox', 'other']);
    const files = new Files(page);
    await files.goto('dnd/');
    await files.item('a.txt').click();
    await files.item('b.txt').click({ modifiers: ['ControlOrMeta'] });

    // Held over the folder: it is highlighted as the drop target.
    const a = await centre(files.item('a.txt'));
    await page.mouse.move(a.x, a.y);
    await page.mouse.down();
    const inbox = await centre(files.item('inbox'));
    await page.mouse.move(inbox.x, inbox.y - 4, { steps: 4 });
    await page.mouse.move(inbox.x, inbox.y, { steps: 2 });
    await expect(files.item('inbox')).toHaveClass(/item--drop/);
    await shot(page, 'files-drag');
    await page.mouse.up();
    await expect(files.item('a.txt')).toHaveCount(0);
    await expect(files.item('b.txt')).toHaveCount(0);
    await files.expectSelected(['inbox']);
    expect(existsSync(path.join(base, 'inbox/a.txt'))).toBe(true);
    expect(existsSync(path.join(base, 'inbox/b.txt'))).toBe(true);

    // A folder cannot go into itself: nothing happens.
    await files.item('other').dragTo(files.item('other'));
    await expect(files.item('other')).toBeVisible();
    expect(existsSync(path.join(base, 'other'))).toBe(true);

    // In the destination the moved items are selected; dragged onto the crumb of its parent,
    // they go back there and are selected there in turn.
    await files.item('inbox').dblclick();
    await expect(page).toHaveURL(/\/files\/dnd\/inbox\/$/);
    await files.expectSelected(['a.txt', 'b.txt']);
    await files.item('a.txt').dragTo(files.crumb('dnd'));
    await expect(files.items()).toHaveCount(0);
    expect(existsSync(path.join(base, 'a.txt'))).toBe(true);
    expect(existsSync(path.join(base, 'b.txt'))).toBe(true);
    await files.crumb('dnd').click();
    await files.expectSelected(['a.txt', 'b.txt']);
  });
});

test.describe('drag and drop without the rename permission', () => {
  test('nothing can be dragged', async ({ page, server }) => {
    seed(server.root, 'nodrag', { 'a.txt': 1 }, ['box']);
    await createUser(server.url, {
      username: 'no-rename',
      password: 'no-rename-password-2024',
      perm: { rename: false },
    });
    await signInWithToken(page, server.url, 'no-rename', 'no-rename-password-2024');
    const files = new Files(page);
    await files.goto('nodrag/');
    await expect(files.item('a.txt')).toHaveAttribute('draggable', 'false');
    await files.item('a.txt').dragTo(files.item('box'));
    await expect(files.item('a.txt')).toBeVisible();
    expect(existsSync(path.join(server.root, 'nodrag/a.txt'))).toBe(true);
  });
});

test.describe('the context menu', () => {
  test.beforeEach(async ({ page, server }) => {
    await resetAdmin(server.url);
    await signInWithToken(page, server.url);
  });

  test('a right click selects the item and offers its actions; keyboard, Escape and outside clicks', async ({
    page,
    server,
  }) => {
    seed(server.root, 'ctx', { 'notes.txt': 5, 'report.txt': 7 }, ['sub']);
    const files = new Files(page);
    await files.goto('ctx/');
    await files.item('report.txt').click();
    await files.item('notes.txt').click({ button: 'right' });
    await files.expectSelected(['notes.txt']);
    const menu = files.menu();
    await expect(menu).toHaveAccessibleName('Actions for “notes.txt”');
    await expect(files.menuItems()).toHaveText([
      'Open',
      'DownloadCtrl+S',
      'Share',
      'Info',
      'RenameF2',
      'Copy',
      'Move',
      'Compress',
      'DeleteDel',
    ]);
    await expect(files.menuItems().first()).toBeFocused();
    await shots(page, 'files-context-menu');
    await page.keyboard.press('ArrowDown');
    await expect(menu.getByRole('menuitem', { name: 'Download' })).toBeFocused();
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    await expect(menu.getByRole('menuitem', { name: 'Delete' })).toBeFocused();
    await page.keyboard.press('Home');
    await expect(menu.getByRole('menuitem', { name: 'Open' })).toBeFocused();
    // Escape closes only the menu: the selection stays and focus goes back to the item.
    await page.keyboard.press('Escape');
    await expect(menu).toHaveCount(0);
    await files.expectSelected(['notes.txt']);
    await expect(files.item('notes.txt')).toBeFocused();

    // Shift+F10 opens it from the keyboard; Enter runs an entry.
    await page.keyboard.press('Shift+F10');
    await expect(menu).toBeVisible();
    await menu.getByRole('menuitem', { name: 'Rename' }).focus();
    await page.keyboard.press('Enter');
    const rename = page.getByRole('dialog', { name: 'Rename' });
    await expect(rename.getByRole('textbox')).toHaveValue('notes.txt');
    await page.keyboard.press('Escape');
    await expect(rename).toHaveCount(0);

    // On an item of a larger selection it acts on all of them: no rename or share.
    await files.item('report.txt').click({ modifiers: ['ControlOrMeta'] });
    await files.item('report.txt').click({ button: 'right' });
    await files.expectSelected(['notes.txt', 'report.txt']);
    await expect(menu).toHaveAccessibleName('Selected: 2');
    await expect(files.menuItems()).toHaveText([
      'Open',
      'DownloadCtrl+S',
      'Info',
      'Copy',
      'Move',
      'Compress',
      'DeleteDel',
    ]);
    await page.getByRole('heading', { level: 1 }).click();
    await expect(menu).toHaveCount(0);

    // Opening a folder from the menu.
    await files.item('sub').click({ button: 'right' });
    await menu.getByRole('menuitem', { name: 'Open' }).click();
    await expect(page).toHaveURL(/\/files\/ctx\/sub\/$/);
  });

  test('stays inside the window near its edges', async ({ page, server }) => {
    seed(server.root, 'ctx-edge', { 'edge.txt': 1 });
    const files = new Files(page);
    await files.goto('ctx-edge/');
    const box = (await files.item('edge.txt').boundingBox())!;
    await files.item('edge.txt').click({ button: 'right', position: { x: box.width - 5, y: 10 } });
    await expectInViewport(page, files.menu());
  });
});

test.describe('the context menu right to left', () => {
  test('opens towards the left in Hebrew and stays inside the window', async ({ page, server }) => {
    seed(server.root, 'ctx-rtl', { 'a.txt': 1 });
    await createUser(server.url, { username: 'rtl-menu', password: 'rtl-menu-password-2024', locale: 'he' });
    await signInWithToken(page, server.url, 'rtl-menu', 'rtl-menu-password-2024');
    const files = new Files(page);
    await files.goto('ctx-rtl/');
    await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
    const item = page.getByRole('option', { name: 'a.txt', exact: true });
    const box = (await item.boundingBox())!;
    await item.click({ button: 'right', position: { x: box.width / 2, y: box.height / 2 } });
    await expect(files.menu()).toBeVisible();
    const menu = (await files.menu().boundingBox())!;
    expect(menu.x + menu.width).toBeLessThanOrEqual(box.x + box.width / 2 + 1);
    await expectInViewport(page, files.menu());
    await shots(page, 'files-context-menu-rtl');
  });
});

test.describe('the context menu on a phone', () => {
  test.use(PHONE);

  test('fits the narrow screen', async ({ page, server }) => {
    seed(server.root, 'ctx-phone', { 'a-long-file-name-for-the-menu.txt': 1, 'b.txt': 2 });
    await resetAdmin(server.url);
    await signInWithToken(page, server.url);
    const files = new Files(page);
    await files.goto('ctx-phone/');
    const item = files.item('b.txt');
    const box = (await item.boundingBox())!;
    await item.click({ button: 'right', position: { x: box.width - 10, y: box.height / 2 } });
    await expect(files.menu()).toBeVisible();
    await expectInViewport(page, files.menu());
    // No keyboard shortcut hints on a touch screen.
    await expect(files.menu().locator('kbd').first()).toBeHidden();
    await shots(page, 'files-context-menu');
  });
});

async function expectInViewport(page: Page, locator: Locator) {
  const size = page.viewportSize()!;
  const box = (await locator.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.y).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(size.width);
  expect(box.y + box.height).toBeLessThanOrEqual(size.height);
}

test.describe('keyboard moves', () => {
  test.beforeEach(async ({ page, server }) => {
    await resetAdmin(server.url);
    await signInWithToken(page, server.url);
  });

  test('arrows move and Shift+arrows extend the selection; Home/End; the item scrolls into view', async ({
    page,
    server,
  }) => {
    const names = Array.from({ length: 60 }, (_, i) => `f${String(i + 1).padStart(2, '0')}.txt`);
    seed(server.root, 'keys', Object.fromEntries(names.map((n) => [n, 1])));
    const files = new Files(page);
    await files.goto('keys/');
    // From the page itself, Down enters the listing at the first item.
    await page.locator('body').press('ArrowDown');
    await files.expectSelected(['f01.txt']);
    await page.keyboard.press('ArrowDown');
    await files.expectSelected(['f02.txt']);
    expect(await files.focusedName()).toBe('f02.txt');
    await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('Shift+ArrowDown');
    await files.expectSelected(['f02.txt', 'f03.txt', 'f04.txt']);
    await page.keyboard.press('Shift+ArrowUp');
    await files.expectSelected(['f02.txt', 'f03.txt']);
    await page.keyboard.press('End');
    await files.expectSelected(['f60.txt']);
    await expect(files.item('f60.txt')).toBeInViewport();
    expect(await files.focusedName()).toBe('f60.txt');
    await page.keyboard.press('Home');
    await files.expectSelected(['f01.txt']);
    await expect(files.item('f01.txt')).toBeInViewport();
    // Ctrl moves the focus only; Space adds the focused item.
    await page.keyboard.press('ControlOrMeta+ArrowDown');
    await page.keyboard.press('ControlOrMeta+ArrowDown');
    await page.keyboard.press('Space');
    await files.expectSelected(['f01.txt', 'f03.txt']);
    // Going down past the window scrolls the listing so the item stays visible.
    await page.keyboard.press('ArrowDown');
    for (let i = 0; i < 25; i++) await page.keyboard.press('ArrowDown');
    await files.expectSelected(['f29.txt']);
    await expect(files.item('f29.txt')).toBeInViewport({ ratio: 1 });
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/\/files\/keys\/f29\.txt$/);
  });

  test('in the mosaic Left/Right step by one item and Up/Down by a row', async ({ page, server }) => {
    const names = Array.from({ length: 12 }, (_, i) => `m${String(i + 1).padStart(2, '0')}.txt`);
    seed(server.root, 'grid', Object.fromEntries(names.map((n) => [n, 1])));
    await updateUser(server.url, 1, { viewMode: 'mosaic' }, ['viewMode']);
    const files = new Files(page);
    await files.goto('grid/');
    await expect(page.getByRole('button', { name: /^Switch view/ })).toContainText('Mosaic');
    const tops = await files
      .items()
      .evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().top)));
    const columns = tops.filter((t) => t === tops[0]).length;
    expect(columns).toBeGreaterThan(1);
    await files.item('m01.txt').click();
    await page.keyboard.press('ArrowRight');
    await files.expectSelected(['m02.txt']);
    await page.keyboard.press('ArrowDown');
    await files.expectSelected([names[1 + columns]!]);
    await page.keyboard.press('ArrowLeft');
    await files.expectSelected([names[columns]!]);
    await page.keyboard.press('Shift+ArrowUp');
    await files.expectSelected(names.slice(0, columns + 1));
  });
});

test.describe('back and forward', () => {
  test.beforeEach(async ({ page, server }) => {
    await resetAdmin(server.url);
    await signInWithToken(page, server.url);
  });

  test('return to the scroll position and selection; a new visit starts at the top', async ({
    page,
    server,
  }) => {
    const dirs = Array.from({ length: 70 }, (_, i) => `d${String(i + 1).padStart(2, '0')}`);
    const base = seed(server.root, 'places', {}, dirs);
    for (let i = 1; i <= 60; i++)
      writeFileSync(path.join(base, 'd65', `x${String(i).padStart(2, '0')}.txt`), '');
    const files = new Files(page);
    const scrollY = () => page.evaluate(() => window.scrollY);
    await files.goto('places/');
    await files.item('d01').click();
    await page.keyboard.press('End');
    await expect(files.item('d70')).toBeInViewport();
    await files.item('d65').click();
    const y = await scrollY();
    expect(y).toBeGreaterThan(500);
    await files.item('d65').dblclick();
    await expect(page).toHaveURL(/\/places\/d65\/$/);
    await expect(files.item('x01.txt')).toBeInViewport();
    expect(await scrollY()).toBe(0);
    await page.evaluate(() => window.scrollTo(0, 400));
    await expect.poll(scrollY).toBe(400);

    await page.goBack();
    await expect(files.item('d65')).toHaveAttribute('aria-selected', 'true');
    await expect.poll(scrollY).toBe(y);
    await files.expectSelected(['d65']);

    await page.goForward();
    await expect(files.item('x10.txt')).toBeAttached();
    await expect.poll(scrollY).toBe(400);

    // A link to a folder seen before is a new visit: top, nothing selected.
    await files.crumb('places').click();
    await expect(files.item('d01')).toBeInViewport();
    expect(await scrollY()).toBe(0);
    await files.expectSelected([]);
  });
});

test.describe('selection after changes', () => {
  test.beforeEach(async ({ page, server }) => {
    await resetAdmin(server.url);
    await signInWithToken(page, server.url);
  });

  test('selects and shows new items after new file, paste and move', async ({ page, server }) => {
    const names = Array.from({ length: 40 }, (_, i) => `a${String(i + 1).padStart(2, '0')}.txt`);
    seed(server.root, 'resel', Object.fromEntries(names.map((n) => [n, 1])), ['box']);
    const files = new Files(page);
    await files.goto('resel/');

    await files.create('New file', 'zz-new.txt');
    await files.expectSelected(['zz-new.txt']);
    await expect(files.item('zz-new.txt')).toBeInViewport();

    // Back to the top: the listing is virtualized, a01.txt left the page when zz-new.txt was shown.
    await page.evaluate(() => window.scrollTo(0, 0));
    await files.item('a01.txt').click();
    await page.keyboard.press('ControlOrMeta+c');
    await page.keyboard.press('ControlOrMeta+v');
    await files.expectSelected(['a01(1).txt']);
    await expect(files.item('a01(1).txt')).toBeInViewport();

    await files.item('a02.txt').click();
    await files.action('Move').click();
    const picker = page.getByRole('dialog', { name: 'Move' });
    await picker.getByRole('button', { name: 'box' }).click();
    await expect(picker.locator('.picker__where')).toHaveText('Destination: /resel/box/');
    await picker.getByRole('button', { name: 'Move', exact: true }).click();
    await expect(files.item('a02.txt')).toHaveCount(0);
    await files.expectSelected(['box']);
    await files.item('box').dblclick();
    await files.expectSelected(['a02.txt']);
  });
});

test.describe('the help prompt', () => {
  const SPEC_KEYS = [
    'F1',
    'F2',
    'DEL',
    'ESC',
    'CTRL + S',
    'CTRL + SHIFT + F',
    'Ctrl + click',
    'Click',
    'Double click',
  ];
  const MORE = [
    'CTRL + C',
    'CTRL + X',
    'CTRL + V',
    'CTRL + A',
    '↑ ↓ ← →',
    'HOME / END',
    'ENTER',
    'SHIFT + F10',
    'Right click',
    'Long press',
  ];

  test('F1 and the help link list the shortcuts', async ({ page, server }) => {
    await resetAdmin(server.url);
    await signInWithToken(page, server.url);
    const files = new Files(page);
    await files.goto();
    await page.keyboard.press('F1');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    for (const key of [...SPEC_KEYS, ...MORE])
      await expect(help.getByText(key, { exact: true })).toBeVisible();
    await expect(help).toContainText('Move between items');
    await shots(page, 'files-help');
    await page.keyboard.press('Escape');
    await expect(help).toHaveCount(0);
    await page.getByRole('button', { name: 'Help' }).click();
    await expect(help).toBeVisible();
    await help.getByRole('button', { name: 'OK' }).click();
    await expect(help).toHaveCount(0);
  });

  test.describe('on a phone', () => {
    test.use(PHONE);
    test('scrolls inside the card', async ({ page, server }) => {
      await resetAdmin(server.url);
      await signInWithToken(page, server.url);
      const files = new Files(page);
      await files.goto();
      await page.getByRole('button', { name: 'Open menu' }).click();
      await page.getByRole('button', { name: 'Help' }).click();
      const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
      await expect(help).toBeVisible();
      await expectInViewport(page, help);
      await shots(page, 'files-help');
      await help.getByText('Drag onto a folder').scrollIntoViewIfNeeded();
      await expect(help.getByText('Drag onto a folder')).toBeInViewport();
    });
  });
});
