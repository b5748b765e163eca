/**
 * Sign-in review (docs/api.md §2.10, §2.11): what a stolen session or an app password must not
 * outlive or reach, over real HTTP, on SQLite and PostgreSQL.
 */
import { chmod, copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppPasswordCreated } from '@coffer/protocol';
import { hashPassword } from '../src/auth/passwords.js';
import { defaultAuther } from '../src/features/settings/repository.js';
import { ensureBuilt, run, workspace, type Workspace } from './cli-process.js';
import { useServer, type TestServer } from './harness.js';

const FB_FIXTURE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/fixtures/filebrowser-db/filebrowser.db');

/** A new app password; `password` confirms it (json and hook auth methods, docs/api.md §2.10). */
async function appPassword(srv: TestServer, token: string, password?: string): Promise<AppPasswordCreated> {
  const json = { name: 'script', readOnly: false, expiresInDays: 0, current_password: password };
  const res = await srv.fetch('/api/app-passwords', { method: 'POST', token, json });
  expect(res.status).toBe(201);
  return (await res.json()) as AppPasswordCreated;
}

const status = async (srv: TestServer, p: string, init: Parameters<TestServer['fetch']>[1] = {}) =>
  (await srv.fetch(p, init)).status;

describe('sign-in review', () => {
  const srv = useServer();

  it('a renewal that races the logout of its sign-in gives no token that outlives the logout', async () => {
    const u = await srv.createUser();
    const token = await srv.login(u.username, u.password);
    const tokens = srv.deps.tokens;
    const issue = tokens.issue;
    // The logout lands after the renewal's session was checked and before its token is made.
    tokens.issue = async (user, origin) => {
      tokens.issue = issue;
      expect(await status(srv, '/api/logout', { method: 'POST', token })).toBe(204);
      return issue(user, origin);
    };
    try {
      const res = await srv.fetch('/api/renew', { method: 'POST', token });
      if (res.status === 200) expect(await status(srv, '/api/resources/', { token: await res.text() })).toBe(401);
      expect(res.status).toBe(401);
    } finally {
      tokens.issue = issue;
    }
    expect(await status(srv, '/api/resources/', { token })).toBe(401);
  });
});

describe('sign-in review: text that reaches the database', () => {
  const srv = useServer();

  it('refuses an app password name with control characters (NUL broke the insert on PostgreSQL: 500)', async () => {
    const token = await srv.login();
    for (const name of ['a\u0000b', 'line\nbreak', 'bell\u0007', 'c1\u0085', 'lone \ud800']) {
      const res = await srv.fetch('/api/app-passwords', { method: 'POST', token, json: { name, readOnly: false, expiresInDays: 0 } });
      expect(res.status, JSON.stringify(name)).toBe(400);
    }
  });

  it('answers 404 for a session id with NUL or other control characters', async () => {
    const token = await srv.login();
    for (const id of ['a%00b', 'a%0Ab']) expect(await status(srv, `/api/sessions/${id}`, { method: 'DELETE', token }), id).toBe(404);
  });
});

describe('sign-in review: the hook auth method', () => {
  const srv = useServer();
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'coffer-hook-'));
    await writeFile(path.join(dir, 'hook.sh'), '#!/bin/sh\necho "hook.action=auth"\n');
    await chmod(path.join(dir, 'hook.sh'), 0o755);
    await srv.deps.settings.saveAuther({ ...defaultAuther('hook'), command: `${dir}/hook.sh` });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a new password from the hook ends the app passwords too', async () => {
    const u = await srv.createUser({ passwordHash: await hashPassword('old-password-1234') });
    const token = await srv.login(u.username, 'old-password-1234');
    // Under hook too, a new app password takes the current password (5a455ed; the hook decides).
    const { secret } = await appPassword(srv, token, 'old-password-1234');
    expect(await status(srv, '/api/resources/', { headers: { 'X-Auth': secret } })).toBe(200);
    await srv.login(u.username, 'new-password-5678');
    expect(await status(srv, '/api/resources/', { token })).toBe(401);
    expect(await status(srv, '/api/resources/', { headers: { 'X-Auth': secret } })).toBe(401);
  });
});

describe('sign-in review: the command line on a running server’s database', { timeout: 90_000 }, () => {
  const srv = useServer();
  let ws: Workspace;
  beforeAll(async () => {
    ensureBuilt();
    ws = await workspace();
  }, 120_000);
  afterAll(async () => {
    await ws?.dispose();
  });

  it('users update --password and users rm end the user’s app passwords', async () => {
    const u = await srv.createUser();
    const { secret } = await appPassword(srv, await srv.login(u.username, u.password), u.password);
    expect(await status(srv, '/api/resources/', { headers: { 'X-Auth': secret } })).toBe(200);
    const upd = await run(ws, ['users', 'update', u.username, '-d', srv.config.database, '--password', 'another-long-password-1']);
    expect(upd.code, upd.stderr).toBe(0);
    expect(await status(srv, '/api/resources/', { headers: { 'X-Auth': secret } })).toBe(401);

    const gone = await srv.createUser();
    await appPassword(srv, await srv.login(gone.username, gone.password), gone.password);
    const rm = await run(ws, ['users', 'rm', gone.username, '-d', srv.config.database]);
    expect(rm.code, rm.stderr).toBe(0);
    const left = await srv.deps.db.kysely.selectFrom('app_passwords').select('id').where('user_id', '=', gone.id).execute();
    expect(left).toEqual([]);
  });

  it('a password the import changes ends the user’s app passwords too', async () => {
    // File Browser's fixture has "alice"; Coffer's alice has another password until the import,
    // which replaces a user no earlier import made only when told to (--replace-users).
    const u = await srv.createUser({ username: 'alice', password: 'alice-in-coffer-1' });
    const token = await srv.login(u.username, u.password);
    const { secret } = await appPassword(srv, token, u.password);
    const fb = path.join(ws.dir, 'filebrowser.db');
    await copyFile(FB_FIXTURE, fb);
    const r = await run(ws, ['import', 'filebrowser', fb, '-d', srv.config.database, '--root', srv.root, '--server-config', path.join(ws.dir, 'fb.json'), '--replace-users']);
    expect(r.code, r.stderr).toBe(0);
    expect(await status(srv, '/api/resources/', { token })).toBe(401);
    expect(await status(srv, '/api/resources/', { headers: { 'X-Auth': secret } })).toBe(401);
  });
});

describe('sign-in review: WebDAV', () => {
  const srv = useServer();

  it('a read-only app password gets 403 on MKCOL, COPY, MOVE, LOCK, UNLOCK and PROPPATCH too, and reads', async () => {
    const u = await srv.createUser();
    const res = await srv.fetch('/api/app-passwords', {
      method: 'POST',
      token: await srv.login(u.username, u.password),
      json: { name: 'dav', readOnly: true, expiresInDays: 0, current_password: u.password },
    });
    const { secret } = (await res.json()) as AppPasswordCreated;
    await writeFile(path.join(srv.root, 'here.txt'), 'text');
    const basic = { Authorization: `Basic ${Buffer.from(`${u.username}:${secret}`).toString('base64')}` };
    const destination = { Destination: `${srv.url}/dav/there.txt` };
    expect(await status(srv, '/dav/here.txt', { headers: basic })).toBe(200);
    expect(await status(srv, '/dav/new-folder', { method: 'MKCOL', headers: basic })).toBe(403);
    expect(await status(srv, '/dav/here.txt', { method: 'COPY', headers: { ...basic, ...destination } })).toBe(403);
    expect(await status(srv, '/dav/here.txt', { method: 'MOVE', headers: { ...basic, ...destination } })).toBe(403);
    // Nor may it lift the lock the user's own editor holds, set a property or lock.
    const account = { Authorization: `Basic ${Buffer.from(`${u.username}:${u.password}`).toString('base64')}` };
    const lockinfo =
      '<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>';
    const locked = await srv.fetch('/dav/here.txt', { method: 'LOCK', headers: { ...account, 'content-type': 'application/xml' }, body: lockinfo });
    expect(locked.status).toBe(200);
    const lockToken = locked.headers.get('lock-token')!;
    expect(await status(srv, '/dav/here.txt', { method: 'UNLOCK', headers: { ...basic, 'Lock-Token': lockToken } })).toBe(403);
    expect(await status(srv, '/dav/here.txt', { method: 'LOCK', headers: basic, body: lockinfo })).toBe(403);
    const propertyupdate =
      '<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:z"><D:set><D:prop><Z:color>red</Z:color></D:prop></D:set></D:propertyupdate>';
    expect(await status(srv, '/dav/here.txt', { method: 'PROPPATCH', headers: basic, body: propertyupdate })).toBe(403);
    expect(await status(srv, '/dav/here.txt', { method: 'UNLOCK', headers: { ...account, 'Lock-Token': lockToken } })).toBe(204);
  });
});
