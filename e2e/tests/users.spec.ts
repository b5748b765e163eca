import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Secret, TOTP } from 'otpauth';
import { apiLogin, createUser, deleteUser } from '../support/api';
import { seriousViolations } from '../support/axe';
import { expect, PHONE, shot, test } from '../support/fixtures';
import { ADMIN } from '../support/server';
import { Files } from '../pages/Files';
import { LoginPage, signIn } from '../pages/LoginPage';
import { Shell } from '../pages/Shell';
import { Users } from '../pages/Users';

// Types wrong passwords on purpose: a server of its own, so the shared one's login throttle stays clean.
test.use({ serverGroup: 'users' });

// Logins hash passwords: on a busy machine a flow with several of them needs more than 45 s.
test.describe.configure({ timeout: 90_000 });

async function getUser(url: string, id: number) {
  const token = await apiLogin(url);
  const res = await fetch(`${url}/api/users/${id}`, { headers: { 'X-Auth': token } });
  return (await res.json()) as { username: string; scope: string; perm: Record<string, boolean>; lockPassword: boolean };
}

test('an admin ends all of a user’s sessions and resets its second factor, each after asking', async ({
  page,
  server,
}) => {
  const name = `u-signin${process.pid}`;
  const password = `${name}-password`;
  await createUser(server.url, { username: name, password });
  const token = await apiLogin(server.url, name, password);
  const alive = async (t: string) =>
    (await fetch(`${server.url}/api/sessions`, { headers: { 'X-Auth': t } })).status;
  // The user turns TOTP on through the API, with a code computed here.
  const { secret } = (await (
    await fetch(`${server.url}/api/second-factor/totp`, { method: 'POST', headers: { 'X-Auth': token } })
  ).json()) as { secret: string };
  const code = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate();
  const confirmed = await fetch(`${server.url}/api/second-factor/totp/confirm`, {
    method: 'POST',
    headers: { 'X-Auth': token, 'Content-Type': 'application/json' },
    body: JSON.stringify({ code, current_password: password }),
  });
  expect(confirmed.status).toBe(200);
  // An app password, which "End all sessions" revokes too (docs/api.md §2.11).
  const made = await fetch(`${server.url}/api/app-passwords`, {
    method: 'POST',
    headers: { 'X-Auth': token, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'dav', readOnly: false, expiresInDays: 0, current_password: password }),
  });
  expect(made.status).toBe(201);
  const appPassword = ((await made.json()) as { secret: string }).secret;
  expect(await alive(token)).toBe(200);
  const davAlive = async () =>
    (await fetch(`${server.url}/api/resources/`, { headers: { Authorization: `Bearer ${appPassword}` } })).status;
  expect(await davAlive()).toBe(200);

  await signIn(page);
  const users = new Users(page);
  await users.gotoList();
  await users.edit(name);
  await users.form().getByRole('button', { name: 'End all sessions' }).click();
  const endDialog = page.getByRole('dialog', { name: `End all of ${name}'s sessions?` });
  await expect(endDialog).toContainText(`${name} will be signed out on every browser and device.`);
  await expect(endDialog).toContainText('Their app passwords are revoked too');
  await endDialog.getByRole('button', { name: 'Cancel' }).click();
  expect(await alive(token)).toBe(200);
  await users.form().getByRole('button', { name: 'End all sessions' }).click();
  await endDialog.getByRole('button', { name: 'End all sessions' }).click();
  await expect(users.toasts().getByText(`${name}'s sessions ended.`)).toBeVisible();
  expect(await alive(token)).toBe(401);
  expect(await davAlive()).toBe(401);

  // The password alone is not enough while the second factor is on; after the reset it is.
  const login = () =>
    fetch(`${server.url}/api/login`, { method: 'POST', body: JSON.stringify({ username: name, password }) });
  expect((await login()).status).toBe(401);
  await users.form().getByRole('button', { name: 'Reset second factor' }).click();
  const resetDialog = page.getByRole('dialog', { name: `Reset ${name}'s second factor?` });
  await expect(resetDialog).toContainText('Until it is set up again, the password alone signs in.');
  await shot(page, 'user-reset-second-factor');
  await resetDialog.getByRole('button', { name: 'Reset second factor' }).click();
  await expect(users.toasts().getByText(`${name}'s second factor was reset.`)).toBeVisible();
  expect((await login()).status).toBe(200);
  await users.form().getByRole('button', { name: 'End all sessions' }).scrollIntoViewIfNeeded();
  await shot(page, 'user-signin-actions');
});

test('the last administrator cannot delete itself or drop the administrator permission', async ({
  page,
  server,
}) => {
  // The server refuses only for the last admin: make sure no other test left a second one.
  const token = await apiLogin(server.url);
  const all = (await (await fetch(`${server.url}/api/users`, { headers: { 'X-Auth': token } })).json()) as {
    id: number;
    username: string;
    perm: { admin: boolean };
  }[];
  for (const u of all) if (u.perm.admin && u.username !== ADMIN.username) await deleteUser(server.url, u.id);

  await signIn(page);
  const users = new Users(page);
  await users.gotoList();
  await users.edit('admin');
  await expect(users.lockPassword()).toBeDisabled();
  await users.perm('Administrator').uncheck();
  await users.confirmAndSave();
  const refusal = 'The last administrator cannot be deleted or lose the administrator permission.';
  await expect(users.toasts()).toContainText(refusal);
  await users.deleteButton().click();
  const dialog = page.getByRole('dialog', { name: 'Delete user' });
  await dialog.getByLabel('Your password').fill(ADMIN.password);
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await expect(dialog).toBeHidden();
  await expect(users.toasts().getByText(refusal)).toHaveCount(2);
  await users.gotoList();
  await expect(users.row('admin').getByRole('img', { name: 'Is an administrator' })).toBeVisible();
});

test.describe('user management', () => {
  test.beforeEach(async ({ page }) => {
    await signIn(page);
  });

  test('creates a user with a home folder, who then sees only the actions it may use', async ({
    page,
    server,
  }) => {
    test.slow(); // two sign-ins and a user creation: password hashing on a shared machine
    const users = new Users(page);
    await users.gotoList();
    await expect(users.row('admin')).toContainText('/');
    await expect(users.row('admin').getByRole('img', { name: 'Is an administrator' })).toBeVisible();
    await users.newButton().click();
    await expect(page).toHaveURL(/\/settings\/users\/new$/);

    await users.username().fill('u-carol');
    await users.password().fill('carol-password-2024');
    await expect(users.scope()).toHaveValue('.');
    await users.createHome().check();
    await expect(users.scope()).toBeDisabled();
    await expect(users.scope()).toHaveValue('');
    await expect(users.form()).toContainText('Folder: /users/u-carol');
    await users.perm('Delete files and folders').uncheck();
    await users.perm('Rename and move files and folders').uncheck();
    await users.confirmAndSave();

    await expect(users.toasts()).toContainText('User created.');
    await expect(page).toHaveURL(/\/settings\/users\/\d+$/);
    await expect(page.getByRole('heading', { level: 1, name: 'User “u-carol”' })).toBeVisible();
    await expect(users.scope()).toHaveValue('/users/u-carol');
    await expect(users.password()).toHaveValue('');
    await expect(users.password()).toHaveAttribute('placeholder', 'Unchanged if left empty');
    expect(existsSync(path.join(server.root, 'users', 'u-carol'))).toBe(true);

    await users.gotoList();
    await expect(users.row('u-carol')).toContainText('/users/u-carol');
    await expect(users.row('u-carol').getByRole('img', { name: 'Is an administrator' })).toHaveCount(0);

    // The new user signs in and works inside its home, without delete or rename.
    writeFileSync(path.join(server.root, 'users', 'u-carol', 'note.txt'), 'hello');
    await new Shell(page).logout();
    const login = new LoginPage(page);
    await expect(page).toHaveURL(/\/login$/);
    await expect(login.username()).toBeVisible();
    await login.signIn('u-carol', 'carol-password-2024');
    const files = new Files(page);
    await expect(files.item('note.txt')).toBeVisible({ timeout: 30_000 });
    await files.item('note.txt').click();
    await expect(files.toolbar().getByRole('button', { name: 'Copy' })).toBeVisible();
    await expect(files.toolbar().getByRole('button', { name: 'Delete' })).toHaveCount(0);
    await expect(files.toolbar().getByRole('button', { name: 'Rename' })).toHaveCount(0);
    await expect(new Shell(page).sidebar().getByRole('link', { name: 'Settings' })).toHaveCount(0);
    await page.goto('settings/users');
    await expect(page).toHaveURL(/\/403$/);
  });

  test('edits permissions; the administrator box grants and locks them all', async ({ page, server }) => {
    const id = await createUser(server.url, { username: 'u-dave', password: 'dave-password-2024', perm: { delete: false } });
    const users = new Users(page);
    await users.gotoList();
    await users.edit('u-dave');
    await expect(users.perm('Delete files and folders')).not.toBeChecked();
    await users.perm('Create files and folders').uncheck();
    await users.lockPassword().check();
    await users.confirmAndSave();
    await expect(users.toasts()).toContainText('User updated.');
    await expect.poll(async () => (await getUser(server.url, id)).perm).toMatchObject({ create: false, delete: false, download: true });
    expect((await getUser(server.url, id)).lockPassword).toBe(true);

    await users.perm('Administrator').check();
    await expect(users.perm('Delete files and folders')).toBeChecked();
    await expect(users.perm('Delete files and folders')).toBeDisabled();
    await expect(users.lockPassword()).toBeDisabled();
    await expect(users.lockPassword()).not.toBeChecked();
    await users.confirmAndSave();
    await expect(users.toasts()).toContainText('User updated.');
    await expect.poll(async () => (await getUser(server.url, id)).perm.admin).toBe(true);
    const saved = await getUser(server.url, id);
    expect(saved.lockPassword).toBe(false);
    expect(Object.values(saved.perm).every(Boolean)).toBe(true);
    await users.gotoList();
    await expect(users.row('u-dave').getByRole('img', { name: 'Is an administrator' })).toBeVisible();
    await deleteUser(server.url, id); // the worker's server keeps a single admin
  });

  test('shows what is wrong next to each field', async ({ page, server }) => {
    const users = new Users(page);
    await users.gotoNew();
    await users.save().click();
    await users.expectFieldError(users.username(), /Enter a username\./);
    await users.expectFieldError(users.password(), /Enter a password\./);
    await users.expectFieldError(users.current(), /Enter your password to confirm\./);
    await expect(users.username()).toBeFocused();

    // The settings' minimum length (12 bytes by default) is checked before sending.
    await users.username().fill('admin');
    await users.password().fill('short');
    await users.expectFieldError(users.password(), /at least 12 characters/);
    await users.password().fill('long-enough-password-1');
    await expect(users.password()).not.toHaveAttribute('aria-invalid', 'true');

    // The server's answers: a wrong own password, then a taken name (409).
    await users.confirmAndSave('not-my-password-at-all');
    await users.expectFieldError(users.current(), /Your password is wrong\./);
    await users.confirmAndSave();
    await users.expectFieldError(users.username(), /This username is already taken\./);
    await expect(users.username()).toBeFocused();
    await shot(page, 'user-form-errors');

    // A scope above the server root.
    await users.username().fill('u-escape');
    await users.scope().fill('/../../etc');
    await users.confirmAndSave();
    await users.expectFieldError(users.scope(), /inside the server's folder/);
    expect(existsSync(path.join(server.root, '..', '..', 'etc', 'u-escape'))).toBe(false);
  });

  test('deletes a user after confirmation with the admin password', async ({ page, server }) => {
    await createUser(server.url, { username: 'u-erin', password: 'erin-password-2024' });
    const users = new Users(page);
    await users.gotoList();
    await users.edit('u-erin');
    await users.deleteButton().click();
    const dialog = page.getByRole('dialog', { name: 'Delete user' });
    await expect(dialog).toContainText('Delete the user “u-erin”?');
    await shot(page, 'user-delete');
    await dialog.getByLabel('Your password').fill('wrong-password-here');
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await expect(dialog.getByLabel('Your password')).toHaveAccessibleDescription(/Your password is wrong\./);
    await dialog.getByLabel('Your password').fill(ADMIN.password);
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await expect(dialog).toBeHidden();
    await expect(users.toasts()).toContainText('User deleted.');
    await expect(page).toHaveURL(/\/settings\/users$/);
    await expect(users.row('u-erin')).toHaveCount(0);
    await expect(users.row('admin')).toBeVisible();
  });

  test('list and form have no serious accessibility problems; screenshots', async ({ page, server }) => {
    mkdirSync(path.join(server.root, 'shots'), { recursive: true });
    await createUser(server.url, { username: 'u-frank', password: 'frank-password-2024' }).catch(() => undefined);
    const users = new Users(page);
    await users.gotoList();
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'users');
    await users.edit('u-frank');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.getByPlaceholder('/private').fill('/private');
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'user-form');
  });

  test.describe('dark', () => {
    test.use({ colorScheme: 'dark' });
    test('dark screenshots', async ({ page, server }) => {
      await createUser(server.url, { username: 'u-gina', password: 'gina-password-2024' }).catch(() => undefined);
      const users = new Users(page);
      await users.gotoList();
      await shot(page, 'users-dark');
      await users.edit('u-gina');
      await shot(page, 'user-form-dark');
    });
  });

  test.describe('on a phone', () => {
    test.use(PHONE);
    test('phone screenshots, light and dark', async ({ page, server }) => {
      await createUser(server.url, { username: 'u-hana', password: 'hana-password-2024' }).catch(() => undefined);
      const users = new Users(page);
      await users.gotoList();
      await shot(page, 'users');
      await users.newButton().click();
      await users.save().click();
      await users.expectFieldError(users.username(), /Enter a username\./);
      await shot(page, 'user-form');
      await page.emulateMedia({ colorScheme: 'dark' });
      await users.gotoList();
      await shot(page, 'users-dark');
      await users.edit('u-hana');
      await shot(page, 'user-form-dark');
      await users.form().getByRole('button', { name: 'Reset second factor' }).scrollIntoViewIfNeeded();
      await shot(page, 'user-signin-actions-dark');
    });
  });
});
