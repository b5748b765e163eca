import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, PHONE, shot, test as base } from '../support/fixtures';
import { startServer, REPO, type RunningServer } from '../support/server';
import { signIn } from '../pages/LoginPage';
import { SharePage } from '../pages/SharePage';
import { Files } from '../pages/Files';

// A server whose database was made by `coffer import filebrowser` from File Browser's real
// database (../shared/fixtures/filebrowser-db, docs/migrating-from-filebrowser.md): its users sign in
// with their File Browser passwords and its share links open at their old addresses.
const FIXTURE = path.resolve(REPO, '..', 'shared', 'fixtures', 'filebrowser-db');

interface Manifest {
  users: { username: string; password_plaintext: string }[];
  shares: { hash: string; path: string; username: string; password_plaintext?: string; expired: boolean }[];
}
const manifest = JSON.parse(readFileSync(path.join(FIXTURE, 'manifest.json'), 'utf8')) as Manifest;
const bob = manifest.users.find((u) => u.username === 'bob')!;
const bobShare = manifest.shares.find((s) => s.username === 'bob' && !s.expired)!;
const protectedShare = manifest.shares.find((s) => s.password_plaintext && !s.expired)!;
const expiredShare = manifest.shares.find((s) => s.expired)!;

const test = base.extend<object, { server: RunningServer }>({
  server: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const server = await startServer({
        beforeStart: ({ dir, root, database, bin }) => {
          for (const [rel, text] of Object.entries({ 'bob/music/song.mp3': 'ID3 not really a song', 'alice/photos/cat.txt': 'a cat' })) {
            mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
            writeFileSync(path.join(root, rel), text);
          }
          const db = path.join(dir, 'filebrowser.db');
          copyFileSync(path.join(FIXTURE, 'filebrowser.db'), db);
          const args = ['import', 'filebrowser', db, '-d', database, '--root', root, '--server-config', path.join(dir, 'fb.json')];
          const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
          if (r.status !== 0) throw new Error(`import failed: ${r.stderr}`);
        },
      });
      await use(server);
      await server.stop();
    },
    { scope: 'worker', timeout: 120_000 },
  ],
});

test.describe('after coffer import filebrowser', () => {
  test('a File Browser user signs in with the old password and sees the files of the old scope', async ({ page }) => {
    await signIn(page, bob.username, bob.password_plaintext);
    const files = new Files(page);
    await expect(files.item('music')).toBeVisible();
    await shot(page, 'imported-user-files');
  });

  test('an old share link opens at its old address, the protected one with its password', async ({ page }) => {
    const share = new SharePage(page);
    await share.goto(bobShare.hash);
    await share.expectHeading(path.posix.basename(bobShare.path));

    await share.goto(protectedShare.hash);
    await expect(share.password()).toBeVisible({ timeout: 30_000 });
    await share.unlock('not the password');
    await expect(page.getByText('Wrong password.')).toBeVisible();
    await share.unlock(protectedShare.password_plaintext!);
    await share.expectHeading(path.posix.basename(protectedShare.path));
    await expect(share.item('cat.txt')).toBeVisible();
    await shot(page, 'imported-share-protected');

    await share.goto(expiredShare.hash);
    // File Browser dropped an expired link; the import leaves it out: not found.
    await expect(page.getByText("This page doesn't exist.")).toBeVisible({ timeout: 30_000 });
  });

  test.describe('on a phone', () => {
    test.use(PHONE);
    test('the imported protected share opens', async ({ page }) => {
      const share = new SharePage(page);
      await share.goto(protectedShare.hash);
      await share.unlock(protectedShare.password_plaintext!);
      await expect(share.item('cat.txt')).toBeVisible({ timeout: 30_000 });
      await shot(page, 'imported-share-protected');
    });
  });
});
