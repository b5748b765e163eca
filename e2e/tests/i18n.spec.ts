import { mkdirSync, writeFileSync } from 'node:fs';
import { createUser } from '../support/api';
import { expect, PHONE, shot, test } from '../support/fixtures';
import { LoginPage } from '../pages/LoginPage';

test.describe('languages', () => {
  test.describe('browser language', () => {
    test.use({ locale: 'de-DE' });

    test('the login screen follows the browser when nobody is signed in', async ({ page }) => {
      await page.goto('login');
      await expect(page.getByRole('button', { name: 'Anmelden', exact: true })).toBeVisible();
      await expect(page.getByLabel('Benutzername')).toBeVisible();
      await expect(page.locator('html')).toHaveAttribute('lang', 'de');
      await expect(page).toHaveTitle('Anmeldung - Coffer');
    });

    test("after sign-in the user's own language wins over the browser's", async ({ page, server }) => {
      await createUser(server.url, { username: 'amelie', password: 'amelie-password-1', locale: 'fr' });
      await page.goto('login');
      await page.getByLabel('Benutzername').fill('amelie');
      await page.getByLabel('Passwort', { exact: true }).fill('amelie-password-1');
      await page.getByRole('button', { name: 'Anmelden', exact: true }).click();
      await expect(
        page
          .getByRole('navigation', { name: 'Navigation principale' })
          .getByRole('link', { name: 'Mes fichiers' }),
      ).toBeVisible();
      await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
      await expect(page).toHaveTitle('Mes fichiers - Fichiers - Coffer');
    });
  });

  test('changing the language in the profile saves it and applies at once', async ({ page, server }) => {
    await createUser(server.url, { username: 'lars', password: 'lars-password-12' });
    const login = new LoginPage(page);
    await login.goto();
    await login.signIn('lars', 'lars-password-12');
    await page.getByRole('link', { name: 'lars' }).click();
    await expect(page.getByRole('heading', { name: 'Profile settings' })).toBeVisible();
    const saved = page.waitForRequest((r) => r.method() === 'PUT' && /\/api\/users\/\d+$/.test(r.url()));
    await page.getByLabel('Language').selectOption('sv-se');
    const body = (await saved).postDataJSON() as { which: string[]; data: { locale: string } };
    expect(body.which).toEqual(['locale']);
    expect(body.data.locale).toBe('sv-se');
    await expect(page.getByRole('heading', { name: 'Profilinställningar' })).toBeVisible();
    await expect(
      page.getByRole('status').filter({ hasText: 'Inställningarna har uppdaterats.' }),
    ).toBeVisible();
    await page.reload();
    await expect(page.getByRole('heading', { name: 'Profilinställningar' })).toBeVisible();
    await expect(page.locator('html')).toHaveAttribute('lang', 'sv-SE');
  });

  test('sizes and dates are written the way the language writes them', async ({ page, server }) => {
    // A scope of its own: the worker's shared root fills up with other tests' folders, and a file
    // below the fold of the virtualized listing is not rendered.
    mkdirSync(`${server.root}/i18n-dora`, { recursive: true });
    writeFileSync(`${server.root}/i18n-dora/bericht.txt`, Buffer.alloc(1536, 'a'));
    await createUser(server.url, {
      username: 'dora',
      password: 'dora-password-12',
      locale: 'de',
      dateFormat: true,
      scope: '/i18n-dora',
    });
    const login = new LoginPage(page);
    await login.goto();
    await login.signIn('dora', 'dora-password-12');
    const row = page.getByRole('option', { name: 'bericht.txt' });
    await expect(row).toContainText('1,5 KiB');
    const year = new Date().getFullYear();
    // German absolute dates are day.month.year.
    await expect(row.locator('time')).toHaveText(new RegExp(`\\d{2}\\.\\d{2}\\.${year}`));
    await expect(page.getByTestId('usage')).toContainText(/von .* belegt/);
  });

  for (const [name, options] of [
    ['desktop', {}],
    ['phone', PHONE],
  ] as const) {
    test.describe(`right to left (${name})`, () => {
      test.use(options);
      test('Arabic and Hebrew mirror the page', async ({ page, server }) => {
        const user = `rtl-${name}`;
        await createUser(server.url, { username: user, password: 'rtl-password-123', locale: 'ar' });
        const login = new LoginPage(page);
        await login.goto();
        await login.signIn(user, 'rtl-password-123');
        await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
        await expect(page.locator('html')).toHaveAttribute('lang', 'ar');
        await expect(page.getByRole('heading', { level: 1, name: 'ملفاتي' })).toBeVisible();
        const width = page.viewportSize()?.width ?? 0;
        if (name === 'desktop') {
          const box = await page.getByRole('navigation', { name: 'التنقل الرئيسي' }).boundingBox();
          expect(box && box.x).toBeGreaterThan(width / 2); // the sidebar sits on the right
          await shot(page, 'rtl-ar-shell');
        } else {
          const menu = page.getByRole('button', { name: 'فتح القائمة' });
          expect((await menu.boundingBox())?.x).toBeGreaterThan(width / 2);
          await menu.click();
          await expect(page.getByRole('navigation', { name: 'التنقل الرئيسي' })).toBeInViewport();
          await shot(page, 'rtl-ar-drawer');
        }
        await page.getByRole('link', { name: user }).click();
        await page.getByLabel('اللغة').selectOption('he');
        await expect(page.getByRole('heading', { name: 'הגדרות פרופיל' })).toBeVisible();
        await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
        await shot(page, 'rtl-he-settings');
        // A Latin folder name on a right-to-left page: the heading still starts on the right
        // (its text ends at the heading's right edge), as the breadcrumbs and toolbar do.
        mkdirSync(`${server.root}/Reports 2024`, { recursive: true });
        await page.goto('files/Reports%202024/');
        const heading = page.getByRole('heading', { level: 1, name: 'Reports 2024' });
        await expect(heading).toBeVisible();
        const gap = await heading.evaluate((el) => {
          const text = document.createRange();
          text.selectNodeContents(el);
          return el.getBoundingClientRect().right - text.getBoundingClientRect().right;
        });
        expect(gap).toBeLessThan(2);
        await shot(page, 'rtl-he-latin-folder');
      });
    });
  }
});
