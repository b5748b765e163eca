import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createUser } from '../support/api';
import { seriousViolations } from '../support/axe';
import { expect, PHONE, shot, test } from '../support/fixtures';
import { ADMIN, startServer, type RunningServer } from '../support/server';
import { Files } from '../pages/Files';
import { LoginPage, signIn } from '../pages/LoginPage';
import { Terminal } from '../pages/Terminal';

// A server of its own with execution enabled (docs/api.md §16, S70), under a base URL so the socket's
// address is checked to carry it.
let exec: RunningServer;
const RUNNER = { username: 'runner', password: 'runner-password-2024' };
const NO_EXEC = { username: 'noexec', password: 'noexec-password-2024' };

test.beforeAll(async () => {
  test.setTimeout(120_000); // a server start and two users on a busy machine
  exec = await startServer({ args: ['--disable-exec=false', '--baseurl', '/coffer'], baseurl: '/coffer' });
  await createUser(exec.url, {
    ...RUNNER,
    perm: { execute: true },
    commands: ['ls', 'printf', 'sleep'],
  });
  await createUser(exec.url, { ...NO_EXEC, commands: ['ls'] });
  const dir = path.join(exec.root, 'work');
  mkdirSync(path.join(dir, 'sub'), { recursive: true });
  writeFileSync(path.join(dir, 'alpha.txt'), 'a');
  writeFileSync(path.join(dir, 'beta.txt'), 'b');
});
test.afterAll(async () => {
  await exec?.stop();
});

/** axe's serious findings on the panel and its toggle (the rest of the page has its own checks). */
async function panelViolations(page: import('@playwright/test').Page): Promise<string[]> {
  return (await seriousViolations(page)).filter((v) => v.includes('terminal'));
}

/** Signed in on the server with execution on, in its folder work/. */
async function openWork(page: import('@playwright/test').Page, user: { username: string; password: string }) {
  const login = new LoginPage(page);
  await login.goto(`${exec.url}/login?redirect=${encodeURIComponent('/files/work/')}`);
  await login.signIn(user.username, user.password);
  await expect(page.getByRole('heading', { level: 1, name: 'work' })).toBeVisible({ timeout: 30_000 });
}

test.describe('the shell panel', () => {
  test('runs allowed commands in the current folder, strips colours, keeps history, clears and exits', async ({
    page,
  }) => {
    await openWork(page, RUNNER);
    const term = new Terminal(page);
    await expect(term.toggle()).toHaveAttribute('aria-pressed', 'false');
    const sockets: string[] = [];
    page.on('websocket', (ws) => sockets.push(ws.url()));
    await term.open();
    await expect(term.toggle()).toHaveAttribute('aria-pressed', 'true');

    await term.run('ls');
    await expect(term.last()).toContainText('alpha.txt');
    await expect(term.last()).toContainText('beta.txt');
    await expect(term.last()).toContainText('sub');
    expect(sockets.at(-1)).toBe(`${exec.url.replace('http:', 'ws:')}/api/command/work/`);

    await term.run(String.raw`printf '\033[1;31mred\033[0m and \033[32mgreen\033[0m\n'`);
    await expect(term.last().locator('pre')).toHaveText('red and green');
    expect(await term.log().textContent()).not.toContain('\u001b');

    // Empty input is ignored (docs/client.md §2).
    await term.input().fill('   ');
    await term.input().press('Enter');
    await expect(term.entries()).toHaveCount(2);
    await expect(term.input()).toHaveValue('   ');

    // History: up goes to older commands, down comes back to what was being typed.
    await term.input().fill('sl');
    await term.input().press('ArrowUp');
    await expect(term.input()).toHaveValue(/^printf /);
    await term.input().press('ArrowUp');
    await expect(term.input()).toHaveValue('ls');
    await term.input().press('ArrowUp');
    await expect(term.input()).toHaveValue('ls');
    await term.input().press('ArrowDown');
    await term.input().press('ArrowDown');
    await expect(term.input()).toHaveValue('sl');
    await shot(page, 'terminal');
    expect(await panelViolations(page)).toEqual([]);

    // Another folder: commands run there.
    await new Files(page).item('sub').dblclick();
    await expect(page.getByRole('heading', { level: 1, name: 'sub' })).toBeVisible();
    await expect(term.panel()).toBeVisible();
    await term.run('ls -a');
    await expect(term.last()).toContainText('/work/sub/ $ ls -a');

    await term.run('clear');
    await expect(term.entries()).toHaveCount(0);
    await term.input().press('ArrowUp');
    await expect(term.input()).toHaveValue('clear');

    await term.input().fill('exit');
    await term.input().press('Enter');
    await expect(term.panel()).toBeHidden();
    await expect(term.toggle()).toHaveAttribute('aria-pressed', 'false');
    await expect(term.toggle()).toBeFocused();
  });

  test('shows refusals and failures, disables the input while running, and stops on close', async ({
    page,
  }) => {
    await openWork(page, RUNNER);
    const term = new Terminal(page);
    await term.open();

    await term.run('cat alpha.txt');
    await expect(term.last()).toContainText('Command not allowed.');
    // The refusal says what may run and where more is allowed (issue 17).
    await expect(term.last()).toContainText('Commands you may run: ls printf sleep');
    await expect(term.last()).toContainText(
      'An administrator can allow more in Settings → User management → runner → Allowed commands.',
    );
    await term.run('/bin/ls');
    await expect(term.last()).toContainText('Command not allowed.');

    await term.run('ls no-such-file');
    await expect(term.last()).toContainText('no-such-file');
    await expect(term.last()).toContainText('The command ended with an error.');

    // A long command: the input waits, Stop ends it.
    await term.input().fill('sleep 30');
    await term.input().press('Enter');
    await expect(term.input()).toBeDisabled();
    await term.panel().getByRole('button', { name: 'Stop' }).click();
    await expect(term.last()).toContainText('Stopped.');
    await expect(term.input()).toBeEnabled();
    await expect(term.input()).toBeFocused();

    // Closing the panel closes the running command's socket.
    await term.input().fill('sleep 30');
    const socket = page.waitForEvent('websocket');
    await term.input().press('Enter');
    const ws = await socket;
    await expect(term.input()).toBeDisabled();
    const closed = ws.waitForEvent('close');
    await term.panel().getByRole('button', { name: 'Close the shell' }).click();
    await closed;
    await expect(term.panel()).toBeHidden();
    await term.open();
    await expect(term.last()).toContainText('Stopped.');
  });

  test('a refused command shows the allowed commands, at desktop and phone widths', async ({ page }) => {
    await openWork(page, RUNNER);
    const term = new Terminal(page);
    await term.open();
    await term.run('cat alpha.txt');
    await expect(term.last().locator('code')).toHaveText(['ls', 'printf', 'sleep']);
    await expect(term.last().getByRole('link')).toHaveCount(0);
    await shot(page, 'terminal-not-allowed');
    expect(await panelViolations(page)).toEqual([]);
    await page.setViewportSize(PHONE.viewport);
    await expect(term.last()).toContainText('Commands you may run: ls printf sleep');
    await shot(page, 'terminal-not-allowed');
  });

  test('an admin refused a command follows the link to their own allowed commands', async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await openWork(page, ADMIN);
    const term = new Terminal(page);
    await term.open();
    await term.run('cat alpha.txt');
    const link = term.last().getByRole('link', { name: 'Settings → User management → admin → Allowed commands' });
    // The admin may run no command at all: the line says where to allow commands, not "more".
    await expect(term.last()).toContainText('You may not run any command yet.');
    await expect(term.last()).toContainText(
      'You can allow commands in Settings → User management → admin → Allowed commands.',
    );
    await shot(page, 'terminal-not-allowed-admin');
    await page.setViewportSize(PHONE.viewport);
    await expect(link).toBeInViewport();
    await shot(page, 'terminal-not-allowed-admin');
    await link.click();
    await expect(page).toHaveURL(/\/coffer\/settings\/users\/1$/);
    await expect(page.getByRole('textbox', { name: 'Allowed commands' })).toBeVisible();
  });

  test('resizes with the divider, by pointer and by keyboard, and keeps the height', async ({ page }) => {
    await openWork(page, RUNNER);
    const term = new Terminal(page);
    await page.evaluate(() => localStorage.removeItem('terminal-height'));
    await term.open();
    const em = 15; // the page's font size
    expect(Math.round(await term.heightPx())).toBe(25 * em);
    await expect(term.divider()).toHaveAttribute('aria-valuenow', '25');

    await term.divider().focus();
    await page.keyboard.press('ArrowUp');
    await expect(term.divider()).toHaveAttribute('aria-valuenow', '26');
    await page.keyboard.press('PageDown');
    await expect(term.divider()).toHaveAttribute('aria-valuenow', '21');
    await page.keyboard.press('End');
    const max = await term.divider().getAttribute('aria-valuemax');
    expect(Number(max)).toBeCloseTo(800 / em - 4, 1);
    expect(Math.round(await term.heightPx())).toBe(Math.round(800 - 4 * em));
    await page.keyboard.press('Home');
    const min = Number(await term.divider().getAttribute('aria-valuemin'));
    expect(min).toBeGreaterThan(2.25);
    expect(min).toBeLessThan(5);
    // At its smallest the input line is still there.
    await expect(term.input()).toBeInViewport();

    const box = (await term.divider().boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2, 500, { steps: 5 });
    await page.mouse.move(box.x + box.width / 2, 400, { steps: 5 });
    await page.mouse.up();
    await expect.poll(() => term.heightPx()).toBeCloseTo(400, -1);
    // Dragging far up stops at the maximum.
    await page.mouse.move(box.x + box.width / 2, 420);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2, 5, { steps: 4 });
    await page.mouse.up();
    await expect.poll(() => term.heightPx()).toBeCloseTo(800 - 4 * em, -1);

    await page.reload();
    await term.open();
    expect(Math.round(await term.heightPx())).toBe(Math.round(800 - 4 * em));
  });

  test('is not offered without the execute permission', async ({ page }) => {
    await openWork(page, NO_EXEC);
    await expect(new Files(page).toolbar()).toBeVisible();
    await expect(new Terminal(page).toggle()).toHaveCount(0);
    await expect(new Terminal(page).panel()).toHaveCount(0);
  });

  test.describe('on a phone, dark', () => {
    test.use({ ...PHONE, colorScheme: 'dark' });
    test('fits the narrow screen above the selection bar', async ({ page }) => {
      await openWork(page, RUNNER);
      const term = new Terminal(page);
      await term.open();
      await term.run('ls');
      await expect(term.last()).toContainText('alpha.txt');
      await term.run('cat x');
      await new Files(page).item('alpha.txt').click();
      const bar = new Files(page).selectionBar();
      await expect(bar).toBeVisible();
      const [barBox, panelBox] = [await bar.boundingBox(), await term.panel().boundingBox()];
      expect(barBox!.y + barBox!.height).toBeLessThanOrEqual(panelBox!.y + 1);
      expect(panelBox!.width).toBe(375);
      await shot(page, 'terminal-dark');
      expect(await panelViolations(page)).toEqual([]);
      await page.setViewportSize({ width: 1280, height: 800 });
      await shot(page, 'terminal-dark');
    });
  });

  test('light theme on a phone', async ({ page }) => {
    await page.setViewportSize(PHONE.viewport);
    await openWork(page, RUNNER);
    const term = new Terminal(page);
    await term.open();
    await term.run('ls');
    await expect(term.last()).toContainText('alpha.txt');
    await shot(page, 'terminal');
  });
});

test('the shell toggle is absent when the server has execution off', async ({ page, server }) => {
  await createUser(server.url, { username: 'exec-off', password: 'exec-off-password-1', perm: { execute: true }, commands: ['ls'] });
  mkdirSync(path.join(server.root, 'exec-off'), { recursive: true });
  await signIn(page, 'exec-off', 'exec-off-password-1');
  expect(await page.evaluate(() => (window as { FileBrowser?: { EnableExec?: boolean } }).FileBrowser?.EnableExec)).toBe(false);
  await expect(new Files(page).toolbar()).toBeVisible();
  await expect(new Terminal(page).toggle()).toHaveCount(0);
});
