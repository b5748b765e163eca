/**
 * Byte quotas in the client (docs/api.md §3.1 `quota`, §3.8, §11): the admin sets one in the user
 * form (an amount and a unit), the users list shows each user's use of it, the user defaults in
 * Settings → Global carry one, and the user's usage bar says how much of it is used — at 1280 px
 * and on a 375 px phone.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { apiLogin, createUser } from '../support/api';
import { expect, PHONE, shot, test } from '../support/fixtures';
import { signIn } from '../pages/LoginPage';
import { GlobalSettings } from '../pages/Settings';
import { Users } from '../pages/Users';

test.use({ serverGroup: 'quota' });
test.describe.configure({ timeout: 90_000 });

async function quotaOf(url: string, id: number): Promise<number> {
  const token = await apiLogin(url);
  const res = await fetch(`${url}/api/users/${id}`, { headers: { 'X-Auth': token } });
  return ((await res.json()) as { quota: number }).quota;
}

for (const phone of [false, true]) {
  test.describe(phone ? 'on a phone' : 'on a desktop', () => {
    if (phone) test.use(PHONE);

    test('an admin sets a quota with its unit, the list shows the use, the user sees used of quota', async ({ page, server }) => {
      const name = `quota-${phone ? 'p' : 'd'}${process.pid}`;
      const password = `${name}-password`;
      mkdirSync(path.join(server.root, name), { recursive: true });
      writeFileSync(path.join(server.root, name, 'big.bin'), Buffer.alloc(3 * 1024 * 1024));
      const id = await createUser(server.url, { username: name, password, scope: `/${name}` });

      await signIn(page);
      const users = new Users(page);
      await users.gotoList();
      await users.edit(name);
      const amount = users.form().getByLabel('Storage quota', { exact: true });
      await expect(amount).toHaveValue('');
      await amount.fill('-2');
      await users.confirmAndSave();
      await users.expectFieldError(amount, /positive number/);
      await amount.fill('10');
      await users.form().getByRole('combobox', { name: 'Quota unit' }).selectOption('MiB');
      await users.confirmAndSave();
      await expect(users.toasts().getByText('User updated.')).toBeVisible();
      expect(await quotaOf(server.url, id)).toBe(10 * 1024 * 1024);

      await users.gotoList();
      const row = users.row(name);
      await expect(row.getByRole('cell').filter({ hasText: /3 MiB\W* of \W*10 MiB/ })).toBeVisible();
      await shot(page, `quota-users-list${phone ? '-phone' : ''}`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);

      await page.context().clearCookies();
      await page.evaluate(() => localStorage.clear());
      await signIn(page, name, password);
      if (phone) await page.getByRole('button', { name: 'Open menu' }).click();
      const bar = page.getByTestId('usage');
      await expect(bar).toContainText(/3 MiB\W* of your \W*10 MiB\W* quota used/);
      await expect(bar.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '30');
      await shot(page, `quota-usage-bar${phone ? '-phone' : ''}`);
    });
  });
}

test('the user defaults in Settings → Global carry a quota that new users get', async ({ page, server }) => {
  await signIn(page);
  const global = new GlobalSettings(page);
  await global.goto();
  // Beside the other new-user settings in the General card (the user defaults card needs execution on).
  const d = global.general();
  const amount = d.getByLabel('Storage quota for new users', { exact: true });
  await expect(amount).toHaveValue('');
  await amount.fill('2');
  await d.getByRole('combobox', { name: 'Quota unit' }).selectOption('GiB');
  expect((await global.save('General')).status()).toBe(200);
  const token = await apiLogin(server.url);
  const settings = (await (await fetch(`${server.url}/api/settings`, { headers: { 'X-Auth': token } })).json()) as {
    defaults: { quota: number };
  };
  expect(settings.defaults.quota).toBe(2 * 1024 ** 3);
  const users = new Users(page);
  await users.gotoNew();
  await expect(users.form().getByLabel('Storage quota', { exact: true })).toHaveValue('2');
  // Back to none, for the tests that share this server.
  await global.goto();
  await global.general().getByLabel('Storage quota for new users', { exact: true }).fill('');
  expect((await global.save('General')).status()).toBe(200);
});
