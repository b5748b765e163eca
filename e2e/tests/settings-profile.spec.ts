import { utimesSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { apiGet, apiLogin, createUser, updateUser } from '../support/api';
import { expect, PHONE, shot, test } from '../support/fixtures';
import { seed } from '../support/seed';
import { Files } from '../pages/Files';
import { LoginPage } from '../pages/LoginPage';
import { Settings } from '../pages/Settings';
import { Shell } from '../pages/Shell';

// Types wrong passwords on purpose: a server of its own, so the shared one's login throttle stays clean.
test.use({ serverGroup: 'settings-profile' });

let counter = 0;
/** A user of its own (scope /) and a folder of its own with a dotfile, a file and a subfolder. */
async function setUp(url: string, root: string) {
  const name = `prof${process.pid}x${++counter}`;
  const password = `${name}-password`;
  const id = await createUser(url, { username: name, password });
  const dir = seed(root, name, { '.secret': 'x', 'old.txt': 'x' }, ['inside']);
  utimesSync(path.join(dir, 'old.txt'), new Date('2020-01-02T10:00:00Z'), new Date('2020-01-02T10:00:00Z'));
  return { name, password, id, folder: `${name}/` };
}

/**
 * A fresh user (setUp) with `prefs` saved first (such as lockPassword), signed in through the login
 * screen on the way to the profile settings, or to the user's folder with `inFolder`.
 */
async function signInFresh(
  page: Page,
  server: { url: string; root: string },
  { inFolder = false, prefs = {} }: { inFolder?: boolean; prefs?: Record<string, unknown> } = {},
) {
  const u = await setUp(server.url, server.root);
  if (Object.keys(prefs).length > 0) await updateUser(server.url, u.id, prefs, Object.keys(prefs));
  const login = new LoginPage(page);
  await login.goto(inFolder ? `files/${u.folder}` : 'settings/profile');
  await login.signIn(u.name, u.password);
  return { u, login, settings: new Settings(page) };
}

test.describe('profile settings', () => {
  // Whole flows through several screens: room for a busy machine.
  test.describe.configure({ timeout: 90_000 });

  test('hideDotfiles and dateFormat are saved and apply in the file browser at once', async ({
    page,
    server,
  }) => {
    const { u, settings } = await signInFresh(page, server, { inFolder: true });
    const files = new Files(page);
    await expect(files.item('.secret')).toBeVisible();
    await expect(files.item('old.txt')).toContainText('years ago');

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: u.name }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Profile settings' })).toBeVisible();
    await settings.toggle('Hide dotfiles', true);
    await expect(settings.toast('Settings updated.')).toBeVisible();
    await settings.toggle('Show exact dates', true);
    await shot(page, 'settings-profile');

    // Back in the browser (client-side navigation, no reload): both choices are already in effect.
    await page.goBack();
    await expect(files.item('old.txt')).toBeVisible();
    await expect(files.item('.secret')).toHaveCount(0);
    await expect(files.item('old.txt')).toContainText('2020');
    expect(await apiGet(server.url, `/users/${u.id}`)).toMatchObject({
      hideDotfiles: true,
      dateFormat: true,
    });

    // They survive a reload; unticking brings the dotfile back.
    await settings.gotoProfile();
    await expect(settings.checkbox('Hide dotfiles')).toBeChecked();
    await expect(settings.checkbox('Show exact dates')).toBeChecked();
    await settings.toggle('Hide dotfiles', false);
    await files.goto(u.folder);
    await expect(files.item('.secret')).toBeVisible();
  });

  test('singleClick opens a folder on one click, and selects again once turned off', async ({
    page,
    server,
  }) => {
    const { u, settings } = await signInFresh(page, server);
    await settings.toggle('Open with a single click', true);
    const files = new Files(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'My files' }).click();
    await (await files.reveal(u.name)).click();
    await expect(page).toHaveURL(new RegExp(`/files/${u.folder}$`));
    await files.item('inside').click();
    await expect(page).toHaveURL(new RegExp(`/files/${u.folder}inside/$`));
    expect(await apiGet(server.url, `/users/${u.id}`)).toMatchObject({ singleClick: true });

    await settings.gotoProfile();
    await expect(settings.checkbox('Open with a single click')).toBeChecked();
    await settings.toggle('Open with a single click', false);
    await files.goto(u.folder);
    await files.item('inside').click();
    await files.expectSelected(['inside']);
    await expect(page).toHaveURL(new RegExp(`/files/${u.folder}$`));
  });

  test('uploadsLimit takes 1 to 10 and is kept', async ({ page, server }) => {
    const { settings } = await signInFresh(page, server);
    await expect(settings.uploadsLimit()).toHaveValue('5');
    for (const bad of ['0', '11', '2.5', '']) {
      await settings.uploadsLimit().fill(bad);
      await expect(page.getByText('Enter a whole number from 1 to 10.')).toBeVisible();
      await expect(settings.uploadsLimit()).toHaveAttribute('aria-invalid', 'true');
    }
    await settings.uploadsLimit().fill('3');
    await expect(page.getByText('Enter a whole number from 1 to 10.')).toBeHidden();
    await expect(settings.toast('Settings updated.')).toBeVisible();
    await page.reload();
    await expect(settings.uploadsLimit()).toHaveValue('3');
  });

  test('the password form checks the confirmation, refuses a wrong current password, and changes it', async ({
    page,
    server,
  }) => {
    const { u, login, settings } = await signInFresh(page, server);
    const next = `${u.name}-new-secret`;

    await settings.newPassword().fill(next);
    await settings.confirmPassword().fill(`${next}x`);
    const mismatch = settings.passwordForm().getByText("The passwords don't match.");
    await expect(mismatch).toBeVisible();
    await expect(mismatch).toHaveCSS('color', 'rgb(179, 38, 30)');
    await expect(settings.confirmPassword()).toHaveClass(/input--mismatch/);
    // docs/client.md §2: both fields red, the focused one too (its ring is not the accent blue).
    await expect(settings.confirmPassword()).toBeFocused();
    await expect(settings.confirmPassword()).toHaveCSS('border-color', 'rgb(179, 38, 30)');
    await expect(settings.confirmPassword()).toHaveCSS('outline-color', 'rgb(179, 38, 30)');
    await expect(settings.newPassword()).toHaveCSS('border-color', 'rgb(179, 38, 30)');
    const sent: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'PUT' && r.url().includes('/api/users/')) sent.push(r.postData() ?? '');
    });
    await settings.passwordForm().getByRole('button', { name: 'Change password' }).click();
    await expect(settings.confirmPassword())
      .toBeFocused({ timeout: 1 })
      .catch(() => undefined);
    expect(sent, 'nothing is sent while the passwords differ').toEqual([]);

    await settings.confirmPassword().fill(next);
    const match = settings.passwordForm().getByText('The passwords match.');
    await expect(match).toBeVisible();
    await expect(match).toHaveCSS('color', 'rgb(29, 115, 56)');
    await expect(settings.confirmPassword()).toHaveClass(/input--match/);
    await expect(settings.confirmPassword()).toBeFocused();
    await expect(settings.confirmPassword()).toHaveCSS('border-color', 'rgb(29, 115, 56)');
    await expect(settings.confirmPassword()).toHaveCSS('outline-color', 'rgb(29, 115, 56)');
    await expect(settings.newPassword()).toHaveCSS('border-color', 'rgb(29, 115, 56)');
    await settings.passwordForm().getByRole('button', { name: 'Change password' }).scrollIntoViewIfNeeded();
    await shot(page, 'settings-password');

    await settings.changePassword('not-my-password', next);
    await expect(settings.passwordForm().getByText('The current password is incorrect.')).toBeVisible();
    await expect(settings.currentPassword()).toHaveAttribute('aria-invalid', 'true');
    // Only this attempt reached the server: the one with different passwords was never sent.
    expect(sent.map((b) => (JSON.parse(b) as { current_password: string }).current_password)).toEqual([
      'not-my-password',
    ]);

    await settings.changePassword(u.password, 'short');
    await expect(settings.passwordForm().getByText('Too short: the minimum length is 12.')).toBeVisible();

    await settings.changePassword(u.password, next);
    await expect(settings.toast('Password updated.')).toBeVisible();
    await expect(settings.newPassword()).toHaveValue('');
    expect(JSON.parse(sent.at(-1) ?? '{}')).toMatchObject({
      which: ['password'],
      current_password: u.password,
      data: { id: u.id, password: next },
    });

    // This session goes on working, across a reload too.
    await new Files(page).goto(u.folder);
    await expect(new Files(page).item('old.txt')).toBeVisible();
    await page.reload();
    await expect(new Files(page).item('old.txt')).toBeVisible();

    await new Shell(page).logout();
    await expect(login.username()).toBeVisible();
    await login.signIn(u.name, u.password);
    await expect(login.problem()).toContainText('Wrong username or password.');
    await login.signIn(u.name, next);
    await expect(page.getByRole('heading', { level: 1, name: 'My files' })).toBeVisible();
    await expect(apiLogin(server.url, u.name, next)).resolves.toMatch(/^ey/);
  });

  test('a locked password has no password form; an admin sees the minimum length', async ({
    page,
    server,
  }) => {
    const { login, settings } = await signInFresh(page, server, { prefs: { lockPassword: true } });
    await expect(settings.checkbox('Hide dotfiles')).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Change password' })).toHaveCount(0);
    await new Shell(page).logout();
    await expect(login.username()).toBeVisible();
    await login.signIn();
    await expect(page.getByRole('heading', { level: 1, name: 'My files' })).toBeVisible();
    await settings.gotoProfile();
    await expect(settings.passwordForm().getByText('Minimum length: 12.')).toBeVisible();
  });

  test.describe('on a phone', () => {
    test.use(PHONE);
    test('profile settings fit a 375 px screen', async ({ page, server }) => {
      const { settings } = await signInFresh(page, server);
      await settings.confirmPassword().fill('different');
      await settings.newPassword().fill('something');
      await expect(page.getByText("The passwords don't match.")).toBeVisible();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      await shot(page, 'settings-profile');
      await page.getByRole('button', { name: 'Change password' }).scrollIntoViewIfNeeded();
      await shot(page, 'settings-password');
    });
  });

  test.describe('dark phone', () => {
    test.use({ ...PHONE, colorScheme: 'dark' });
    test('profile settings in the dark theme on a phone', async ({ page, server }) => {
      const { settings } = await signInFresh(page, server);
      await settings.newPassword().fill('something-long');
      await settings.confirmPassword().fill('something-else');
      await page.getByRole('button', { name: 'Change password' }).scrollIntoViewIfNeeded();
      await expect(page.getByText("The passwords don't match.")).toBeVisible();
      await shot(page, 'settings-password-dark');
    });
  });

  test.describe('dark', () => {
    test.use({ colorScheme: 'dark' });
    test('profile settings in the dark theme', async ({ page, server }) => {
      const { settings } = await signInFresh(page, server);
      await settings.newPassword().fill('something-long');
      await settings.confirmPassword().fill('something-long');
      await expect(page.getByText('The passwords match.')).toBeVisible();
      await shot(page, 'settings-profile-dark');
      await page.getByRole('button', { name: 'Change password' }).scrollIntoViewIfNeeded();
      await shot(page, 'settings-password-dark');
    });
  });
});
