import { execFileSync } from 'node:child_process';
import { constants } from 'node:fs';
import { mkdir, mkdtemp, open, rename, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openExact, openFileStream, openForChild, PUMP_CHUNK, pumpFile, readRange } from './read.js';
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

describe('openFileStream', () => {
  const drain = async (p: Parameters<typeof openFileStream>[0]) => {
    const parts: Buffer[] = [];
    for await (const c of openFileStream(p)) parts.push(c as Buffer);
    return Buffer.concat(parts);
  };

  it('streams the file resolved', async () => {
    await writeFile(path.join(root, 's1.bin'), bytes);
    expect((await drain(await resolved('/s1.bin'))).equals(bytes)).toBe(true);
  });

  it('refuses a link put in place of the name, and a folder on the way swapped for a link to a folder outside', async () => {
    const outside = await mkdtemp(path.join(tmpdir(), 'coffer-read-out-'));
    try {
      await writeFile(path.join(outside, 'secret.bin'), 'secret of the same length....');
      await writeFile(path.join(root, 's2.bin'), bytes);
      const p = await resolved('/s2.bin');
      await rm(path.join(root, 's2.bin'));
      await symlink(path.join(outside, 'secret.bin'), path.join(root, 's2.bin'));
      await expect(drain(p)).rejects.toThrow(/ELOOP|changed/);

      await mkdir(path.join(root, 'sdir'));
      await writeFile(path.join(root, 'sdir', 'secret.bin'), bytes);
      const q = await resolved('/sdir/secret.bin');
      await rename(path.join(root, 'sdir'), path.join(root, 'sdir-moved'));
      await symlink(outside, path.join(root, 'sdir'));
      await expect(drain(q)).rejects.toThrow(/changed/);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});

describe('pumpFile', () => {
  const big = Buffer.from(Array.from({ length: 5 * PUMP_CHUNK + 123 }, (_, i) => (i * 7) % 253));
  /** Pumps the range, copying each piece as it arrives (the pieces' buffers are reused). */
  async function pumped(p: Awaited<ReturnType<typeof resolved>>, range: { start: number; end: number }) {
    const copies: Buffer[] = [];
    const backing = new Set<ArrayBufferLike>();
    await pumpFile(p, range, async (piece) => {
      copies.push(Buffer.from(piece));
      backing.add(piece.buffer);
      await new Promise((r) => setImmediate(r));
    });
    return { bytes: Buffer.concat(copies), pieces: copies.length, backing };
  }

  it('hands over exactly the bytes [start, end], through two reused buffers however large the file', async () => {
    await writeFile(path.join(root, 'big.bin'), big);
    const p = await resolved('/big.bin');
    const all = await pumped(p, { start: 0, end: big.length - 1 });
    expect(all.bytes.equals(big)).toBe(true);
    expect(all.pieces).toBe(6);
    // No new buffer per read: that garbage is what made a 1 GiB download slow (bench/README.md "WebDAV").
    expect(all.backing.size).toBe(2);
    const part = await pumped(p, { start: 1000, end: 3 * PUMP_CHUNK + 10 });
    expect(part.bytes.equals(big.subarray(1000, 3 * PUMP_CHUNK + 11))).toBe(true);
    expect((await pumped(p, { start: 7, end: 7 })).bytes.equals(big.subarray(7, 8))).toBe(true);
  });

  it('fails when the file became shorter than the range (never a short answer) or is another file now', async () => {
    await writeFile(path.join(root, 'shrink.bin'), big);
    const p = await resolved('/shrink.bin');
    await truncate(path.join(root, 'shrink.bin'), PUMP_CHUNK + 5);
    await expect(pumped(p, { start: 0, end: big.length - 1 })).rejects.toThrow(/shrank/);

    await writeFile(path.join(root, 'swap.bin'), big);
    const q = await resolved('/swap.bin');
    await writeFile(path.join(root, 'swap.new'), big);
    await rename(path.join(root, 'swap.new'), path.join(root, 'swap.bin'));
    await expect(pumped(q, { start: 0, end: 9 })).rejects.toThrow(/changed/);
  });

  it('refuses a FIFO swapped in for the file without hanging the open (a libuv thread for good)', async () => {
    await writeFile(path.join(root, 'fifo.bin'), big);
    const p = await resolved('/fifo.bin');
    await rm(path.join(root, 'fifo.bin'));
    execFileSync('mkfifo', [path.join(root, 'fifo.bin')]);
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<string>((r) => (timer = setTimeout(() => r('hung'), 5000)));
    try {
      const out = await Promise.race([pumped(p, { start: 0, end: 9 }).then(() => 'read', (err: Error) => err.message), hung]);
      expect(out).toMatch(/changed/);
    } finally {
      clearTimeout(timer);
      // A reader left hanging in open() is let go by a writer opening the FIFO.
      await open(path.join(root, 'fifo.bin'), constants.O_WRONLY | constants.O_NONBLOCK).then((fh) => fh.close(), () => undefined);
    }
  }, 10_000);

  it('stops at the first failed write and when its signal is aborted', async () => {
    await writeFile(path.join(root, 'stop.bin'), big);
    const p = await resolved('/stop.bin');
    let writes = 0;
    await expect(
      pumpFile(p, { start: 0, end: big.length - 1 }, async () => {
        writes++;
        throw new Error('socket gone');
      }),
    ).rejects.toThrow('socket gone');
    expect(writes).toBeLessThanOrEqual(2);
    const abort = new AbortController();
    writes = 0;
    await expect(
      pumpFile(
        p,
        { start: 0, end: big.length - 1 },
        async () => {
          if (++writes === 2) abort.abort(new Error('client left'));
        },
        abort.signal,
      ),
    ).rejects.toThrow('client left');
    expect(writes).toBeLessThan(6);
  });
});

describe('openForChild', () => {
  it('opens the file resolved, and refuses one replaced since (a FIFO too, without hanging)', async () => {
    await writeFile(path.join(root, 'v.mp4'), bytes);
    const p = await resolved('/v.mp4');
    const fh = await openForChild(p);
    expect((await fh.stat()).size).toBe(bytes.length);
    await fh.close();
    await writeFile(path.join(root, 'other.mp4'), 'other');
    await rename(path.join(root, 'other.mp4'), path.join(root, 'v.mp4'));
    await expect(openForChild(p)).rejects.toThrow(/changed/);
    await rm(path.join(root, 'v.mp4'));
    execFileSync('mkfifo', [path.join(root, 'v.mp4')]);
    await expect(openForChild(p)).rejects.toThrow(/changed/);
  }, 10_000);
});

describe('openExact', () => {
  it('reads the file walked, and refuses one replaced since by another file or by a link out (archive entries)', async () => {
    const outside = await mkdtemp(path.join(tmpdir(), 'coffer-read-out-'));
    try {
      await writeFile(path.join(root, 'big.bin'), bytes);
      const p = await resolved('/big.bin');
      const chunks = await openExact(p, bytes.length);
      const parts: Buffer[] = [];
      for await (const c of chunks) parts.push(c);
      expect(Buffer.concat(parts).equals(bytes)).toBe(true);
      // Swapped for a link to a file outside the scope, of the same size or more.
      await writeFile(path.join(outside, 'secret.bin'), Buffer.alloc(2000, 0x53));
      await rm(path.join(root, 'big.bin'));
      await symlink(path.join(outside, 'secret.bin'), path.join(root, 'big.bin'));
      await expect(openExact(p, bytes.length)).rejects.toThrow();
      // Swapped for another file (made while the first still exists: another inode).
      await writeFile(path.join(root, 'big2.bin'), bytes);
      await rename(path.join(root, 'big2.bin'), path.join(root, 'big.bin'));
      await expect(openExact(p, bytes.length)).rejects.toThrow(/changed/);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});
