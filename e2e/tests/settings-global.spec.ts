import { apiGet, createUser, updateSettings } from '../support/api';
import { seriousViolations } from '../support/axe';
import { expect, PHONE, shot, test } from '../support/fixtures';
import { startServer, type RunningServer } from '../support/server';
import { LoginPage } from '../pages/LoginPage';
import { GlobalSettings, Settings } from '../pages/Settings';

type Json = Record<string, unknown>;

test.describe('global settings', () => {
  test.describe.configure({ timeout: 90_000 });

  test.describe('with command execution off (the default)', () => {
    test('shows only the general card, without a shell field', async ({ page }) => {
      const login = new LoginPage(page);
      await login.goto('settings/global');
      await login.signIn();
      const global = new GlobalSettings(page);
      await expect(page.getByRole('heading', { level: 1, name: 'Global settings' })).toBeVisible();
      await expect(global.general()).toBeVisible();
      await expect(global.general().getByLabel('Shell')).toHaveCount(0);
      await expect(global.defaults()).toHaveCount(0);
      await expect(global.runner()).toHaveCount(0);
      await expect(
        global.general().getByRole('checkbox', { name: 'Allow users to sign up' }),
      ).not.toBeChecked();
      await expect(global.general().getByLabel('Chunk size')).toHaveValue('10MB');
      await expect(global.general().getByLabel('Minimum password length')).toHaveValue('12');
    });

    test('refuses a minimum password length of 0 and a negative retry count in the form', async ({
      page,
    }) => {
      const login = new LoginPage(page);
      await login.goto('settings/global');
      await login.signIn();
      const global = new GlobalSettings(page);
      const puts: string[] = [];
      page.on('request', (r) => {
        if (r.method() === 'PUT' && r.url().endsWith('/api/settings')) puts.push(r.url());
      });
      const length = global.general().getByLabel('Minimum password length');
      await length.fill('0');
      await expect(global.general().getByText('Enter a whole number of at least 1.')).toBeVisible();
      await expect(length).toHaveAttribute('aria-invalid', 'true');
      await global.general().getByLabel('Retry attempts').fill('-1');
      await expect(global.general().getByText('Enter a whole number of at least 0.')).toBeVisible();
      await global.general().getByRole('button', { name: 'Add rule' }).click();
      await global.general().getByRole('button', { name: 'Save' }).click();
      await expect(length).toBeFocused();
      await expect(global.rule(1).locator('..').getByText('Enter a path or a pattern.')).toBeVisible();
      await shot(page, 'settings-global-invalid');
      // Fixing the fields lets the form go out; nothing was sent before.
      await page.reload();
      await expect(length).toHaveValue('12');
      expect(puts).toEqual([]);
    });

    test('a non-admin is sent to /403', async ({ page, server }) => {
      await createUser(server.url, { username: `plain${process.pid}`, password: 'plain-user-password' });
      const login = new LoginPage(page);
      await login.goto('settings/global');
      await login.signIn(`plain${process.pid}`, 'plain-user-password');
      await expect(page).toHaveURL(/\/403$/);
      await expect(
        page.getByRole('heading', { name: "You don't have permission to access this." }),
      ).toBeVisible();
    });
  });

  test.describe('the settings menu', () => {
    test('shows profile always, shares with the share permission, global and users to admins', async ({
      page,
      server,
    }) => {
      const settings = new Settings(page);
      const login = new LoginPage(page);
      const links = () => settings.menu().getByRole('link');
      const expectMenu = async (names: string[]) => {
        await expect(settings.menu()).toBeVisible();
        await expect(links()).toHaveText(names);
      };
      const sharer = `sharer${process.pid}`;
      const loner = `loner${process.pid}`;
      await createUser(server.url, { username: sharer, password: 'sharer-password-1' });
      await createUser(server.url, {
        username: loner,
        password: 'loner-password-12',
        perm: { share: false },
      });

      await login.goto('settings/profile');
      await login.signIn(loner, 'loner-password-12');
      await expectMenu(['Profile settings']);
      await page.evaluate(() => localStorage.clear());
      await page.context().clearCookies();
      await login.goto('settings/profile');
      await login.signIn(sharer, 'sharer-password-1');
      await expectMenu(['Profile settings', 'Share management']);
      await page.evaluate(() => localStorage.clear());
      await page.context().clearCookies();
      await login.goto('settings/profile');
      await login.signIn();
      await expectMenu(['Profile settings', 'Share management', 'Global settings', 'User management']);
      await expect(settings.menu().getByRole('link', { name: 'Profile settings' })).toHaveAttribute(
        'aria-current',
        'page',
      );
    });
  });

  test.describe('with command execution on', () => {
    let exec: RunningServer;
    test.beforeAll(async () => {
      exec = await startServer({ env: { COFFER_DISABLE_EXEC: 'false' } });
    });
    test.afterAll(async () => {
      await exec.stop();
    });

    async function signIn(page: import('@playwright/test').Page) {
      const login = new LoginPage(page);
      await login.goto(`${exec.url}/settings/global`);
      await login.signIn();
      const global = new GlobalSettings(page);
      await expect(global.general()).toBeVisible();
      return global;
    }

    test('the shell field says what a shell allows, next to it', async ({ page }) => {
      const global = await signIn(page);
      const shell = global.general().getByRole('textbox', { name: 'Shell' });
      await expect(shell).toBeVisible();
      await expect(shell).toHaveAccessibleDescription(
        /every user with the execute permission can run anything this shell can: any program, pipes, redirections and chained commands/,
      );
      await expect(shell).toHaveAccessibleDescription(
        /Leave it empty to run commands directly, without a shell/,
      );
      await expect(global.general().getByRole('note')).toBeVisible();
      expect(await seriousViolations(page), 'global settings with every card').toEqual([]);
      await shell.fill('bash  -c ');
      expect((await global.save()).status()).toBe(200);
      await expect(page.getByRole('status').filter({ hasText: 'Settings updated.' })).toBeVisible();
      expect((await apiGet<Json>(exec.url, '/settings')).shell).toEqual(['bash', '-c']);
      await expect(global.general().getByRole('textbox', { name: 'Shell' })).toHaveValue('bash -c');
      await global.general().getByRole('textbox', { name: 'Shell' }).scrollIntoViewIfNeeded();
      await shot(page, 'settings-global-shell');
      await global.general().getByRole('textbox', { name: 'Shell' }).fill('');
      await global.save();
      await expect.poll(async () => (await apiGet<Json>(exec.url, '/settings')).shell).toEqual([]);
    });

    test('general settings are saved, read back and shown again after a reload', async ({ page }) => {
      const global = await signIn(page);
      const g = global.general();
      await g.getByRole('checkbox', { name: 'Allow users to sign up' }).check();
      await g.getByRole('checkbox', { name: 'Create a home folder for new users' }).check();
      await g.getByLabel('Base folder for home folders').fill('/homes');
      await g.getByLabel('Minimum password length').fill('10');
      await global.addRule('/secret');
      await global.addRule('\\.env$', { regex: true, allow: true });
      await global.addRule('/public', { allow: true });
      // The last rule goes first.
      await global.rule(3).getByRole('button', { name: 'Move up' }).click();
      await global.rule(2).getByRole('button', { name: 'Move up' }).click();
      await expect(global.rule(1).getByRole('textbox')).toHaveValue('/public');
      await global.rule(3).getByRole('button', { name: 'Remove' }).click();
      await g.getByRole('checkbox', { name: 'Hide links to external websites' }).check();
      await g.getByRole('checkbox', { name: 'Hide the used disk percentage' }).check();
      await g.getByLabel('Default theme').selectOption('dark');
      await g.getByLabel('Instance name').fill('Acme Files');
      await g.getByLabel('Branding folder').fill('/srv/brand');
      const chunk = g.getByLabel('Chunk size');
      await chunk.fill('lots');
      await expect(g.getByText('This is not a size: 1MB will be used.')).toBeVisible();
      // After 1.5 s without typing the text is read (1 MB fallback) and shown in its unit.
      await expect(chunk).toHaveValue('1MB');
      await chunk.fill('2.5m');
      await expect(chunk).toHaveValue('2.5MB');
      await g.getByLabel('Retry attempts').fill('3');
      await shot(page, 'settings-global');
      expect((await global.save()).status()).toBe(200);
      await expect(page.getByRole('status').filter({ hasText: 'Settings updated.' })).toBeVisible();

      const stored = await apiGet<Json>(exec.url, '/settings');
      expect(stored).toMatchObject({
        signup: true,
        createUserDir: true,
        userHomeBasePath: '/homes',
        minimumPasswordLength: 10,
        rules: [
          { allow: true, regex: false, path: '/public', regexp: { raw: '' } },
          { allow: false, regex: false, path: '/secret', regexp: { raw: '' } },
        ],
        branding: {
          disableExternal: true,
          disableUsedPercentage: true,
          theme: 'dark',
          name: 'Acme Files',
          files: '/srv/brand',
        },
        tus: { chunkSize: 2.5 * 1024 * 1024, retryCount: 3 },
      });

      await page.reload();
      await expect(g.getByRole('checkbox', { name: 'Allow users to sign up' })).toBeChecked();
      await expect(g.getByLabel('Base folder for home folders')).toHaveValue('/homes');
      await expect(g.getByLabel('Minimum password length')).toHaveValue('10');
      await expect(global.rule(1).getByRole('textbox')).toHaveValue('/public');
      await expect(global.rule(2).getByRole('textbox')).toHaveValue('/secret');
      await expect(g.getByLabel('Default theme')).toHaveValue('dark');
      await expect(g.getByLabel('Instance name')).toHaveValue('Acme Files');
      await expect(g.getByLabel('Chunk size')).toHaveValue('2.5MB');
      await expect(g.getByLabel('Retry attempts')).toHaveValue('3');
      // The page configuration follows the stored branding.
      await expect(page).toHaveTitle(/Acme Files$/);
      await updateSettings(exec.url, (s) => {
        s.signup = false;
        s.rules = [];
        s.branding = {
          name: '',
          disableExternal: false,
          disableUsedPercentage: false,
          files: '',
          theme: '',
          color: '',
        };
      });
    });

    test('refusals from the server show next to the rule or path they are about', async ({ page }) => {
      const global = await signIn(page);
      const before = (await apiGet<Json>(exec.url, '/settings')).userHomeBasePath;
      // Lookahead compiles in JavaScript but is not in the syntax RE2 shares (S39).
      await global.addRule('^/(?=tmp)', { regex: true });
      const put = await global.save();
      expect(put.status()).toBe(400);
      await expect(
        global
          .rule(1)
          .locator('..')
          .getByText(/^The server refused this rule: /),
      ).toBeVisible();
      await global.rule(1).getByRole('button', { name: 'Remove' }).click();
      await global.general().getByLabel('Base folder for home folders').fill('../../etc');
      expect((await global.save()).status()).toBe(400);
      const base = global.general().getByLabel('Base folder for home folders');
      await expect(global.general().getByText('This path must stay inside the server root.')).toBeVisible();
      await expect(base).toBeFocused();
      expect((await apiGet<Json>(exec.url, '/settings')).userHomeBasePath).toBe(before);
    });

    test('user defaults and the command runner are saved and read back', async ({ page }) => {
      const global = await signIn(page);
      const d = global.defaults();
      await expect(d).toBeVisible();
      await d.getByLabel('Scope').fill('/people');
      await d.getByLabel('Language').selectOption('fr');
      await d.getByLabel('View mode').selectOption('mosaic gallery');
      await d.getByLabel('Sort by').selectOption('size');
      await d.getByRole('checkbox', { name: 'Ascending order' }).check();
      await d.getByRole('checkbox', { name: 'Open with a single click' }).check();
      await d.getByRole('checkbox', { name: 'Hide dotfiles' }).check();
      await d.getByRole('checkbox', { name: 'Show exact dates' }).check();
      await d.getByRole('checkbox', { name: 'Delete files and folders' }).uncheck();
      await d.getByRole('checkbox', { name: 'Download' }).uncheck();
      await expect(d.getByRole('checkbox', { name: 'Share files' })).not.toBeChecked();
      await d.getByRole('checkbox', { name: 'Run commands' }).uncheck();
      await d.getByLabel('Allowed commands').fill('ls  git');

      const r = global.runner();
      await expect(r.getByLabel('Before upload')).toBeHidden();
      await global.runnerEvent('Before upload').click();
      await r.getByLabel('Before upload').fill('echo one\n\n  echo two  \n');
      await global.runnerEvent('After delete').click();
      await r.getByLabel('After delete').fill('logger deleted &');
      await shot(page, 'settings-global-defaults');
      expect((await global.save('Command runner')).status()).toBe(200);

      const stored = await apiGet<Json>(exec.url, '/settings');
      expect(stored.defaults).toMatchObject({
        scope: '/people',
        locale: 'fr',
        viewMode: 'mosaic gallery',
        sorting: { by: 'size', asc: true },
        singleClick: true,
        hideDotfiles: true,
        dateFormat: true,
        perm: {
          admin: false,
          delete: false,
          download: false,
          share: false,
          execute: false,
          create: true,
          rename: true,
          modify: true,
        },
        commands: ['ls', 'git'],
      });
      expect(stored.commands).toMatchObject({
        before_upload: ['echo one', 'echo two'],
        after_delete: ['logger deleted &'],
        after_upload: [],
      });

      await page.reload();
      await expect(d.getByLabel('Scope')).toHaveValue('/people');
      await expect(d.getByLabel('View mode')).toHaveValue('mosaic gallery');
      await expect(d.getByRole('checkbox', { name: 'Download' })).not.toBeChecked();
      await expect(d.getByLabel('Allowed commands')).toHaveValue('ls git');
      // Events holding commands open by themselves.
      await expect(r.getByLabel('Before upload')).toHaveValue('echo one\necho two');
      await expect(r.getByLabel('After upload')).toBeHidden();
      await d.getByRole('checkbox', { name: 'Administrator' }).check();
      await expect(d.getByRole('checkbox', { name: 'Delete files and folders' })).toBeChecked();
      await expect(d.getByRole('checkbox', { name: 'Delete files and folders' })).toBeDisabled();
      await d.getByRole('checkbox', { name: 'Administrator' }).uncheck();

      // By name, "ascending" is A→Z, which docs/api.md §7.5 stores as asc: false.
      await d.getByLabel('Sort by').selectOption('name');
      await expect(d.getByRole('checkbox', { name: 'Ascending order' })).toBeChecked();
      expect((await global.save('Command runner')).status()).toBe(200);
      expect((await apiGet<Json>(exec.url, '/settings')).defaults).toMatchObject({ sorting: { by: 'name', asc: false } });
      await d.getByRole('checkbox', { name: 'Ascending order' }).uncheck();
      expect((await global.save('Command runner')).status()).toBe(200);
      expect((await apiGet<Json>(exec.url, '/settings')).defaults).toMatchObject({ sorting: { by: 'name', asc: true } });
      await page.reload();
      await expect(d.getByLabel('Sort by')).toHaveValue('name');
      await expect(d.getByRole('checkbox', { name: 'Ascending order' })).not.toBeChecked();
    });

    test.describe('on a phone', () => {
      test.use(PHONE);
      test('the three cards fit a 375 px screen', async ({ page }) => {
        const global = await signIn(page);
        await global.addRule('/a-rather-long-folder-name/with/sub/folders');
        await expect(global.defaults()).toBeVisible();
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
        await shot(page, 'settings-global');
        await global.general().getByRole('note').scrollIntoViewIfNeeded();
        await shot(page, 'settings-global-shell');
        await global.runnerEvent('Before upload').click();
        await global.runner().scrollIntoViewIfNeeded();
        await shot(page, 'settings-global-runner');
      });
    });

    test.describe('dark phone', () => {
      test.use({ ...PHONE, colorScheme: 'dark' });
      test('the shell warning in the dark theme on a phone', async ({ page }) => {
        const global = await signIn(page);
        await global.general().getByRole('note').scrollIntoViewIfNeeded();
        await shot(page, 'settings-global-shell-dark');
      });
    });

    test.describe('dark', () => {
      test.use({ colorScheme: 'dark' });
      test('the cards in the dark theme', async ({ page }) => {
        const global = await signIn(page);
        await global.general().getByLabel('Minimum password length').fill('0');
        await global.addRule('(unclosed', { regex: true });
        await shot(page, 'settings-global-dark');
        expect(await seriousViolations(page), 'dark global settings with errors').toEqual([]);
        await global.general().getByRole('note').scrollIntoViewIfNeeded();
        await shot(page, 'settings-global-shell-dark');
        await global.runnerEvent('After copy').click();
        await global.runner().getByLabel('After copy').fill('echo copied "$FILE"');
        await global.runner().scrollIntoViewIfNeeded();
        await shot(page, 'settings-global-runner-dark');
      });
    });
  });
});
