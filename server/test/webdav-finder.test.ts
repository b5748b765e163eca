/**
 * macOS Finder's `._*` and `.DS_Store` files over WebDAV (issue 19, item 4): with the global setting
 * `webdav.refuseMacMetadata` (on by default) writes to them are answered as done and store nothing,
 * reads are 404 and PROPFIND never lists them; off, they are ordinary files. Runs on PostgreSQL too.
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ADMIN, useServer, type TestServer } from './harness.js';
import { davRaw, hrefs } from './webdav-helpers.js';

const admin = { username: ADMIN.username, password: ADMIN.password };
const dav = (srv: TestServer, method: string, p: string, opts: Parameters<typeof davRaw>[3] = {}) => davRaw(srv, method, p, { auth: admin, ...opts });
const lockBody =
  '<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>';

async function setRefuse(srv: TestServer, on: boolean): Promise<void> {
  const token = await srv.login();
  const settings = (await (await srv.fetch('/api/settings', { token })).json()) as Record<string, unknown>;
  const res = await srv.fetch('/api/settings', { method: 'PUT', token, json: { ...settings, webdav: { refuseMacMetadata: on } } });
  expect(res.status).toBe(200);
}

describe("WebDAV and macOS Finder's metadata files", () => {
  const srv = useServer();

  it('is on by default, and a settings PUT that leaves the field out keeps it on', async () => {
    const token = await srv.login();
    const settings = (await (await srv.fetch('/api/settings', { token })).json()) as Record<string, unknown>;
    expect(settings.webdav).toEqual({ refuseMacMetadata: true });
    const { webdav: _left, ...fileBrowsers } = settings;
    expect((await srv.fetch('/api/settings', { method: 'PUT', token, json: fileBrowsers })).status).toBe(200);
    expect(((await (await srv.fetch('/api/settings', { token })).json()) as Record<string, unknown>).webdav).toEqual({ refuseMacMetadata: true });
  });

  it('on: writes answer as Finder expects and store nothing; reads are 404; PROPFIND lists none', async () => {
    await mkdir(path.join(srv.root, 'mac'), { recursive: true });
    await writeFile(path.join(srv.root, 'mac', 'a.txt'), 'a');
    // Files of those names already on disk stay, unseen.
    await writeFile(path.join(srv.root, 'mac', '.DS_Store'), 'old');
    const lock = await dav(srv, 'LOCK', '/dav/mac/._a.txt', { body: lockBody });
    expect(lock.status).toBe(200);
    const token = /^<(.+)>$/.exec(lock.headers['lock-token'] as string)![1]!;
    expect((await dav(srv, 'PUT', '/dav/mac/._a.txt', { body: 'apple double', headers: { if: `(<${token}>)` } })).status).toBe(201);
    expect((await dav(srv, 'UNLOCK', '/dav/mac/._a.txt', { headers: { 'lock-token': `<${token}>` } })).status).toBe(204);
    expect((await dav(srv, 'PUT', '/dav/mac/.DS_Store', { body: 'finder' })).status).toBe(201);
    expect((await dav(srv, 'MKCOL', '/dav/mac/._folder')).status).toBe(201);
    expect((await dav(srv, 'COPY', '/dav/mac/a.txt', { headers: { destination: '/dav/mac/._copy' } })).status).toBe(201);
    expect((await dav(srv, 'MOVE', '/dav/mac/._a.txt', { headers: { destination: '/dav/mac/._b.txt' } })).status).toBe(201);
    expect((await dav(srv, 'DELETE', '/dav/mac/._b.txt')).status).toBe(204);
    expect((await dav(srv, 'DELETE', '/dav/mac/.DS_Store')).status).toBe(204);
    for (const name of ['._a.txt', '._b.txt', '._folder', '._copy']) expect(existsSync(path.join(srv.root, 'mac', name)), name).toBe(false);
    expect(existsSync(path.join(srv.root, 'mac', 'a.txt'))).toBe(true);
    expect(existsSync(path.join(srv.root, 'mac', '.DS_Store'))).toBe(true);
    expect((await dav(srv, 'GET', '/dav/mac/.DS_Store')).status).toBe(404);
    expect((await dav(srv, 'PROPFIND', '/dav/mac/.DS_Store', { headers: { depth: '0' } })).status).toBe(404);
    const listing = await dav(srv, 'PROPFIND', '/dav/mac/', { headers: { depth: '1' } });
    expect(hrefs(listing.body)).toEqual(['/dav/mac/', '/dav/mac/a.txt']);
    // The web API is another door: it is not concerned.
    const api = await srv.fetch('/api/resources/mac/', { token: await srv.login() });
    expect(((await api.json()) as { items: { name: string }[] }).items.map((i) => i.name).sort()).toEqual(['.DS_Store', 'a.txt']);
  });

  it('off: they are ordinary files, stored and listed', async () => {
    await setRefuse(srv, false);
    try {
      await mkdir(path.join(srv.root, 'kept'), { recursive: true });
      expect((await dav(srv, 'PUT', '/dav/kept/._a.txt', { body: 'apple double' })).status).toBe(201);
      expect((await dav(srv, 'PUT', '/dav/kept/.DS_Store', { body: 'finder' })).status).toBe(201);
      expect(existsSync(path.join(srv.root, 'kept', '._a.txt'))).toBe(true);
      expect((await dav(srv, 'GET', '/dav/kept/.DS_Store')).body).toBe('finder');
      const listing = await dav(srv, 'PROPFIND', '/dav/kept/', { headers: { depth: '1' } });
      expect(hrefs(listing.body).sort()).toEqual(['/dav/kept/', '/dav/kept/.DS_Store', '/dav/kept/._a.txt']);
    } finally {
      await setRefuse(srv, true);
    }
  });
});
