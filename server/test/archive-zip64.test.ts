/**
 * ZIP64 in archive downloads (docs/api.md §8.2): an entry over 4 GiB (a sparse file, cheap on disk)
 * and a folder of more than 65,535 entries, downloaded over HTTP and checked with `unzip -t` and
 * `zipinfo`.
 */
import { execFileSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebStream } from 'node:stream/web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useServer } from './harness.js';

const srv = useServer();
let admin: string;
let work: string;

beforeAll(async () => {
  admin = await srv.login();
  work = await mkdtemp(path.join(tmpdir(), 'coffer-zip64-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** Downloads `/api/raw/{folder}?algo=zip` into a file and returns its path. */
async function download(folder: string): Promise<string> {
  const res = await srv.fetch(`/api/raw/${folder}?algo=zip`, { token: admin });
  expect(res.status).toBe(200);
  const file = path.join(work, `${folder}.zip`);
  await pipeline(Readable.fromWeb(res.body as WebStream<Uint8Array>), createWriteStream(file));
  return file;
}

const FOUR_GIB = 4 * 1024 * 1024 * 1024;

describe('ZIP64 archives, opened by unzip', () => {
  it('writes an entry over 4 GiB with ZIP64 sizes', async () => {
    const dir = path.join(srv.root, 'huge');
    await mkdir(dir);
    // Sparse: 4 GiB + 1 MiB of zeros with a marker at the end, so the CRC covers real bytes too.
    // Deflating and testing 4 GiB took 150 s on a loaded 2-core machine (77 s download, 72 s unzip -t).
    const fh = await open(path.join(dir, 'big.dat'), 'w');
    const size = FOUR_GIB + 1024 * 1024;
    await fh.truncate(size);
    await fh.write(Buffer.from('the end\n'), 0, 8, size - 8);
    await fh.close();
    await writeFile(path.join(dir, 'small.txt'), 'small\n');
    const file = await download('huge');
    execFileSync('unzip', ['-tq', file], { timeout: 300_000 });
    const info = execFileSync('zipinfo', ['-l', file]).toString();
    // zipinfo -l: mode, version, system, size, type, compressed size, method, date, time, name.
    expect(info).toMatch(new RegExp(`\\s${size} \\w+\\s+\\d+ defN .* big\\.dat$`, 'm'));
    expect(info).toMatch(/\s6 \w+\s+\d+ \w+ .* small\.txt$/m);
    expect(execFileSync('unzip', ['-p', file, 'small.txt']).toString()).toBe('small\n');
  }, 600_000);

  it('writes ZIP64 end records for more than 65,535 entries', async () => {
    const dir = path.join(srv.root, 'many');
    const n = 66_000;
    for (let d = 0; d < 66; d++) {
      const sub = path.join(dir, `d${d}`);
      await mkdir(sub, { recursive: true });
      await Promise.all(Array.from({ length: 1000 }, (_, f) => writeFile(path.join(sub, `f${f}.txt`), `${d}/${f}\n`)));
    }
    const file = await download('many');
    execFileSync('unzip', ['-tq', file], { maxBuffer: 1 << 26, timeout: 120_000 });
    const summary = execFileSync('zipinfo', ['-h', '-t', file]).toString();
    // n files and 66 folders.
    expect(summary).toMatch(new RegExp(`number of entries: ${n + 66}$`, 'm'));
    expect(summary).toMatch(new RegExp(`^${n + 66} files`, 'm'));
    expect(execFileSync('unzip', ['-p', file, 'd65/f999.txt']).toString()).toBe('65/999\n');
  }, 300_000);
});
