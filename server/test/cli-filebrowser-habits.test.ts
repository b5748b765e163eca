/**
 * File Browser's command-line habits (docs/migrating-from-filebrowser.md): its config file found where
 * File Browser looks for it, its FB_* variables, its --password as a bcrypt hash; what Coffer does
 * not honour is named in a warning at start, and File Browser's own database given as -d is
 * refused with the way to import it.
 */
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, run, serve, workspace, type ServeProcess, type Workspace } from './cli-process.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURE = path.resolve(repo, '../shared/fixtures/filebrowser-db');

let ws: Workspace | undefined;
let server: ServeProcess | undefined;
beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  await server?.stop();
  server = undefined;
  await ws?.dispose();
  ws = undefined;
});

describe('File Browser habits on the command line', { timeout: 90_000 }, () => {
  it('reads ./.filebrowser.json and FB_* variables, takes FB_PASSWORD as a bcrypt hash, warns about what it ignores', async () => {
    ws = await workspace();
    await mkdir(ws.root, { recursive: true });
    const manifest = JSON.parse(await readFile(path.join(FIXTURE, 'manifest.json'), 'utf8')) as { users: { password_plaintext: string; password_hash: string }[] };
    const { password_plaintext: plain, password_hash: hash } = manifest.users[0]!;
    await writeFile(path.join(ws.dir, '.filebrowser.json'), JSON.stringify({ root: ws.root, database: ws.database, baseurl: '/fb', branding: 'x' }));
    // File Browser's short flags, as a unit file would give them.
    server = await serve(ws, ['-a', '127.0.0.1', '-p', '0'], { FB_USERNAME: 'boss', FB_PASSWORD: hash, FB_SEAFILE_RPC_PATH: '/run/x' });
    const warned = server.lines.filter((l) => /"level":40/.test(l)).join('\n');
    expect(warned).toContain('File Browser variables Coffer does not honour, ignored: FB_SEAFILE_RPC_PATH');
    expect(warned).toContain('not Coffer settings, ignored: branding');
    expect(warned).toContain("config file .filebrowser.json found by File Browser's search and read; pass -c to choose one");
    const login = (password: string) =>
      fetch(`${server!.origin}/fb/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'boss', password, recaptcha: '' }) });
    expect((await login(hash)).status).toBe(403); // the hash itself is not the password
    expect((await login(plain)).status).toBe(200);
  });

  it("refuses File Browser's database given as -d, with the command that imports it", async () => {
    ws = await workspace();
    const fb = path.join(ws.dir, 'filebrowser.db');
    await copyFile(path.join(FIXTURE, 'filebrowser.db'), fb);
    const r = await run(ws, ['-d', fb, '-a', '127.0.0.1', '-p', '0', '-r', ws.dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${fb} is File Browser's database`);
    expect(r.stderr).toContain(`coffer import filebrowser ${fb} -d coffer.db`);
    expect(await readFile(fb)).toEqual(await readFile(path.join(FIXTURE, 'filebrowser.db')));
  });
});
