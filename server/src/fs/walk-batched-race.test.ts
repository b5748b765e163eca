/**
 * walk-batched against a race it cannot win by timing in a test: a folder on the way to a link's
 * target swapped for a link out between linkTarget's realpath and its stat. linkTarget is made to
 * answer as it would then (the inside path, the outside file's stat).
 */
import { mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { resolvePath } from './resolve.js';
import type { WalkSkip } from './walk.js';
import { walkBatched } from './walk-batched.js';
import { closeWorkerPools, readBatch } from './worker-pool.js';

const raced = new Map<string, { real: string; stat: Awaited<ReturnType<typeof stat>> }>();
vi.mock('./walk.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('./walk.js')>();
  return {
    ...actual,
    linkTarget: async (entry: string, root: string) => {
      const r = raced.get(entry);
      return r ? { escaping: false, real: r.real, stat: r.stat } : actual.linkTarget(entry, root);
    },
  };
});

let base: string;
let root: string;
beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'coffer-walkrace-'));
  root = path.join(base, 'root');
  await mkdir(path.join(root, 'pub'), { recursive: true });
  await mkdir(path.join(base, 'outside'));
  await writeFile(path.join(base, 'outside/secret.txt'), 'secret');
  await mkdir(path.join(root, 'real-dir'));
  await writeFile(path.join(root, 'real-dir/fine.txt'), 'fine');
  await symlink('../real-dir/fine.txt', path.join(root, 'pub/fine-link'));
  // After the swap: root/dir is a link out; pub/l leads to dir/secret.txt.
  await symlink(path.join(base, 'outside'), path.join(root, 'dir'));
  await symlink('../dir/secret.txt', path.join(root, 'pub/l'));
  raced.set(path.join(root, 'pub/l'), {
    real: path.join(root, 'dir/secret.txt'),
    stat: await stat(path.join(base, 'outside/secret.txt')),
  });
});
afterAll(async () => {
  await closeWorkerPools();
  await rm(base, { recursive: true, force: true });
});

describe('walkBatched and a link whose target moved out between realpath and stat', () => {
  it('leaves the link out (its file is not at the inside path), keeps a link whose file is there', async () => {
    const user = { scope: '/', rules: [], hideDotfiles: true };
    const dir = await resolvePath(user, '/pub', { serverRoot: root, globalRules: [] });
    const skips: WalkSkip[] = [];
    const found = [];
    for await (const e of walkBatched(dir, { user, globalRules: [], onSkip: (s) => skips.push(s) }))
      found.push(e);
    expect(found.map((e) => e.virtual)).toEqual(['/pub/fine-link']);
    expect(skips.map((s) => `${s.reason} ${s.virtual}`)).toEqual(['escaping /pub/l']);
    const r = await readBatch(
      found.map((e) => ({ real: e.real, size: e.stat.size, dev: e.stat.dev, ino: e.stat.ino })),
      null,
    );
    expect((r[0] as { body: Buffer }).body.toString()).toBe('fine');
  });
});
