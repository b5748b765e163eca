/**
 * rclone (Debian package `rclone`, remote type webdav, vendor other) against a real Coffer (issue
 * 19): a tree of 1,000 small files and one 100 MiB file copied up and back down, `rclone check`
 * finding no difference; a move and a delete made through rclone seen by the web API.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile, open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useServer } from './harness.js';

const RCLONE = '/usr/bin/rclone';

function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(RCLONE, args, { env: { ...process.env, ...env } });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, out }));
  });
}

describe('rclone', () => {
  const srv = useServer();
  let work: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'coffer-rclone-'));
    const src = path.join(work, 'src');
    for (let d = 0; d < 10; d++) {
      await mkdir(path.join(src, `dir ${d}`), { recursive: true });
      for (let f = 0; f < 100; f++) await writeFile(path.join(src, `dir ${d}`, `file #${f} é.txt`), randomBytes(f * 37));
    }
    const big = await open(path.join(src, 'big.bin'), 'w');
    for (let i = 0; i < 100; i++) await big.write(randomBytes(1024 * 1024));
    await big.close();
    const user = await srv.createUser({ scope: '/' });
    const obscured = await run(['obscure', user.password]);
    env = {
      RCLONE_CONFIG: path.join(work, 'none.conf'),
      RCLONE_CONFIG_COFFER_TYPE: 'webdav',
      RCLONE_CONFIG_COFFER_URL: `${srv.url}/dav/`,
      RCLONE_CONFIG_COFFER_VENDOR: 'other',
      RCLONE_CONFIG_COFFER_USER: user.username,
      RCLONE_CONFIG_COFFER_PASS: obscured.out.trim(),
    };
  });
  afterAll(async () => rm(work, { recursive: true, force: true }));

  it('copies a tree up and back down with no difference', { timeout: 600_000 }, async () => {
    const src = path.join(work, 'src');
    const down = path.join(work, 'down');
    const up = await run(['copy', src, 'coffer:tree'], env);
    expect(up.code, up.out).toBe(0);
    const check = await run(['check', src, 'coffer:tree', '--download'], env);
    expect(check.code, check.out).toBe(0);
    const back = await run(['copy', 'coffer:tree', down], env);
    expect(back.code, back.out).toBe(0);
    const same = await run(['check', src, down], env);
    expect(same.code, same.out).toBe(0);
    expect(same.out).toMatch(/0 differences found/);
    expect(same.out).toMatch(/1001 matching files/);
  });

  it('a move and a delete made with rclone show in the web API', { timeout: 120_000 }, async () => {
    expect((await run(['moveto', 'coffer:tree/dir 0/file #1 é.txt', 'coffer:tree/moved.txt'], env)).code).toBe(0);
    expect((await run(['purge', 'coffer:tree/dir 1'], env)).code).toBe(0);
    const token = await srv.login();
    const listing = (await (await srv.fetch('/api/resources/tree/', { token })).json()) as { items: { name: string }[] };
    const names = listing.items.map((i) => i.name);
    expect(names).toContain('moved.txt');
    expect(names).not.toContain('dir 1');
    const moved = await srv.fetch(`/api/resources/tree/${encodeURIComponent('dir 0')}/${encodeURIComponent('file #1 é.txt')}`, { token });
    expect(moved.status).toBe(404);
  });
});
