import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpError } from '../http/errors.js';
import { nodeIo, writeAtomic, type WriteIo } from './atomic.js';
import { resolvePath } from './resolve.js';

let root: string;
const user = { scope: '/', rules: [], hideDotfiles: false };
const target = (p: string) => resolvePath(user, p, { serverRoot: root, globalRules: [], forWrite: true });
const fail = (code: string, syscall: string) => Object.assign(new Error(code), { code, syscall });

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'coffer-atomic-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function chunks(...parts: string[]) {
  async function* gen() {
    for (const p of parts) yield Buffer.from(p);
  }
  return gen();
}

describe('writeAtomic', () => {
  it('creates 0640 files and 0750 parents (S54)', async () => {
    await writeAtomic(await target('/new/dir/a.txt'), await chunks('he', 'llo'), { exclusive: true });
    expect(await readFile(path.join(root, 'new/dir/a.txt'), 'utf8')).toBe('hello');
    expect((await stat(path.join(root, 'new/dir/a.txt'))).mode & 0o777).toBe(0o640);
    expect((await stat(path.join(root, 'new/dir'))).mode & 0o777).toBe(0o750);
  });

  for (const [name, io] of [
    ['write', { ...nodeIo, write: async () => Promise.reject(fail('ENOSPC', 'write')) }],
    ['fsync', { ...nodeIo, sync: async () => Promise.reject(fail('ENOSPC', 'fsync')) }],
    ['rename', { ...nodeIo, rename: async () => Promise.reject(fail('EIO', 'rename')) }],
  ] as [string, WriteIo][]) {
    it(`keeps the old file and removes the staging file when ${name} fails`, async () => {
      await writeFile(path.join(root, `keep-${name}.txt`), 'precious');
      const t = await target(`/keep-${name}.txt`);
      await expect(writeAtomic(t, await chunks('replacement'), { exclusive: false, io })).rejects.toMatchObject({ syscall: expect.any(String) });
      expect(await readFile(path.join(root, `keep-${name}.txt`), 'utf8')).toBe('precious');
      expect((await readdir(root)).filter((n) => n.startsWith('.coffer-tmp-'))).toEqual([]);
    });
  }

  it('keeps the old file when the source stream fails midway', async () => {
    await writeFile(path.join(root, 'stream.txt'), 'precious');
    async function* broken() {
      yield Buffer.from('partial');
      throw Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
    }
    await expect(writeAtomic(await target('/stream.txt'), broken(), { exclusive: false })).rejects.toThrow('aborted');
    expect(await readFile(path.join(root, 'stream.txt'), 'utf8')).toBe('precious');
    expect((await readdir(root)).filter((n) => n.startsWith('.coffer-tmp-'))).toEqual([]);
  });

  it('never replaces a file that appeared meanwhile when exclusive (409)', async () => {
    const t = await target('/race.txt');
    await writeFile(path.join(root, 'race.txt'), 'first');
    const err = await writeAtomic(t, Buffer.from('second'), { exclusive: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(409);
    expect(await readFile(path.join(root, 'race.txt'), 'utf8')).toBe('first');
  });

  it('keeps the given permission bits on a save', async () => {
    await writeFile(path.join(root, 'exec.sh'), 'old', { mode: 0o755 });
    await writeAtomic(await target('/exec.sh'), Buffer.from('new'), { exclusive: false, mode: 0o755 });
    expect((await stat(path.join(root, 'exec.sh'))).mode & 0o777).toBe(0o755);
  });
});
