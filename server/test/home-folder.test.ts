/** Home folders of self-created users are never made through a link out of the root (S4, S5, S33). */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useServer } from './harness.js';

describe('signup home folder behind a link', () => {
  const srv = useServer();
  it('refuses signup when userHomeBasePath is a link leaving the root, creating nothing outside', async () => {
    const outside = await mkdtemp(path.join(tmpdir(), 'coffer-outside-'));
    await symlink(outside, path.join(srv.root, 'homes'));
    const s = await srv.deps.settings.settings();
    await srv.deps.settings.saveSettings({ ...s, signup: true, userHomeBasePath: '/homes' });
    const res = await srv.fetch('/api/signup', { method: 'POST', json: { username: 'mallory', password: 'a-long-enough-password' } });
    expect(res.status).toBe(403);
    expect(await readdir(outside)).toEqual([]);
    expect(await srv.deps.users.byUsername('mallory')).toBeUndefined();
  });
  it('creates the home folder inside the root otherwise', async () => {
    const s = await srv.deps.settings.settings();
    await srv.deps.settings.saveSettings({ ...s, signup: true, userHomeBasePath: '/users' });
    const res = await srv.fetch('/api/signup', { method: 'POST', json: { username: 'alice', password: 'a-long-enough-password' } });
    expect(res.status).toBe(200);
    expect(existsSync(path.join(srv.root, 'users', 'alice'))).toBe(true);
  });
});
