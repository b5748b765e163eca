/**
 * GET /api/sizes/{folder} (docs/api.md §24.2), the disk-usage picture's data: the listing's
 * entries (scope, rules, hidden files, links out of scope left out) with sizes from the file
 * index, biggest first, grouped beyond 200; the listing's 4xx for hostile paths; no data without
 * a ready index. SQLite, and PostgreSQL with COFFER_TEST_PG_URL.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FolderUsage } from '@coffer/protocol';
import { useServer, type TestServer } from './harness.js';
import { denyPath, denyRegex, member, put, rawRequest } from './resources-support.js';

async function waitReady(srv: TestServer): Promise<void> {
  for (let i = 0; i < 400 && srv.deps.index.status !== 'ready'; i++) await new Promise((r) => setTimeout(r, 25));
  expect(srv.deps.index.status).toBe('ready');
}

/** Files written straight to disk reach the index through a reconciliation (the watcher is off). */
const indexed = (srv: TestServer) => srv.deps.index.reconcile();

async function sizes(srv: TestServer, token: string, p: string): Promise<FolderUsage> {
  const res = await srv.fetch(`/api/sizes${p}`, { token });
  expect(res.status, p).toBe(200);
  return (await res.json()) as FolderUsage;
}

describe('GET /api/sizes/{folder} with the index ready', () => {
  const srv = useServer({ disableIndex: false }, { indexWatch: false });
  beforeAll(async () => waitReady(srv.get()));

  it('answers 401 without a session', async () => {
    expect((await srv.fetch('/api/sizes/')).status).toBe(401);
    expect((await srv.fetch('/api/sizes')).status).toBe(401);
  });

  it("answers a folder's children with recursive sizes, biggest first, summing to the folder", async () => {
    const u = await member(srv.get());
    await put(u.dir, 'photos/a.jpg', 'x'.repeat(3000));
    await put(u.dir, 'photos/deep/b.png', 'x'.repeat(2000));
    await put(u.dir, 'notes.txt', 'x'.repeat(700));
    await put(u.dir, 'song.mp3', 'x'.repeat(700));
    await put(u.dir, 'empty/.keep', '');
    await indexed(srv.get());
    const s = await sizes(srv.get(), u.token, '/');
    expect(s.status).toBe('ready');
    expect(s.path).toBe('/');
    expect(s.items.map((i) => [i.name, i.size, i.isDir])).toEqual([
      ['photos', 5000, true],
      ['notes.txt', 700, false],
      ['song.mp3', 700, false],
      ['empty', 0, true],
    ]);
    expect(s.items.find((i) => i.name === 'song.mp3')?.type).toBe('audio');
    expect(s.size).toBe(5700 + 700);
    expect(s.other).toEqual({ count: 0, size: 0 });
    // Into a folder, and the bare prefix is the scope root.
    const inner = await sizes(srv.get(), u.token, '/photos');
    expect(inner.path).toBe('/photos');
    expect(inner.items.map((i) => [i.name, i.size])).toEqual([
      ['a.jpg', 3000],
      ['deep', 2000],
    ]);
    expect((await sizes(srv.get(), u.token, '')).items).toHaveLength(4);
  });

  it('follows writes made through Coffer at once', async () => {
    const u = await member(srv.get());
    expect((await srv.fetch('/api/resources/w/a.bin?override=false', { method: 'POST', token: u.token, body: 'x'.repeat(123) })).status).toBe(200);
    expect((await sizes(srv.get(), u.token, '/')).items).toMatchObject([{ name: 'w', size: 123 }]);
  });

  it('groups the children beyond 200 into one "other" entry', async () => {
    const u = await member(srv.get());
    await mkdir(path.join(u.dir, 'many'));
    await Promise.all(Array.from({ length: 250 }, (_, i) => writeFile(path.join(u.dir, 'many', `f${String(i).padStart(3, '0')}`), 'x'.repeat(i + 1))));
    await indexed(srv.get());
    const s = await sizes(srv.get(), u.token, '/many/');
    expect(s.items).toHaveLength(200);
    expect(s.items[0]).toMatchObject({ name: 'f249', size: 250 });
    expect(s.items[199]).toMatchObject({ name: 'f050', size: 51 });
    // 1 + 2 + … + 50 bytes in the 50 smallest.
    expect(s.other).toEqual({ count: 50, size: (50 * 51) / 2 });
    expect(s.size).toBe((250 * 251) / 2);
  });

  it('neither lists nor names rule-denied and hidden entries, and counts a visible folder whole', async () => {
    const u = await member(srv.get(), { rules: [denyPath('/private'), denyRegex('\\.key$')], hideDotfiles: true });
    await put(u.dir, 'private/secret-plans.txt', 'x'.repeat(5000));
    await put(u.dir, 'id.key', 'k'.repeat(400));
    await put(u.dir, '.env', 'e'.repeat(300));
    await put(u.dir, 'visible.txt', 'v'.repeat(10));
    await indexed(srv.get());
    const res = await srv.fetch('/api/sizes/', { token: u.token });
    const text = await res.text();
    for (const hidden of ['private', 'secret-plans', 'id.key', '.env']) expect(text, hidden).not.toContain(hidden);
    const s = JSON.parse(text) as FolderUsage;
    expect(s.items.map((i) => i.name)).toEqual(['visible.txt']);
    // The denied bytes do not show up in the folder's total either.
    expect(s.size).toBe(10);
    for (const p of ['private', 'private/', 'id.key', '.env', 'x/../private']) {
      expect((await rawRequest(srv.get(), `/api/sizes/${p}`, { token: u.token })).status, p).toBe(403);
    }
  });

  it('answers the listing\'s 403 for paths out of the scope, encoded or not, and links out of it', async () => {
    const u = await member(srv.get());
    await put(srv.root, 'outside/secret.txt', 'secret');
    await put(u.dir, 'ok.txt', 'ok');
    await symlink(path.join(srv.root, 'outside'), path.join(u.dir, 'out'));
    await symlink('/etc', path.join(u.dir, 'etc-link'));
    await indexed(srv.get());
    for (const p of ['/..', '/../outside', '/%2e%2e/%2e%2e/outside', '/a%2f..%2f..%2f..%2fetc', '/out', '/out/', '/etc-link']) {
      const mine = await rawRequest(srv.get(), `/api/sizes${p}`, { token: u.token });
      const listing = await rawRequest(srv.get(), `/api/resources${p}`, { token: u.token });
      expect(mine.status, p).toBe(403);
      expect(mine.status, p).toBe(listing.status);
      expect(mine.text, p).not.toContain(srv.root);
    }
    // The escaping links are not in the picture (S6), and nothing of theirs counts.
    const s = await sizes(srv.get(), u.token, '/');
    expect(s.items.map((i) => i.name)).toEqual(['ok.txt']);
    expect(s.size).toBe(2);
  });

  it('answers 400 for a file, NUL, bad UTF-8 and overlong names, 404 for what is missing', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'a.txt', 'a');
    await indexed(srv.get());
    for (const p of ['a.txt', 'a%00b', '%ff', 'x'.repeat(300)]) {
      const res = await rawRequest(srv.get(), `/api/sizes/${p}`, { token: u.token });
      expect(res.status, p).toBe(400);
    }
    for (const p of ['missing', 'missing/deeper', '..%5Cx']) {
      expect((await rawRequest(srv.get(), `/api/sizes/${p}`, { token: u.token })).status, p).toBe(404);
    }
    // Unknown query parameters and a body change nothing.
    const odd = await rawRequest(srv.get(), '/api/sizes/?depth=-1&limit=abc', { token: u.token });
    expect(odd.status).toBe(200);
  });

  it('counts a link inside the scope as the link itself (the index never follows links)', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'big/data.bin', 'x'.repeat(4000));
    await symlink('big', path.join(u.dir, 'big-link'));
    await indexed(srv.get());
    const s = await sizes(srv.get(), u.token, '/');
    expect(s.items[0]).toMatchObject({ name: 'big', size: 4000 });
    const link = s.items.find((i) => i.name === 'big-link');
    expect(link).toMatchObject({ isSymlink: true });
    expect(link!.size).toBeLessThan(100);
    // Through the link, the folder it points to.
    expect((await sizes(srv.get(), u.token, '/big-link')).items).toMatchObject([{ name: 'data.bin', size: 4000 }]);
  });
});

describe('GET /api/sizes/{folder} without the index', () => {
  const srv = useServer({ disableIndex: true });

  it('says the index is off and sends no sizes, after the same path checks', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'a.txt', 'x'.repeat(50));
    const s = await sizes(srv.get(), u.token, '/');
    expect(s).toEqual({ status: 'disabled', percent: 0, path: '/', size: 0, items: [], other: { count: 0, size: 0 } });
    expect((await rawRequest(srv.get(), '/api/sizes/..', { token: u.token })).status).toBe(403);
    expect((await rawRequest(srv.get(), '/api/sizes/a.txt', { token: u.token })).status).toBe(400);
  });
});
