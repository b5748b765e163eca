import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rename, rm, stat, writeFile } from 'node:fs/promises';
import { crc32, inflateRawSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closeWorkerPools,
  DIRENT,
  listingWorkers,
  readBatch,
  readFolder,
  retireListingWorkers,
  statBatches,
  WORKER_NICE,
} from './worker-pool.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'coffer-pool-'));
  await writeFile(path.join(dir, 'a.txt'), 'hello');
});
afterAll(async () => {
  await closeWorkerPools();
  await rm(dir, { recursive: true, force: true });
});

/** The nice value of each thread of this process (Linux: field 19 of /proc/self/task/<tid>/stat). */
function threadNices(): number[] {
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: fields count from the last ')'.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

describe('the stat workers', () => {
  it('answer a batch of stats', async () => {
    const [part] = statBatches(dir, dir, [['a.txt', 'missing']]);
    const stats = await part!;
    expect(stats.size[0]).toBe(5);
    expect(stats.kind[1]).toBe(4); // gone
  });

  it.runIf(existsSync('/proc/thread-self'))('run below the main thread: their nice value is raised (Linux)', async () => {
    await Promise.all(statBatches(dir, dir, [['a.txt'], ['a.txt']]));
    const nices = threadNices();
    expect(nices.filter((n) => n === WORKER_NICE).length).toBeGreaterThanOrEqual(1);
    // The thread running the tests (and serving requests in the server) keeps its own.
    expect(nices[0]).toBe(0);
  });
});

describe('reading a folder', () => {
  it('hands over every name, sorted by code units, with its type, across several messages', async () => {
    const big = path.join(dir, 'many');
    mkdirSync(big);
    // More names than one message holds (2,048), in no particular order on disk.
    const N = 4500;
    for (let i = 0; i < N; i++) writeFileSync(path.join(big, `n${(i * 7919) % N}`), '');
    mkdirSync(path.join(big, 'n2200-folder'));
    symlinkSync('n1', path.join(big, 'n4499-link'));
    const { names, types } = await readFolder(big);
    expect(names).toHaveLength(N + 2);
    expect(names).toEqual([...names].sort());
    expect(types).toHaveLength(N + 2);
    expect(types[names.indexOf('n2200-folder')]).toBe(DIRENT.folder);
    expect(types[names.indexOf('n4499-link')]).toBe(DIRENT.link);
    expect(types.filter((t) => t === DIRENT.file)).toHaveLength(N);
  }, 60_000);

  it('rejects with the errno code', async () => {
    await expect(readFolder(path.join(dir, 'missing'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(readFolder(path.join(dir, 'a.txt'))).rejects.toMatchObject({ code: 'ENOTDIR' });
  });
});

// Issue 17, item 18: a stopped worker gives back its V8 heap, where a big listing leaves its
// garbage until that worker's next collection (release.ts stops them after big listings).
describe('the listing workers', () => {
  it('are stopped when retired idle, and the next call starts them again', async () => {
    await readFolder(dir);
    await Promise.all(statBatches(dir, dir, [['a.txt'], ['a.txt']]));
    expect(listingWorkers()).toBeGreaterThan(0);
    retireListingWorkers();
    expect(listingWorkers()).toBe(0);
    const [again] = statBatches(dir, dir, [['a.txt']]);
    expect((await again!).size[0]).toBe(5);
    expect((await readFolder(dir)).names).toContain('a.txt');
  });

  it('retired while working, finish their work first and stop then', async () => {
    const batches = Array.from({ length: 40 }, () => ['a.txt', 'missing']);
    const parts = statBatches(dir, dir, batches);
    const names = readFolder(dir);
    retireListingWorkers();
    expect(listingWorkers()).toBeGreaterThan(0);
    for (const part of await Promise.all(parts)) expect(part.size[0]).toBe(5);
    expect((await names).names).toContain('a.txt');
    await expect.poll(listingWorkers, { timeout: 10_000, interval: 20 }).toBe(0);
  });
});

describe('readBatch (archive downloads)', () => {
  it('reads a batch of files, deflating for ZIP with the CRC of the bytes', async () => {
    const text = Buffer.from('compress me '.repeat(200));
    const noise = randomBytes(300);
    await writeFile(path.join(dir, 'text.txt'), text);
    await writeFile(path.join(dir, 'noise.bin'), noise);
    const files = await Promise.all(
      ['text.txt', 'noise.bin', 'a.txt'].map(async (n) => {
        const real = path.join(dir, n);
        const st = await stat(real);
        return { real, size: st.size, dev: st.dev, ino: st.ino, deflate: n !== 'a.txt' };
      }),
    );
    const [t, z, a] = await readBatch(files, -1);
    if (!t || !('body' in t) || !z || !('body' in z) || !a || !('body' in a)) throw new Error('not read');
    expect(t.deflated).toBe(true);
    expect(inflateRawSync(t.body).equals(text)).toBe(true);
    expect([t.size, t.crc]).toEqual([text.length, crc32(text)]);
    // Deflate would not make it smaller, or it was not asked: stored as it is.
    expect([z.deflated, z.body.equals(noise), z.crc]).toEqual([false, true, crc32(noise)]);
    expect([a.deflated, a.body.toString(), a.crc]).toEqual([false, 'hello', crc32(Buffer.from('hello'))]);
    const [plain] = await readBatch([files[0]!], null);
    expect(plain && 'body' in plain && plain.body.equals(text)).toBe(true);
  });

  it('reports a file replaced since the walk, a link put in its place and a vanished one, and reads the rest', async () => {
    const real = path.join(dir, 'swap.txt');
    await writeFile(real, 'first');
    const st = await stat(real);
    const walked = { real, size: st.size, dev: st.dev, ino: st.ino };
    await writeFile(path.join(dir, 'other.txt'), 'other');
    await rename(path.join(dir, 'other.txt'), real);
    const linkPath = path.join(dir, 'was-file.txt');
    await writeFile(linkPath, 'x');
    const lst = await stat(linkPath);
    await rm(linkPath);
    symlinkSync(path.join(dir, 'a.txt'), linkPath);
    const a = await stat(path.join(dir, 'a.txt'));
    const out = await readBatch(
      [
        walked,
        { real: linkPath, size: 1, dev: lst.dev, ino: lst.ino },
        { real: path.join(dir, 'gone.txt'), size: 3, dev: 1, ino: 1 },
        { real: path.join(dir, 'a.txt'), size: a.size, dev: a.dev, ino: a.ino },
      ],
      null,
    );
    expect(out.slice(0, 3)).toEqual([{ changed: true }, { changed: true }, { code: 'ENOENT' }]);
    expect(out[3] && 'body' in out[3] && out[3].body.toString()).toBe('hello');
  });
});
