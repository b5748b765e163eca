/**
 * Compressing a selection into an archive file as a job (docs/api.md §18 E12) over real HTTP:
 * every format opens with its standard tool (unzip -t, tar with gzip/bzip2/xz/zstd/lz4/brotli;
 * .tar.sz, which has none, round-trips through Coffer's extraction); download and create are both
 * needed; rules and the scope hold for the selection, its contents and the destination; a taken
 * name is 409; a cancel leaves nothing, not even a staging folder. SQLite, and PostgreSQL with
 * COFFER_TEST_PG_URL (the job records).
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Job } from '@coffer/protocol';
import { useServer, type TestServer } from './harness.js';
import { denyPath } from './resources-support.js';

const compress = (srv: TestServer, token: string, folder: string, body: Record<string, unknown>) =>
  srv.fetch(`/api/compress${folder}`, { method: 'POST', token, json: body });

async function ended(srv: TestServer, token: string, id: string): Promise<Job> {
  let job: Job | undefined;
  await expect
    .poll(async () => (job = (await (await srv.fetch(`/api/jobs/${id}`, { token })).json()) as Job).state, { timeout: 60_000 })
    .toMatch(/done|failed|cancelled/);
  return job!;
}

async function compressed(srv: TestServer, token: string, folder: string, body: Record<string, unknown>): Promise<Job> {
  const res = await compress(srv, token, folder, body);
  expect(res.status, await res.clone().text()).toBe(202);
  return ended(srv, token, ((await res.json()) as Job).id);
}

/** The names tar lists, sorted. */
const tarList = (cmd: string) => execFileSync('sh', ['-c', cmd]).toString().split('\n').filter(Boolean).sort();

async function sources(srv: TestServer, name: string): Promise<string> {
  const dir = path.join(srv.root, name);
  await mkdir(path.join(dir, 'src', 'sub'), { recursive: true });
  await mkdir(path.join(dir, 'out'), { recursive: true });
  await writeFile(path.join(dir, 'src', 'a.txt'), 'alpha');
  await writeFile(path.join(dir, 'src', 'sub', 'b.bin'), Buffer.alloc(200_000, 3));
  await writeFile(path.join(dir, 'src', 'c é.txt'), 'gamma');
  return dir;
}

describe('compress: formats', () => {
  const srv = useServer({ jobsPerUser: 0 });

  it('every format Coffer writes makes an archive its standard tool opens, in the destination only', async () => {
    const token = await srv.login();
    const dir = await sources(srv, 'fmt');
    const expected = ['a.txt', 'sub/', 'sub/b.bin'];
    const tools: [string, string, (f: string) => string][] = [
      ['tar', '.tar', (f) => `tar tf "${f}"`],
      ['targz', '.tar.gz', (f) => `tar tzf "${f}"`],
      ['tarbz2', '.tar.bz2', (f) => `tar tjf "${f}"`],
      ['tarxz', '.tar.xz', (f) => `tar tJf "${f}"`],
      ['tarzst', '.tar.zst', (f) => `zstd -dc "${f}" | tar tf -`],
      ['tarlz4', '.tar.lz4', (f) => `lz4 -dc "${f}" | tar tf -`],
      ['tarbr', '.tar.br', (f) => `brotli -dc "${f}" | tar tf -`],
    ];
    for (const [algo, ext, list] of tools) {
      const job = await compressed(srv, token, '/fmt/src', { files: ['a.txt', 'sub'], destination: '/fmt/out', name: `s${ext}`, algo });
      expect(job, algo).toMatchObject({ state: 'done', kind: 'compress', result: { path: `/fmt/out/s${ext}` } });
      // Progress of the tar's size: a.txt, sub/ and sub/b.bin (headers, data in 512-byte blocks, the end).
      expect(job.progress, algo).toEqual({ done: 512 * 3 + 512 + 200_192 + 1024, total: 512 * 3 + 512 + 200_192 + 1024 });
      expect(tarList(list(path.join(dir, 'out', `s${ext}`))), algo).toEqual(expected);
    }
    const zip = await compressed(srv, token, '/fmt/src', { files: ['a.txt', 'sub', 'c é.txt'], destination: '/fmt/out', name: 's.zip' });
    expect(zip.state).toBe('done');
    expect(zip.progress).toEqual({ done: 5 + 200_000 + 5, total: 5 + 200_000 + 5 });
    const zipFile = path.join(dir, 'out', 's.zip');
    expect(execFileSync('unzip', ['-t', zipFile]).toString()).toMatch(/No errors detected/);
    expect(execFileSync('unzip', ['-p', zipFile, 'sub/b.bin'])).toEqual(Buffer.alloc(200_000, 3));
    // No standard tool reads Snappy-framed tars: Coffer's own extraction reads it back.
    const sz = await compressed(srv, token, '/fmt', { files: ['src'], destination: '/fmt/out', name: 's.tar.sz', algo: 'tarsz' });
    expect(sz.state).toBe('done');
    await mkdir(path.join(dir, 'back'));
    const back = (await (await srv.fetch('/api/extract/fmt/out/s.tar.sz', { method: 'POST', token, json: { destination: '/fmt/back' } })).json()) as Job;
    expect((await ended(srv, token, back.id)).state).toBe('done');
    expect(await readFile(path.join(dir, 'back', 'sub', 'b.bin'))).toEqual(Buffer.alloc(200_000, 3));
    // Only the archives are left in the destination: no staging folder.
    expect((await readdir(path.join(dir, 'out'))).filter((n) => n.startsWith('.'))).toEqual([]);
    expect(await readdir(srv.deps.jobStagingLedger)).toEqual([]);
  }, 120_000);

  it('refuses bad input with 400 and a taken name with 409, before any job', async () => {
    const token = await srv.login();
    await sources(srv, 'bad');
    await writeFile(path.join(srv.root, 'bad', 'out', 'taken.zip'), 'x');
    const ok = { files: ['a.txt'], destination: '/bad/out' };
    expect((await compress(srv, token, '/bad/src', { ...ok, name: 'taken.zip' })).status).toBe(409);
    for (const name of ['a/b.zip', '..', '.coffer-tmp-x.zip', 'a\u0001.zip', '']) {
      expect((await compress(srv, token, '/bad/src', { ...ok, name })).status, JSON.stringify(name)).toBe(400);
    }
    expect((await compress(srv, token, '/bad/src', { ...ok, name: 'x.7z', algo: '7z' })).status).toBe(400);
    expect((await compress(srv, token, '/bad/src', { ...ok, name: 'x.zip', destination: '/bad/src/a.txt' })).status).toBe(400);
    expect((await compress(srv, token, '/bad/src', { ...ok, name: 'x.zip', destination: '/bad/nowhere' })).status).toBe(404);
    expect((await compress(srv, token, '/bad/src', { files: ['missing'], destination: '/bad/out', name: 'x.zip' })).status).toBe(404);
    expect((await compress(srv, token, '/bad/src/a.txt', { destination: '/bad/out', name: 'x.zip' })).status).toBe(400);
    expect(await readdir(path.join(srv.root, 'bad', 'out'))).toEqual(['taken.zip']);
  });
});

describe('compress: permissions, rules, cancel', () => {
  const srv = useServer({ jobsPerUser: 0 });

  it('needs download and create; the scope and rules hold for the selection, its contents and the destination', async () => {
    const dir = await sources(srv, 'perm');
    await writeFile(path.join(dir, 'src', 'sub', 'secret.txt'), 'secret');
    const body = { files: ['a.txt', 'sub'], destination: '/perm/out', name: 'p.tar', algo: 'tar' };
    const noDownload = await srv.createUser({ perm: { create: true, download: false } });
    const noCreate = await srv.createUser({ perm: { create: false, download: true } });
    const t1 = await srv.login(noDownload.username, noDownload.password);
    expect((await compress(srv, t1, '/perm/src', body)).status).toBe(403);
    const t2 = await srv.login(noCreate.username, noCreate.password);
    expect((await compress(srv, t2, '/perm/src', body)).status).toBe(403);

    // A rule hides a file inside a selected folder: it is not in the archive.
    const ruled = await srv.createUser({ perm: { create: true, download: true }, rules: [denyPath('/perm/src/sub/secret.txt')] });
    const t3 = await srv.login(ruled.username, ruled.password);
    const job = await compressed(srv, t3, '/perm/src', body);
    expect(job.state).toBe('done');
    expect(tarList(`tar tf "${path.join(dir, 'out', 'p.tar')}"`)).toEqual(['a.txt', 'sub/', 'sub/b.bin']);
    // A denied item in the selection, or a denied destination: 403 before any job.
    const denied = await srv.createUser({ perm: { create: true, download: true }, rules: [denyPath('/perm/src/a.txt'), denyPath('/perm/out')] });
    const t5 = await srv.login(denied.username, denied.password);
    expect((await compress(srv, t5, '/perm/src', { ...body, name: 'q.tar' })).status).toBe(403);
    expect((await compress(srv, t5, '/perm/src', { ...body, files: ['sub'], name: 'q.tar' })).status).toBe(403);
    // Out of the scope: the destination and the selection.
    await mkdir(path.join(dir, 'scoped'));
    const scoped = await srv.createUser({ perm: { create: true, download: true }, scope: '/perm/scoped' });
    const t6 = await srv.login(scoped.username, scoped.password);
    expect((await compress(srv, t6, '/', { files: ['../src'], destination: '/', name: 'x.zip' })).status).toBe(403);
    expect((await compress(srv, t6, '/', { destination: '/../out', name: 'x.zip' })).status).toBe(403);
    expect((await readdir(path.join(dir, 'out'))).sort()).toEqual(['p.tar']);
  });

  it('a cancel mid-way stops the job and leaves nothing: no archive, no staging folder', async () => {
    const token = await srv.login();
    const dir = path.join(srv.root, 'cancel');
    await mkdir(path.join(dir, 'out'), { recursive: true });
    // xz of 300 MiB takes long enough to be cancelled while it runs.
    await writeFile(path.join(dir, 'big.bin'), Buffer.alloc(300 * 1024 * 1024, 1));
    const res = await compress(srv, token, '/cancel', { files: ['big.bin'], destination: '/cancel/out', name: 'big.tar.xz', algo: 'tarxz' });
    const job = (await res.json()) as Job;
    await expect.poll(async () => ((await (await srv.fetch(`/api/jobs/${job.id}`, { token })).json()) as Job).progress.done, { timeout: 20_000 }).toBeGreaterThan(0);
    // Progress has a total from the start — the tar's size: one header, the data, two closing blocks
    // — and moves through the file, not in one step.
    const running = (await (await srv.fetch(`/api/jobs/${job.id}`, { token })).json()) as Job;
    expect(running.progress.total).toBe(512 + 300 * 1024 * 1024 + 1024);
    expect(running.progress.done).toBeLessThan(running.progress.total);
    const cancel = await srv.fetch(`/api/jobs/${job.id}/cancel`, { method: 'POST', token });
    expect(cancel.status).toBe(200);
    expect(((await cancel.json()) as Job).state).toBe('cancelled');
    expect(await readdir(path.join(dir, 'out'))).toEqual([]);
    expect(await readdir(srv.deps.jobStagingLedger)).toEqual([]);
  }, 60_000);
});
