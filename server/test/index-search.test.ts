/**
 * Search from the file index (docs/api.md §24) against the walk (§12) on the same randomised
 * tree: the same lines in the same order for every query, user, scope and rule set; hostile
 * paths refused the same way.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './harness.js';

let dir: string;
let indexed: TestServer;
let walked: TestServer;

/** A small deterministic generator (mulberry32), so a failure can be replayed from its seed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SEED = Number(process.env.COFFER_INDEX_SEED ?? 20261128);
const WORDS = ['Report', 'report', 'notes', 'IMG', 'photo', 'song', 'Film', 'a b', 'ÉTÉ', 'été', 'data', 'x', 'ab', '"q"', '%_\\'];
const EXTS = ['', '.txt', '.jpg', '.JPG', '.png', '.mp3', '.mkv', '.pdf', '.PDF', '.key', '.tar.gz'];

async function makeTree(root: string): Promise<void> {
  const rnd = random(SEED);
  const pick = <T>(a: readonly T[]) => a[Math.floor(rnd() * a.length)]!;
  const folders = [''];
  for (let i = 0; i < 600; i++) {
    const parent = pick(folders);
    const name = `${rnd() < 0.1 ? '.' : ''}${pick(WORDS)}${rnd() < 0.5 ? '-' + Math.floor(rnd() * 50) : ''}`;
    if (rnd() < 0.2) {
      const rel = `${parent}/${name}`;
      if (await mkdir(path.join(root, rel), { recursive: true }).then(() => true, () => false)) folders.push(rel);
    } else {
      await writeFile(path.join(root, parent, name + pick(EXTS)), 'x'.repeat(Math.floor(rnd() * 100))).catch(() => undefined);
    }
  }
  await mkdir(path.join(root, 'private'), { recursive: true });
  await writeFile(path.join(root, 'private', 'report-secret.txt'), 'secret');
  const outside = path.join(path.dirname(root), 'outside');
  await mkdir(outside, { recursive: true });
  await writeFile(path.join(outside, 'report-leak.txt'), 'leak');
  await symlink(outside, path.join(root, 'report-out-link'));
  await symlink('private', path.join(root, 'report-in-link'));
  await symlink('/etc/passwd', path.join(root, 'private', 'report-abs-link'));
  await symlink('missing-target', path.join(root, 'report-dangling'));
}

async function waitReady(srv: TestServer): Promise<void> {
  for (let i = 0; i < 200 && srv.deps.index.status !== 'ready'; i++) await new Promise((r) => setTimeout(r, 25));
  expect(srv.deps.index.status).toBe('ready');
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'coffer-index-search-'));
  const root = path.join(dir, 'root');
  await mkdir(root);
  await makeTree(root);
  indexed = await startServer({ root, disableIndex: false });
  walked = await startServer({ root, disableIndex: true });
  await waitReady(indexed);
});

afterAll(async () => {
  await indexed?.close();
  await walked?.close();
  await rm(dir, { recursive: true, force: true });
});

const tokens = new Map<string, string>();
async function tokenFor(srv: TestServer, user?: { username: string; password: string }): Promise<string> {
  const key = `${srv.url} ${user?.username ?? ''}`;
  let token = tokens.get(key);
  if (!token) tokens.set(key, (token = user ? await srv.login(user.username, user.password) : await srv.login()));
  return token;
}

async function both(url: string, user?: { username: string; password: string }): Promise<[string, string]> {
  const answer = async (srv: TestServer) => {
    const token = await tokenFor(srv, user);
    const res = await srv.fetch(url, { token });
    return `${res.status} ${await res.text()}`;
  };
  return [await answer(indexed), await answer(walked)];
}

const QUERIES = ['report', 'Report case:sensitive', 'REP', 'ab', 'x', 'a b', '"a b"', 'été', 'ÉTÉ', 'type:image', 'type:audio', 'type:video', 'type:pdf', 'type:PDF', 'type:image photo', 'type:music song', '%', '_', '\\', '"q"', 'notes data', '', 'zzzz-none'];

describe('indexed search equals the walk', () => {
  it('is answered by the index (not the walk)', async () => {
    expect(indexed.deps.index.status).toBe('ready');
    expect(walked.deps.index.status).toBe('disabled');
    expect(await indexed.deps.index.search(indexed.deps.index.root, ['report'])).not.toBeNull();
  });

  it('gives the same lines in the same order for every query from the root and from folders', async () => {
    for (const q of QUERIES) {
      for (const from of ['/', '/report', '/private/', '/Report-1/']) {
        const [a, b] = await both(`/api/search${from}?query=${encodeURIComponent(q)}`);
        expect(a, `query ${JSON.stringify(q)} from ${from}`).toBe(b);
      }
    }
    // Something was found at all (the comparison is not between two empty answers).
    const [all] = await both('/api/search/?query=');
    expect(all.split('\n').length).toBeGreaterThan(300);
  });

  it('applies scope, rules and hidden dotfiles as the walk does', async () => {
    const spec = {
      hideDotfiles: true,
      rules: [
        { regex: false, allow: false, path: '/private', regexp: { raw: '' } },
        { regex: true, allow: false, path: '', regexp: { raw: '\\.key$' } },
        { regex: true, allow: false, path: '', regexp: { raw: '(?i)film' } },
      ],
    };
    for (const over of [spec, { scope: '/private' }, { scope: '/report' }, { scope: '/report-in-link' }]) {
      const name = `u${Math.random().toString(36).slice(2, 8)}`;
      const a = await indexed.createUser({ ...over, username: name, password: 'pw-for-index-tests' });
      await walked.createUser({ ...over, username: name, password: 'pw-for-index-tests' });
      for (const q of ['report', 'type:image', '', 'film', 'secret']) {
        const [x, y] = await both(`/api/search/?query=${encodeURIComponent(q)}`, a);
        expect(x, `${JSON.stringify(over)} ${q}`).toBe(y);
      }
    }
  });

  it('answers a term holding a NUL character as the walk does, without a database error', async () => {
    // No name holds NUL; SQLite's FTS5 reads it as the end of the query, PostgreSQL refuses it in text.
    for (const q of ['abc\0def', '\0\0\0', 'report \0\0\0', '"rep\0ort"']) {
      const [a, b] = await both(`/api/search/?query=${encodeURIComponent(q)}`);
      expect(a, JSON.stringify(q)).toBe(b);
    }
  });

  it('refuses hostile paths as the walk does and never reports what lies outside the scope', async () => {
    for (const url of ['/api/search/..%2f?query=report', '/api/search/%2e%2e/?query=x', '/api/search/report-out-link/?query=leak', '/api/search/private/report-abs-link?query=x', '/api/search/%00?query=x', '/api/search/nope/?query=x']) {
      const [a, b] = await both(url);
      expect(a, url).toBe(b);
    }
    const [all] = await both('/api/search/?query=leak');
    expect(all).toBe('200 ');
    const [pw] = await both('/api/search/?query=passwd');
    expect(pw).toBe('200 ');
  });
});
