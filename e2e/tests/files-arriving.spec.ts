import { apiLogin, listByName } from '../support/api';
import { expect, shot, test } from '../support/fixtures';
import { holdingProxy } from '../support/holdingProxy';
import { seed } from '../support/seed';
import { Files } from '../pages/Files';

// A big folder shows its first rows while the rest of its listing is still arriving (issue 9): the
// proxy holds the listing after its first 64 KiB.

const COUNT = 3000;
const name = (i: number) => `f-${String(i).padStart(4, '0')}.txt`;

test('a big folder shows its first rows while the rest of its listing arrives, cold and in the app', async ({
  page,
  server,
}) => {
  const many = Object.fromEntries(Array.from({ length: COUNT }, (_, i) => [name(i), '']));
  seed(server.root, 'arriving/cold', many);
  seed(server.root, 'arriving/in-app', many);
  await listByName(server.url);
  const proxy = await holdingProxy(server.url, (p) => /^\/api\/resources\/arriving\/[^/]+\/$/.test(p));
  try {
    await page.addInitScript((jwt) => localStorage.setItem('jwt', jwt), await apiLogin(server.url));
    // Notes rows that vanish once shown (a spinner in between, or the browser mounted anew).
    await page.addInitScript(() => {
      const w = window as unknown as { hadRows: boolean; rowsVanished: boolean };
      w.hadRows = false;
      w.rowsVanished = false;
      new MutationObserver(() => {
        if (document.querySelector('[role="option"]')) w.hadRows = true;
        else if (w.hadRows) w.rowsVanished = true;
      }).observe(document, { childList: true, subtree: true });
    });
    const watchRows = () =>
      page.evaluate(() => Object.assign(window as unknown as object, { hadRows: true, rowsVanished: false }));
    const rowsVanished = () => page.evaluate(() => (window as unknown as { rowsVanished: boolean }).rowsVanished);
    const files = new Files(page);
    const arriving = page.getByRole('status').filter({ hasText: 'Loading' });

    /** While held: the first rows in order, the count not known yet, the rest announced as coming. */
    async function whileHeld(): Promise<void> {
      await proxy.held();
      await expect(files.item(name(0))).toBeVisible();
      expect((await files.names()).slice(0, 3)).toEqual([name(0), name(1), name(2)]);
      await expect(files.item(name(0))).toHaveAttribute('aria-setsize', '-1');
      await expect(files.listing()).toHaveAttribute('aria-busy', 'true');
      await expect(arriving).toBeVisible();
      await files.item(name(1)).click();
      await expect(files.item(name(1))).toHaveAttribute('aria-selected', 'true');
      await watchRows();
    }
    /** Released: the whole listing, the same first rows, the same browser (the selection kept). */
    async function whenArrived(): Promise<void> {
      proxy.release();
      await expect(files.item(name(0))).toHaveAttribute('aria-setsize', String(COUNT));
      await expect(files.listing()).toHaveAttribute('aria-busy', 'false');
      await expect(arriving).toHaveCount(0);
      expect((await files.names()).slice(0, 3)).toEqual([name(0), name(1), name(2)]);
      await expect(files.item(name(1))).toHaveAttribute('aria-selected', 'true');
      expect(await rowsVanished()).toBe(false);
    }

    await page.goto(`${proxy.url}/files/arriving/cold/`);
    await whileHeld();
    await shot(page, 'files-arriving');
    await whenArrived();

    await files.breadcrumbs().getByRole('link', { name: 'arriving' }).click();
    await page.setViewportSize({ width: 375, height: 812 });
    await files.item('in-app').dblclick();
    await whileHeld();
    await shot(page, 'files-arriving');
    await whenArrived();
    await expect(page).toHaveURL(/\/files\/arriving\/in-app\/$/);
  } finally {
    await proxy.close();
  }
});
