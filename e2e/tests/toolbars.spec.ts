/**
 * The toolbars on one line: the listing's and an open file's bars never scroll sideways nor stick
 * out, at 1280 px and on a 375 px phone, in English and in German, with and without a selection;
 * every action stays reachable (on the line or in the "More" menu); every icon has a tooltip; the
 * More menu works from the keyboard; the listing's toolbar and column header stay in view while a
 * long folder scrolls, in list, mosaic and gallery views.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { createUser, listByName } from '../support/api';
import { expect, PHONE, shot, test } from '../support/fixtures';
import { pdf } from '../support/media';
import { png } from '../support/png';
import { seed } from '../support/seed';
import { REPO } from '../support/server';
import { FileView } from '../pages/FileView';
import { Files } from '../pages/Files';
import { signIn, signInWithToken } from '../pages/LoginPage';

test.describe.configure({ timeout: 90_000 });

const DESKTOP = { viewport: { width: 1280, height: 800 } } as const;

type Strings = Record<string, unknown>;
const locale = (lang: string) =>
  JSON.parse(readFileSync(path.join(REPO, 'web/src/i18n/locales', `${lang}.json`), 'utf8')) as Strings;
/** A string of a locale file by its dotted key. */
function text(strings: Strings, key: string): string {
  const value = key.split('.').reduce<unknown>((o, k) => (o as Strings)[k], strings);
  if (typeof value !== 'string') throw new Error(`no string ${key}`);
  return value;
}

/** What the listing's toolbar offers, by name, in a language: without and with one selected file. */
function listingActions(lang: string) {
  const s = locale(lang);
  const none = [
    text(s, 'files.actions.newFolder'),
    text(s, 'files.actions.newFile'),
    `${text(s, 'files.switchView')} ${text(s, 'files.views.list')}`,
    text(s, 'files.actions.download'),
    text(s, 'upload.action'),
    text(s, 'files.actions.info'),
    text(s, 'files.actions.selectMultiple'),
  ];
  const selection = [
    ...none,
    ...['share', 'rename', 'copy', 'move', 'delete', 'compress', 'clearSelection'].map((a) =>
      text(s, `files.actions.${a}`),
    ),
  ];
  // The names the main actions keep at 1280 px: in German, with a file selected, the clearest
  // icons (delete, share) give theirs up first; copy and move keep theirs.
  const primary = {
    none: [text(s, 'files.actions.newFolder'), text(s, 'files.actions.newFile'), text(s, 'upload.action')],
    selection: (lang === 'en'
      ? ['share', 'rename', 'copy', 'move', 'delete', 'download']
      : ['copy', 'move']
    ).map((a) => text(s, `files.actions.${a}`)),
  };
  return { none, selection, primary };
}

/**
 * The bar is one line inside the window: it does not scroll sideways, none of its buttons sticks
 * out of it or of the window, and the page is no wider than the window.
 */
async function expectOneLine(page: Page, toolbar: Locator) {
  const width = page.viewportSize()!.width;
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
  const report = await toolbar.evaluate((bar, w) => {
    const box = bar.getBoundingClientRect();
    const scrolling = [bar, ...Array.from(bar.querySelectorAll<HTMLElement>('*'))]
      .filter((el) => el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).display !== 'inline')
      // A name kept for assistive technology only is clipped to a pixel on purpose.
      .filter((el) => el.clientWidth > 1)
      .map((el) => `${el.className}: ${el.scrollWidth} > ${el.clientWidth}`);
    const outside = Array.from(bar.querySelectorAll<HTMLElement>('button, a'))
      .filter((el) => {
        const r = el.getBoundingClientRect();
        if (r.width === 0 || getComputedStyle(el).position === 'fixed' || el.closest('.selection-bar'))
          return false;
        return r.left < box.left - 1 || r.right > box.right + 1 || r.left < 0 || r.right > w;
      })
      .map((el) => el.getAttribute('aria-label') ?? el.textContent);
    // One line: the items' middles all at the same height (within a few pixels of rounding).
    const middles = Array.from(bar.querySelectorAll<HTMLElement>('button, a'))
      .filter((el) => el.getBoundingClientRect().width > 0 && !el.closest('.selection-bar'))
      .map((el) => {
        const r = el.getBoundingClientRect();
        return r.top + r.height / 2;
      });
    const lines = Math.max(...middles) - Math.min(...middles) > 4 ? 2 : 1;
    return { scrolling, outside, lines };
  }, width);
  expect(report.scrolling, 'elements of the toolbar that scroll sideways').toEqual([]);
  expect(report.outside, 'buttons outside the toolbar or the window').toEqual([]);
  expect(report.lines, 'rows of items').toBe(1);
}

/** Every button of the bar that shows no name has it as its tooltip. */
async function expectTooltips(toolbar: Locator) {
  const bare = await toolbar.locator('button, a').evaluateAll((els) =>
    els
      .filter((el) => el.getBoundingClientRect().width > 0)
      .filter(
        (el) => !(el as HTMLElement).innerText.trim() || /^\d+$/.test((el as HTMLElement).innerText.trim()),
      )
      .filter((el) => !el.getAttribute('title'))
      .map((el) => el.outerHTML.slice(0, 80)),
  );
  expect(bare, 'icons without a tooltip').toEqual([]);
}

/** These buttons of the bar show their names (not only an icon). */
async function expectNamed(toolbar: Locator, names: string[]) {
  for (const name of names) {
    const button = toolbar.getByRole('button', { name: new RegExp(`^${name}`) }).first();
    // Its name is drawn (not a name clipped to a pixel for assistive technology only).
    const drawn = (el: Element, text: string) =>
      Array.from(el.querySelectorAll('span')).some(
        (span) => span.textContent === text && span.getBoundingClientRect().width > 1,
      );
    await expect.poll(() => button.evaluate(drawn, name), { message: `${name} shows its name` }).toBe(true);
  }
}

/** Names without the download count ("Download1" is the button with its badge). */
const sorted = (names: string[]) => names.map((n) => n.replace(/\d+$/, '')).sort();

for (const [device, size] of [
  ['desktop', DESKTOP],
  ['phone', PHONE],
] as const) {
  test.describe(`on the ${device}`, () => {
    test.use(size);

    for (const lang of ['en', 'de']) {
      test(`the listing's toolbar fits and offers every action, in ${lang}, with and without a selection`, async ({
        page,
        server,
      }) => {
        const folder = `toolbars-${device}-${lang}`;
        seed(server.root, folder, { 'notes.txt': 'hello', 'photo.png': png(64, 48) }, ['docs']);
        const user = { username: `tb-${device}-${lang}`, password: 'toolbar-password-2024' };
        await createUser(server.url, { ...user, locale: lang, scope: `/${folder}` });
        await signInWithToken(page, server.url, user.username, user.password);
        const strings = locale(lang);
        const files = new Files(page, {
          toolbar: text(strings, 'files.actions.label'),
          more: text(strings, 'common.moreActions'),
        });
        await page.goto('files/');
        const toolbar = files.toolbar();
        await expect(toolbar).toBeVisible({ timeout: 30_000 });
        const expected = listingActions(lang);

        await expect(page.getByRole('option').first()).toBeVisible();
        await expectOneLine(page, toolbar);
        await expectTooltips(toolbar);
        expect(sorted(await files.offered())).toEqual(sorted(expected.none));
        // The main actions keep their names on a desktop; a phone's bar is icons.
        if (device === 'desktop') await expectNamed(toolbar, expected.primary.none);
        await shot(page, `toolbars-listing-${lang}`);

        await page.getByRole('option', { name: 'notes.txt' }).click();
        await expect(page.getByRole('option', { name: 'notes.txt' })).toHaveAttribute(
          'aria-selected',
          'true',
        );
        await expectOneLine(page, toolbar);
        await expectTooltips(toolbar);
        expect(sorted(await files.offered())).toEqual(sorted(expected.selection));
        if (device === 'desktop') await expectNamed(toolbar, expected.primary.selection);
        await shot(page, `toolbars-listing-${lang}-selection`);
      });
    }

    test("an open file's toolbar fits and offers every action: image, PDF and editor", async ({
      page,
      server,
    }) => {
      seed(server.root, `toolbars-files-${device}`, {
        'a-photo.png': png(800, 500),
        'b-doc.pdf': pdf('A document'),
        'c-notes.txt': 'hello\n',
      });
      await listByName(server.url);
      // Through the login screen: the token's init script would also run in the PDF's frame, which
      // has no session storage.
      await signIn(page);
      const view = new FileView(page);
      const common = [
        'Close',
        'Previous file',
        'Next file',
        'Download',
        'Share',
        'File information',
        'Rename',
        'Delete',
      ];
      const own: Record<string, string[]> = {
        'a-photo.png': ['Zoom out', 'Zoom in', 'Actual size'],
        'b-doc.pdf': ['Open in a new tab'],
        'c-notes.txt': ['Save'],
      };
      for (const [name, controls] of Object.entries(own)) {
        await page.goto(`files/toolbars-files-${device}/${name}`);
        await view.expectOpen(name);
        if (name === 'c-notes.txt') await expect(view.editor(name)).toBeVisible();
        // Previous and next come with the folder's listing (they never leave the line).
        await expect(view.button('Next file')).toBeVisible();
        await expectOneLine(page, view.toolbar());
        await expectTooltips(view.toolbar());
        expect(sorted(await fileOffers(view))).toEqual(sorted([...common, ...controls]));
        await shot(page, `toolbars-file-${name.replace(/\W/g, '-')}`);
        // What did not fit still works from the menu: Delete asks.
        await view.run('Delete');
        const ask = page.getByRole('dialog', { name: 'Move to trash' });
        await expect(ask).toBeVisible();
        await page.keyboard.press('Escape');
        await expect(ask).toHaveCount(0);
      }
    });

    test('the toolbar and the column header stay in view while a long folder scrolls, in every view', async ({
      page,
      server,
    }) => {
      const many: Record<string, string> = {};
      for (let i = 0; i < 150; i++) many[`file-${String(i).padStart(3, '0')}.txt`] = 'x';
      seed(server.root, `toolbars-long-${device}`, many);
      await signInWithToken(page, server.url);
      const files = new Files(page);
      for (const viewMode of ['list', 'mosaic', 'mosaic gallery']) {
        await listByName(server.url, { viewMode });
        await files.goto(`toolbars-long-${device}/`);
        await expect(files.items().first()).toBeVisible();
        await page.evaluate(() => window.scrollTo(0, 2500));
        await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(2000);
        const header = page.getByRole('group', { name: 'Sort by' });
        const bar = await files.toolbar().boundingBox();
        const columns = await header.boundingBox();
        // Right under the page header (56 px), then the column header under the toolbar.
        expect(bar!.y).toBeGreaterThanOrEqual(56);
        expect(bar!.y).toBeLessThan(70);
        expect(columns!.y).toBeGreaterThan(bar!.y + bar!.height - 1);
        expect(columns!.y).toBeLessThan(bar!.y + bar!.height + 20);
        await expect(files.toolbar()).toBeInViewport();
        await expect(header).toBeInViewport();
        // What is under the column header is hidden by it: the element at its middle is its own.
        const middle = { x: columns!.x + columns!.width / 2, y: columns!.y + columns!.height / 2 };
        expect(
          await page.evaluate(
            ({ x, y }) => !!document.elementFromPoint(x, y)?.closest('.listing__header'),
            middle,
          ),
        ).toBe(true);
        // Keyboard moves keep the focused item clear of both.
        await page.getByRole('option').nth(2).click();
        await page.keyboard.press('ArrowUp');
        await page.keyboard.press('ArrowUp');
        const focused = await page.locator('[role="option"]:focus').boundingBox();
        expect(focused!.y).toBeGreaterThanOrEqual(columns!.y + columns!.height - 1);
        await shot(page, `toolbars-sticky-${viewMode.replace(' ', '-')}`);
      }
      await listByName(server.url);
    });
  });
}

test.describe('the More menu', () => {
  test.use(DESKTOP);

  test('opens from the keyboard, moves with the arrows, closes with Escape and gives focus back', async ({
    page,
    server,
  }) => {
    seed(server.root, 'toolbars-keys', { 'a.txt': 'a', 'b.txt': 'b' });
    await listByName(server.url);
    await signInWithToken(page, server.url);
    const files = new Files(page);
    await files.goto('toolbars-keys/');
    await files.item('a.txt').click();
    const more = files.more();
    await expect(more).toHaveAttribute('aria-haspopup', 'menu');
    await expect(more).toHaveAttribute('aria-expanded', 'false');
    await expect(more).toHaveAttribute('title', 'More actions');

    await more.focus();
    await page.keyboard.press('Enter');
    const menu = page.getByRole('menu', { name: 'More actions' });
    await expect(menu).toBeVisible();
    await expect(more).toHaveAttribute('aria-expanded', 'true');
    await expect(more).toHaveAttribute('aria-controls', (await menu.getAttribute('id'))!);
    const entries = menu.locator('[role="menuitem"], [role="menuitemcheckbox"]');
    await expect(entries.first()).toBeFocused();
    await page.keyboard.press('ArrowDown');
    await expect(entries.nth(1)).toBeFocused();
    await shot(page, 'toolbars-more-menu');
    await page.keyboard.press('Escape');
    await expect(menu).toHaveCount(0);
    await expect(more).toBeFocused();
    await expect(more).toHaveAttribute('aria-expanded', 'false');

    // ArrowDown opens it too; a second press on the button closes it.
    await page.keyboard.press('ArrowDown');
    await expect(entries.first()).toBeFocused();
    await page.keyboard.press('Escape');
    await more.click();
    await expect(menu).toBeVisible();
    await more.click();
    await expect(menu).toHaveCount(0);

    // An entry runs its action: New folder (no room for it with a file selected) asks for a name.
    await files.run('New folder');
    const ask = page.getByRole('dialog', { name: 'New folder' });
    await expect(ask).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(ask).toHaveCount(0);
  });
});

/** What an open file's toolbar offers, by name: its buttons and link, and its More menu's entries. */
async function fileOffers(view: FileView): Promise<string[]> {
  const names = await view
    .toolbar()
    .locator('button, a')
    .evaluateAll((els) =>
      els.map((e) => e.getAttribute('aria-label') ?? e.getAttribute('title') ?? e.textContent ?? ''),
    );
  const at = names.indexOf('More actions');
  if (at < 0) return names;
  await view.more().click();
  const entries = await view
    .menu()
    .locator('[role="menuitem"], [role="menuitemcheckbox"]')
    .evaluateAll((els) => els.map((e) => e.querySelector('.menu__label')?.textContent ?? ''));
  await view.page.keyboard.press('Escape');
  await expect(view.menu()).toHaveCount(0);
  return [...names.slice(0, at), ...entries, ...names.slice(at + 1)];
}
