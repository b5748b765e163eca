import { mkdtemp, rename, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRange } from './read.js';
import { closeWorkerPools } from './worker-pool.js';
import { resolvePath } from './resolve.js';

let root: string;
const user = { scope: '/', rules: [], hideDotfiles: false };
const resolved = (p: string) => resolvePath(user, p, { serverRoot: root, globalRules: [], mustExist: true });
const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'coffer-read-'));
});
afterAll(async () => {
  await closeWorkerPools();
  await rm(root, { recursive: true, force: true });
});

describe('readRange', () => {
  it('reads exactly the bytes [start, end] in one buffer', async () => {
    await writeFile(path.join(root, 'a.bin'), bytes);
    const p = await resolved('/a.bin');
    expect((await readRange(p, { start: 0, end: 999 })).equals(bytes)).toBe(true);
    expect((await readRange(p, { start: 10, end: 19 })).equals(bytes.subarray(10, 20))).toBe(true);
    expect((await readRange(p, { start: 999, end: 999 })).equals(bytes.subarray(999))).toBe(true);
  });

  it('fails when the file became shorter than the range since its stat (never a short answer)', async () => {
    await writeFile(path.join(root, 'b.bin'), bytes);
    const p = await resolved('/b.bin');
    await truncate(path.join(root, 'b.bin'), 500);
    await expect(readRange(p, { start: 0, end: 999 })).rejects.toThrow(/changed/);
    expect((await readRange(p, { start: 100, end: 499 })).equals(bytes.subarray(100, 500))).toBe(true);
  });

  it('fails when another file or a link took the resolved place, without reading through the link', async () => {
    await writeFile(path.join(root, 'd.bin'), bytes);
    const p = await resolved('/d.bin');
    await writeFile(path.join(root, 'd.new'), bytes);
    await rename(path.join(root, 'd.new'), path.join(root, 'd.bin'));
    await expect(readRange(p, { start: 0, end: 9 })).rejects.toThrow(/changed/);

    await writeFile(path.join(root, 'e.bin'), bytes);
    const q = await resolved('/e.bin');
    await rm(path.join(root, 'e.bin'));
    await symlink(path.join(root, 'd.bin'), path.join(root, 'e.bin'));
    await expect(readRange(q, { start: 0, end: 9 })).rejects.toThrow(/changed/);
  });

  it('answers ENOENT for a file removed since it was resolved', async () => {
    await writeFile(path.join(root, 'f.bin'), bytes);
    const p = await resolved('/f.bin');
    await rm(path.join(root, 'f.bin'));
    await expect(readRange(p, { start: 0, end: 9 })).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('reads the current bytes of a file that grew, up to the range end', async () => {
    await writeFile(path.join(root, 'c.bin'), bytes.subarray(0, 100));
    const p = await resolved('/c.bin');
    await writeFile(path.join(root, 'c.bin'), bytes);
    expect((await readRange(p, { start: 0, end: 99 })).equals(bytes.subarray(0, 100))).toBe(true);
  });
});
