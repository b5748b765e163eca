import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Rule } from '@coffer/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpError } from '../http/errors.js';
import { resolvePath, scopeRoot, type ResolveUser } from './resolve.js';

let base: string;
let root: string;
let outside: string;

async function status(p: Promise<unknown>): Promise<number | 'ok'> {
  try {
    await p;
    return 'ok';
  } catch (e) {
    if (e instanceof HttpError) return e.status;
    throw e;
  }
}

const user = (over: Partial<ResolveUser> = {}): ResolveUser => ({ scope: '/', rules: [], hideDotfiles: false, ...over });
const r = (u: ResolveUser, p: string, o: { decode?: boolean; mustExist?: boolean; forWrite?: boolean; globalRules?: Rule[] } = {}) =>
  resolvePath(u, p, { serverRoot: root, globalRules: [], decode: true, ...o });

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'coffer-resolve-'));
  root = path.join(base, 'root');
  outside = path.join(base, 'outside');
  await mkdir(path.join(root, 'users/alice/docs'), { recursive: true });
  await mkdir(path.join(root, 'users/bob'), { recursive: true });
  await mkdir(outside, { recursive: true });
  await writeFile(path.join(outside, 'secret.txt'), 'secret');
  await writeFile(path.join(root, 'users/alice/docs/a.txt'), 'a');
  await writeFile(path.join(root, 'users/bob/b.txt'), 'b');
  await writeFile(path.join(root, 'top.txt'), 'top');
  const alice = path.join(root, 'users/alice');
  await symlink(outside, path.join(alice, 'out-dir'));
  await symlink(path.join(outside, 'secret.txt'), path.join(alice, 'out-file'));
  await symlink('../bob', path.join(alice, 'to-bob')); // inside the server root, outside alice's scope
  await symlink('docs', path.join(alice, 'in-dir'));
  await symlink('docs/a.txt', path.join(alice, 'in-file'));
  await symlink('docs/missing.txt', path.join(alice, 'dangling-in'));
  await symlink(path.join(outside, 'nothing-here.txt'), path.join(alice, 'dangling-out'));
  await symlink('loop-b', path.join(alice, 'loop-a'));
  await symlink('loop-a', path.join(alice, 'loop-b'));
  await symlink('self', path.join(alice, 'self'));
  await symlink(outside, path.join(root, 'root-out'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('resolvePath: scope', () => {
  it('treats ".", "" and "/" as the server root', async () => {
    for (const scope of ['.', '', '/']) {
      const p = await r(user({ scope }), '/top.txt', { mustExist: true });
      expect(p.virtual).toBe('/top.txt');
      expect(p.exists).toBe(true);
    }
  });
  it('resolves inside a user scope and reports scope-relative virtual paths', async () => {
    const p = await r(user({ scope: '/users/alice' }), '/docs/a.txt', { mustExist: true });
    expect(p.virtual).toBe('/docs/a.txt');
    expect(p.real.endsWith(path.join('users', 'alice', 'docs', 'a.txt'))).toBe(true);
    expect(p.stat?.size).toBe(1);
  });
  it('refuses a scope that climbs above the server root (403)', async () => {
    expect(await status(scopeRoot(root, '/../outside'))).toBe(403);
  });
  it('refuses a scope that is a link out of the server root (S4, admins too)', async () => {
    expect(await status(scopeRoot(root, '/root-out'))).toBe(403);
    expect(await status(r(user(), '/root-out/secret.txt'))).toBe(403);
  });
});

describe('resolvePath: hostile paths', () => {
  const alice = user({ scope: '/users/alice' });
  it('answers 403 for ".." escapes, encoded or not', async () => {
    for (const p of ['/..', '/../bob/b.txt', '%2e%2e/bob', '%2E%2E%2Fbob', 'docs/../../bob', 'a%2f..%2f..%2f..%2fetc']) {
      expect(await status(r(alice, p)), p).toBe(403);
    }
  });
  it('keeps double encoding literal (no escape, just a missing name)', async () => {
    const p = await r(alice, '%252e%252e/bob');
    expect(p.virtual).toBe('/%2e%2e/bob');
    expect(p.exists).toBe(false);
    expect(await status(r(alice, '%252e%252e/bob', { mustExist: true }))).toBe(404);
  });
  it('treats backslashes as ordinary characters', async () => {
    const p = await r(alice, '..\\..\\bob');
    expect(p.virtual).toBe('/..\\..\\bob');
    expect(p.exists).toBe(false);
    expect(path.dirname(p.real)).toBe(p.root);
  });
  it('answers 400 for NUL, control characters and bad UTF-8', async () => {
    for (const p of ['a%00b', 'a\u0000b', 'a%0ab', 'a%7f', '%c0%ae%c0%ae', '%ff', 'a%zz']) {
      expect(await status(r(alice, p)), JSON.stringify(p)).toBe(400);
    }
  });
  it('answers 400 for names longer than the filesystem allows', async () => {
    expect(await status(r(alice, 'x'.repeat(300)))).toBe(400);
    expect(await status(r(alice, 'docs/' + 'é'.repeat(200)))).toBe(400);
  });
  it('keeps NFC and NFD names distinct and inside the scope', async () => {
    const nfc = 'caf\u00e9.txt';
    const nfd = 'cafe\u0301.txt';
    await writeFile(path.join(root, 'users/alice', nfc), 'nfc');
    const a = await r(alice, encodeURIComponent(nfc), { mustExist: true });
    const b = await r(alice, encodeURIComponent(nfd));
    expect(a.virtual).toBe('/' + nfc);
    expect(b.virtual).toBe('/' + nfd);
    expect(b.real).not.toBe(a.real);
    expect(path.dirname(b.real)).toBe(a.root);
  });
});

describe('resolvePath: symbolic links', () => {
  const alice = user({ scope: '/users/alice' });
  it('follows links that stay inside the scope', async () => {
    const f = await r(alice, '/in-file', { mustExist: true });
    expect(f.isSymlink).toBe(true);
    expect(f.real.endsWith(path.join('docs', 'a.txt'))).toBe(true);
    expect(f.entry.endsWith('in-file')).toBe(true);
    const d = await r(alice, '/in-dir/a.txt', { mustExist: true });
    expect(d.real).toBe(f.real);
  });
  it('answers 403 for links out of the scope, through them and to them', async () => {
    for (const p of ['/out-dir', '/out-dir/secret.txt', '/out-file', '/to-bob', '/to-bob/b.txt', '/out-dir/new.txt']) {
      expect(await status(r(alice, p)), p).toBe(403);
    }
  });
  it('judges dangling links by where they point', async () => {
    expect(await status(r(alice, '/dangling-out'))).toBe(403);
    expect(await status(r(alice, '/dangling-out', { forWrite: true }))).toBe(403);
    const inside = await r(alice, '/dangling-in');
    expect(inside.exists).toBe(false);
    expect(await status(r(alice, '/dangling-in', { mustExist: true }))).toBe(404);
  });
  it('never creates through a dangling link, even one pointing inside (S5)', async () => {
    expect(await status(r(alice, '/dangling-in', { forWrite: true }))).toBe(403);
  });
  it('answers 403 for link loops without hanging', async () => {
    for (const p of ['/loop-a', '/loop-b/x', '/self']) expect(await status(r(alice, p)), p).toBe(403);
  });
  it('judges a missing path by its nearest existing ancestor', async () => {
    const p = await r(alice, '/docs/new/deeper/file.txt', { forWrite: true });
    expect(p.exists).toBe(false);
    expect(p.real).toBe(path.join(p.root, 'docs/new/deeper/file.txt'));
  });
  it('reports a path below a file as missing', async () => {
    expect(await status(r(alice, '/docs/a.txt/x', { mustExist: true }))).toBe(404);
  });
});

describe('resolvePath: rules', () => {
  it('refuses rule-denied and hidden paths before touching disk', async () => {
    const u = user({ scope: '/users/alice', rules: [{ regex: false, allow: false, path: '/docs', regexp: null }] });
    expect(await status(r(u, '/docs/a.txt'))).toBe(403);
    expect(await status(r(u, '/docs'))).toBe(403);
    expect(await status(r(u, '/docs_backup'))).toBe('ok');
    const h = user({ scope: '/users/alice', hideDotfiles: true });
    expect(await status(r(h, '/.hidden'))).toBe(403);
    expect(await status(resolvePath(h, '/.hidden', { serverRoot: root, globalRules: [], hidden: false }))).toBe('ok');
  });
  it('applies global rules to every user, before the user rules', async () => {
    const deny: Rule = { regex: true, allow: false, path: '', regexp: { raw: '\\.txt$' } };
    expect(await status(r(user(), '/top.txt', { globalRules: [deny] }))).toBe(403);
    const reopen = user({ rules: [{ regex: false, allow: true, path: '/top.txt', regexp: null }] });
    expect(await status(r(reopen, '/top.txt', { globalRules: [deny] }))).toBe('ok');
  });
});
