/**
 * A WebDAV PUT that never finishes (issue 19): the server killed with SIGKILL mid-body leaves no
 * partial file and the old version of an overwritten file intact; a full disk is 507 with the old
 * file intact and no staging file left.
 */
import http from 'node:http';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN } from './harness.js';
import { childServer, type ChildServer } from './tus-child.js';
import { basic } from './webdav-helpers.js';

const auth = basic(ADMIN.username, ADMIN.password);
const MIB = 1024 * 1024;

async function put(url: string, body: Buffer): Promise<number> {
  const res = await fetch(url, { method: 'PUT', headers: { authorization: auth }, body });
  return res.status;
}

/** Names in the root that are staging files (fs/names.ts). */
async function staging(root: string): Promise<string[]> {
  return (await readdir(root)).filter((n) => n.startsWith('.coffer-tmp-'));
}

describe('WebDAV PUT when the server dies or the disk is full', () => {
  let srv: ChildServer | undefined;
  afterEach(async () => srv?.close());

  it('SIGKILL mid-PUT: the old file is intact, no partial file is visible', { timeout: 120_000 }, async () => {
    srv = await childServer();
    await srv.start();
    const old = Buffer.alloc(3 * MIB, 'o');
    expect(await put(`${srv.url}/dav/doc.bin`, old)).toBe(201);
    // A body that arrives slowly: 8 MiB sent, 64 MiB announced, then the server is killed once
    // the staging file holds bytes.
    const req = http.request(`${srv.url}/dav/doc.bin`, { method: 'PUT', headers: { authorization: auth, 'content-length': String(64 * MIB) } });
    req.on('error', () => undefined);
    for (let i = 0; i < 8; i++) req.write(Buffer.alloc(MIB, 'n'));
    const root = srv.root;
    await expect
      .poll(async () => {
        for (const n of await staging(root)) if ((await stat(path.join(root, n))).size > 0) return true;
        return false;
      }, { timeout: 30_000 })
      .toBe(true);
    await srv.kill();
    req.destroy();
    expect((await readFile(path.join(root, 'doc.bin'))).equals(old)).toBe(true);
    await srv.start();
    const list = await fetch(`${srv.url}/dav/`, { method: 'PROPFIND', headers: { authorization: auth, depth: '1' } });
    const body = await list.text();
    expect(body).not.toContain('coffer-tmp');
    const get = await fetch(`${srv.url}/dav/doc.bin`, { headers: { authorization: auth } });
    expect(Buffer.from(await get.arrayBuffer()).equals(old)).toBe(true);
  });

  it('a full disk is 507; the old file stays and no staging file is left', { timeout: 120_000 }, async () => {
    srv = await childServer();
    await srv.start({ fileSizeLimitKiB: 1024 });
    const old = Buffer.alloc(100 * 1024, 'o');
    expect(await put(`${srv.url}/dav/full.bin`, old)).toBe(201);
    expect(await put(`${srv.url}/dav/full.bin`, Buffer.alloc(2 * MIB, 'n'))).toBe(507);
    expect((await readFile(path.join(srv.root, 'full.bin'))).equals(old)).toBe(true);
    expect(await staging(srv.root)).toEqual([]);
  });
});
