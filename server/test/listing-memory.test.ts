import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIG_WORK_ENTRIES, RELEASE_QUIET_MS, releaseCollections, setReleaseQuietMs } from '../src/fs/release.js';
import { listingWorkers } from '../src/fs/worker-pool.js';
import { useServer } from './harness.js';
import { member, rawRequest } from './resources-support.js';

// Issue 17, item 18: after big listings the server gives back what they held. How much comes back
// is measured by bench/listing/memory.mjs (RSS of a server process); this checks over real HTTP
// what gives it back: soon after, the listing workers are stopped and one full collection runs.
describe('memory after big listings', () => {
  const srv = useServer();
  const N = BIG_WORK_ENTRIES + 500;
  let token = '';

  beforeAll(async () => {
    setReleaseQuietMs(200);
    const u = await member(srv.get(), { sorting: { by: 'name', asc: false } });
    token = u.token;
    const big = path.join(u.dir, 'big');
    mkdirSync(big);
    for (let i = 0; i < N; i++) writeFileSync(path.join(big, `File ${i}.txt`), '');
  }, 120_000);
  afterAll(() => {
    setReleaseQuietMs(RELEASE_QUIET_MS);
  });

  it('lists a big folder (plain and compressed), then stops the listing workers and collects; the next listing starts them again', async () => {
    const before = releaseCollections();
    for (const encoding of ['identity', 'br']) {
      const res = await rawRequest(srv.get(), '/api/resources/big/', { token, headers: { 'Accept-Encoding': encoding } });
      expect(res.status).toBe(200);
      const json = JSON.parse((encoding === 'br' ? brotliDecompressSync(res.body) : res.body).toString('utf8'));
      expect(json.numFiles).toBe(N);
      expect(json.items[0].name).toBe('File 0.txt');
      expect(json.items[N - 1].name).toBe(`File ${N - 1}.txt`);
    }
    await expect.poll(releaseCollections, { timeout: 15_000, interval: 50 }).toBeGreaterThan(before);
    await expect.poll(listingWorkers, { timeout: 15_000, interval: 50 }).toBe(0);
    const again = await rawRequest(srv.get(), '/api/resources/big/', { token });
    expect(again.status).toBe(200);
    expect(JSON.parse(again.text).numFiles).toBe(N);
  }, 60_000);

  it('sorted by size (the whole folder statted first), collects after it too', async () => {
    const u = await member(srv.get(), { sorting: { by: 'size', asc: true } });
    mkdirSync(path.join(u.dir, 'big'));
    for (let i = 0; i < N; i++) writeFileSync(path.join(u.dir, 'big', `f${i}`), 'x'.repeat(i % 3));
    const before = releaseCollections();
    const res = await rawRequest(srv.get(), '/api/resources/big/', { token: u.token });
    expect(res.status).toBe(200);
    const json = JSON.parse(res.text);
    expect(json.numFiles).toBe(N);
    expect(json.items[0].size).toBe(0);
    expect(json.items[N - 1].size).toBe(2);
    await expect.poll(releaseCollections, { timeout: 15_000, interval: 50 }).toBeGreaterThan(before);
  }, 120_000);
});
