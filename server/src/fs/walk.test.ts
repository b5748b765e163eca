import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolvePath } from './resolve.js';
import { walk, type WalkSkip } from './walk.js';

let base: string;
let root: string;

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'coffer-walk-'));
  root = path.join(base, 'root');
  await mkdir(path.join(root, 'a/b'), { recursive: true });
  await mkdir(path.join(base, 'outside'));
  await writeFile(path.join(base, 'outside/o.txt'), 'o');
  await writeFile(path.join(root, 'a/b/c.txt'), 'c');
  await writeFile(path.join(root, 'a/.hidden'), 'h');
  await writeFile(path.join(root, 'z.txt'), 'z');
  await mkdir(path.join(root, 'secret'));
  await writeFile(path.join(root, 'secret/s.txt'), 's');
  await symlink(path.join(base, 'outside'), path.join(root, 'out'));
  await symlink('a', path.join(root, 'alias'));
  await symlink('..', path.join(root, 'a/up'));
  await symlink('missing', path.join(root, 'broken'));
  await writeFile(path.join(root, '.coffer-tmp-123'), 'staging');
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const rules = [{ regex: false, allow: false, path: '/secret', regexp: null }];
const user = { scope: '/', rules, hideDotfiles: true };

async function collect(opts: Partial<Parameters<typeof walk>[1]> = {}) {
  const dir = await resolvePath(user, '/', { serverRoot: root, globalRules: [] });
  const skipped: WalkSkip[] = [];
  const seen: string[] = [];
  for await (const e of walk(dir, { user, globalRules: [], onSkip: (s) => skipped.push(s), ...opts })) seen.push(e.virtual);
  return { seen, skipped: skipped.map((s) => `${s.reason} ${s.virtual}`) };
}

describe('walk', () => {
  it('yields depth first with sorted names, skipping denied, hidden, escaping and staging entries', async () => {
    const { seen, skipped } = await collect();
    expect(seen).toEqual(['/a', '/a/b', '/a/b/c.txt', '/a/up', '/alias', '/broken', '/z.txt']);
    expect(skipped.sort()).toEqual(['denied /a/.hidden', 'denied /secret', 'escaping /out']);
  });
  it('descends into inside links on request and stops at loops', async () => {
    const { seen, skipped } = await collect({ descendLinks: true });
    expect(seen).toContain('/alias/b/c.txt');
    expect(skipped).toContain('loop /a/up');
  });
  it('lists folders after their contents in post order', async () => {
    const { seen } = await collect({ order: 'post' });
    expect(seen.indexOf('/a/b/c.txt')).toBeLessThan(seen.indexOf('/a/b'));
    expect(seen.indexOf('/a/b')).toBeLessThan(seen.indexOf('/a'));
  });
  it('counts dotfiles as allowed when hidden is off, and respects maxDepth and abort', async () => {
    expect((await collect({ hidden: false })).seen).toContain('/a/.hidden');
    expect((await collect({ maxDepth: 1 })).seen).toEqual(['/a', '/alias', '/broken', '/z.txt']);
    const ac = new AbortController();
    ac.abort();
    expect((await collect({ signal: ac.signal })).seen).toEqual([]);
  });
});
