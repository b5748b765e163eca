/**
 * Trashing onto another filesystem (the data dir on a tmpfs, /dev/shm; the root is not): a copy,
 * then the source goes — only what was copied, unchanged. Before the fix, a file written into the
 * source while the copy ran was deleted without being in the trash, and one written again after
 * its copy lost its new content. The writes are made at a set point (when the whole copy is
 * renamed into place, before the source goes), a race a test cannot win by timing.
 */
import { existsSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resolvePath } from './resolve.js';
import { openTrashArea } from './trash-area.js';

/** Runs once when the whole copy is renamed into place (then the source is removed). */
let hook: (() => Promise<void>) | null = null;
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const rename = (async (...args: Parameters<typeof actual.rename>) => {
    if (hook && String(args[0]).endsWith('.part')) {
      const run = hook;
      hook = null;
      await run();
    }
    return actual.rename(...args);
  }) as typeof actual.rename;
  return { ...actual, rename, default: { ...actual, rename } };
});

let base: string;
let root: string;
let data: string;
const user = { scope: '/', rules: [], hideDotfiles: false };

beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'coffer-trashacross-'));
  data = await mkdtemp(path.join('/dev/shm', 'coffer-trashacross-'));
  root = path.join(base, 'root');
  await mkdir(path.join(root, 'src/a'), { recursive: true });
  await mkdir(path.join(root, 'src/b'));
  await writeFile(path.join(root, 'src/a/one.txt'), 'one');
  await writeFile(path.join(root, 'src/a/again.txt'), 'old');
  await writeFile(path.join(root, 'src/b/two.txt'), 'two');
  await symlink('../a', path.join(root, 'src/b/to-a'));
  hook = null;
});
afterEach(async () => {
  hook = null;
  await rm(base, { recursive: true, force: true });
  await rm(data, { recursive: true, force: true });
});

describe('trash moveIn onto another filesystem', () => {
  it('moves a folder whole, links as links', async () => {
    const area = await openTrashArea(data);
    const source = await resolvePath(user, '/src', { serverRoot: root, globalRules: [] });
    expect(await area.sameDevice(source)).toBe(false);
    const id = 'a'.repeat(32);
    expect(await area.moveIn(id, source, { user, globalRules: [] })).toEqual({ kept: 0 });
    expect(existsSync(path.join(root, 'src'))).toBe(false);
    expect(await readFile(path.join(area.dir, id, 'a/one.txt'), 'utf8')).toBe('one');
    expect(await readFile(path.join(area.dir, id, 'b/two.txt'), 'utf8')).toBe('two');
    expect(await readlink(path.join(area.dir, id, 'b/to-a'))).toBe('../a');
  });

  it('leaves in the source what appeared or was written there during the copy', async () => {
    const area = await openTrashArea(data);
    const source = await resolvePath(user, '/src', { serverRoot: root, globalRules: [] });
    hook = async () => {
      await writeFile(path.join(root, 'src/a/late.txt'), 'late');
      await appendFile(path.join(root, 'src/a/again.txt'), ' and new');
    };
    const id = 'b'.repeat(32);
    const { kept } = await area.moveIn(id, source, { user, globalRules: [] });
    expect(kept).toBeGreaterThan(0);
    expect(hook).toBeNull();
    expect(await readFile(path.join(root, 'src/a/late.txt'), 'utf8')).toBe('late');
    expect(await readFile(path.join(root, 'src/a/again.txt'), 'utf8')).toBe('old and new');
    expect(existsSync(path.join(root, 'src/a/one.txt'))).toBe(false);
    expect(existsSync(path.join(root, 'src/b'))).toBe(false);
    expect(await readFile(path.join(area.dir, id, 'a/one.txt'), 'utf8')).toBe('one');
  });
});
