/**
 * Settings on a wide screen: Profile and Global settings put their cards in two columns side by
 * side (preferences and password beside the ways to sign in; general settings beside single
 * sign-on and the rest) once two cards fit beside the side menu, and keep one column below that,
 * in the same order. Screenshots at 4K (3840×2160, 1×) and 1600×1000.
 */
import type { Locator, Page } from '@playwright/test';
import { seriousViolations } from '../support/axe';
import { expect, shot, test } from '../support/fixtures';
import { signIn } from '../pages/LoginPage';

async function box(l: Locator) {
  const b = await l.boundingBox();
  expect(b).not.toBeNull();
  return b!;
}

/** The card whose title is `name`. */
const card = (page: Page, name: string) =>
  page.locator('.card').filter({ has: page.getByRole('heading', { name, exact: true }) });

async function expectBeside(left: Locator, right: Locator) {
  const [a, b] = [await box(left), await box(right)];
  expect(b.x).toBeGreaterThanOrEqual(a.x + a.width);
  expect(Math.abs(b.y - a.y)).toBeLessThan(8);
}

async function expectBelow(upper: Locator, lower: Locator) {
  const [a, b] = [await box(upper), await box(lower)];
  expect(b.y).toBeGreaterThanOrEqual(a.y + a.height);
  expect(Math.abs(b.x - a.x)).toBeLessThan(8);
}

for (const [label, viewport] of [
  ['4K', { width: 3840, height: 2160 }],
  ['1600 px', { width: 1600, height: 1000 }],
] as const) {
  test.describe(`at ${label}`, () => {
    test.use({ viewport });

    test('Profile and Global settings show their cards in two columns', async ({ page }) => {
      await signIn(page);
      await page.goto('settings/profile');
      const profile = card(page, 'Profile settings');
      await expect(profile).toBeVisible();
      await expectBeside(profile, card(page, 'Two-factor sign-in'));
      await expectBelow(profile, card(page, 'Change password'));
      await expectBelow(card(page, 'Two-factor sign-in'), card(page, 'Passkeys'));
      expect(await seriousViolations(page)).toEqual([]);
      await shot(page, 'settings-wide-profile');

      await page.goto('settings/global');
      const general = card(page, 'General');
      await expect(general).toBeVisible();
      await expectBeside(general, card(page, 'Single sign-on (OpenID Connect)'));
      expect(await seriousViolations(page)).toEqual([]);
      await shot(page, 'settings-wide-global');
    });
  });
}

test.describe('at 1280 px', () => {
  test.use({ viewport: { width: 1280, height: 800 } });

  test('the cards stay in one column, in the same order', async ({ page }) => {
    await signIn(page);
    await page.goto('settings/profile');
    await expect(card(page, 'Profile settings')).toBeVisible();
    await expectBelow(card(page, 'Profile settings'), card(page, 'Change password'));
    await expectBelow(card(page, 'Change password'), card(page, 'Two-factor sign-in'));
    await page.goto('settings/global');
    await expect(card(page, 'General')).toBeVisible();
    await expectBelow(card(page, 'General'), card(page, 'Single sign-on (OpenID Connect)'));
  });
});
