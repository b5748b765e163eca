import { access, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalPath } from './canonical.js';
import { resolveInArea, type ScopedPath } from './resolve.js';
import { chooseDataDir, openStaging, parentBlocked, type StagingArea } from './staging.js';

const ID = 'a'.repeat(32);
const ID2 = 'b'.repeat(32);

async function* chunks(...parts: (string | Error)[]): AsyncGenerator<Buffer> {
  for (const p of parts) {
    if (p instanceof Error) throw p;
    yield Buffer.from(p);
  }
}
const iter = (...parts: (string | Error)[]) => chunks(...parts)[Symbol.asyncIterator]();

/** writeChunk, then waits for its background sync; the result without the promise. */
async function write(area: StagingArea, id: string, offset: number, body: AsyncIterator<Buffer>, max: number) {
  const { synced, ...r } = await area.writeChunk(id, offset, body, max);
  await synced;
  return r;
}

let dir: string;
let root: string;
let staging: StagingArea;
const target = (v: string): Promise<ScopedPath> => resolveInArea({ root }, canonicalPath(v), { forWrite: true });

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'coffer-staging-'));
  root = path.join(dir, 'root');
  await mkdir(root);
  staging = await openStaging(path.join(dir, 'data'), root);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('chooseDataDir', () => {
  it('takes --data-dir as given, warning when it lies inside the root', async () => {
    expect(await chooseDataDir({ dataDir: path.join(dir, 'elsewhere'), database: 'x.db', root })).toEqual({ dir: path.join(dir, 'elsewhere'), warnings: [] });
    const inside = await chooseDataDir({ dataDir: path.join(root, 'data'), database: 'x.db', root });
    expect(inside.dir).toBe(path.join(root, 'data'));
    expect(inside.warnings[0]).toMatch(/inside the root/);
  });
  it('defaults to <database folder>/coffer-data, or <parent of root>/coffer-data for PostgreSQL', async () => {
    expect((await chooseDataDir({ dataDir: '', database: path.join(dir, 'db', 'c.db'), root })).dir).toBe(path.join(dir, 'db', 'coffer-data'));
    expect((await chooseDataDir({ dataDir: '', database: 'postgres://u@h/d', root })).dir).toBe(path.join(dir, 'coffer-data'));
  });
  it('moves a default that would fall inside the root out of it', async () => {
    const home = path.join(dir, 'home');
    const c = await chooseDataDir({ dataDir: '', database: path.join(root, 'coffer.db'), root }, home, path.join(dir, 'tmp'));
    expect(c.dir.startsWith(path.join(home, '.local', 'state', 'coffer') + path.sep)).toBe(true);
    const c2 = await chooseDataDir({ dataDir: '', database: path.join(root, 'coffer.db'), root }, root, path.join(dir, 'tmp'));
    expect(c2.dir.startsWith(path.join(dir, 'tmp', 'coffer-data-'))).toBe(true);
    const c3 = await chooseDataDir({ dataDir: '', database: path.join(root, 'coffer.db'), root }, root, root);
    expect(c3.dir).toBe(path.join(root, 'coffer-data'));
    expect(c3.warnings[0]).toMatch(/inside the root/);
  });
});

describe('staging files', () => {
  it('lives in <data dir>/uploads, 0750, made with the first upload, and creates files 0640 once', async () => {
    expect(staging.dir).toBe(path.join(dir, 'data', 'uploads'));
    expect(staging.sameDevice).toBe(true);
    await expect(stat(path.join(dir, 'data'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await staging.list()).toEqual([]);
    expect(await staging.freeBytes()).toBeGreaterThan(0);
    await staging.create(ID);
    expect((await stat(staging.dir)).mode & 0o777).toBe(0o750);
    expect((await stat(path.join(dir, 'data'))).mode & 0o777).toBe(0o750);
    expect((await stat(path.join(staging.dir, ID))).mode & 0o777).toBe(0o640);
    await expect(staging.create(ID)).rejects.toMatchObject({ code: 'EEXIST' });
    expect(await staging.size(ID)).toBe(0);
    expect(await staging.size(ID2)).toBeNull();
    await expect(staging.size('../x')).rejects.toThrow('bad staging id');
  });

  it('writes chunks at their offset and syncs them in the background', async () => {
    await staging.create(ID);
    expect(await write(staging, ID, 0, iter('abc', 'def'), 10)).toEqual({ written: 6, overflow: false, aborted: false });
    const r = await staging.writeChunk(ID, 6, iter('ghij'), 4);
    // Answerable at once: the bytes are readable before the sync has settled.
    expect(await readFile(path.join(staging.dir, ID), 'utf8')).toBe('abcdefghij');
    await expect(r.synced).resolves.toBeUndefined();
    expect(r).toMatchObject({ written: 4, overflow: false, aborted: false });
  });

  it('streams a chunk larger than its write batches without losing or reordering bytes', async () => {
    await staging.create(ID);
    const parts = Array.from({ length: 300 }, (_, i) => Buffer.alloc(60_000 + i, i % 251));
    async function* big() {
      yield* parts;
    }
    const total = parts.reduce((n, p) => n + p.length, 0);
    expect(await write(staging, ID, 0, big()[Symbol.asyncIterator](), total)).toEqual({ written: total, overflow: false, aborted: false });
    expect((await readFile(path.join(staging.dir, ID))).equals(Buffer.concat(parts))).toBe(true);
  });

  it('names the kernel whose unsynced bytes it trusts, the same for every area of this machine', async () => {
    expect(staging.writerId).toMatch(/^(boot|process):[0-9a-f-]+$/);
    const other = await openStaging(path.join(dir, 'data2'), root);
    if (staging.writerId.startsWith('boot:')) expect(other.writerId).toBe(staging.writerId);
  });

  it('cuts a file back but never lengthens one', async () => {
    await staging.create(ID);
    await write(staging, ID, 0, iter('abcdef'), 6);
    await staging.truncate(ID, 4);
    expect(await readFile(path.join(staging.dir, ID), 'utf8')).toBe('abcd');
    await expect(staging.truncate(ID, 10)).rejects.toThrow(/holds 4 of 10 bytes/);
    expect(await staging.size(ID)).toBe(4);
  });

  it('refuses a body longer than the room whole, truncating back to the offset', async () => {
    await staging.create(ID);
    await write(staging, ID, 0, iter('abc'), 6);
    const big = 'x'.repeat(2 * 1024 * 1024);
    expect(await write(staging, ID, 3, iter(big, 'more'), 2 * 1024 * 1024 + 3)).toEqual({ written: 0, overflow: true, aborted: false });
    expect(await readFile(path.join(staging.dir, ID), 'utf8')).toBe('abc');
  });

  it('keeps what arrived before the body failed', async () => {
    await staging.create(ID);
    const r = await write(staging, ID, 0, iter('abc', new Error('aborted')), 100);
    expect(r).toEqual({ written: 3, overflow: false, aborted: true });
    expect(await readFile(path.join(staging.dir, ID), 'utf8')).toBe('abc');
  });

  it('throws a write error (a full disk) instead of taking it for a client abort', async () => {
    const ok = await access('/dev/full').then(
      () => true,
      () => false,
    );
    if (!ok) return;
    await mkdir(staging.dir, { recursive: true });
    await symlink('/dev/full', path.join(staging.dir, ID));
    await expect(staging.writeChunk(ID, 0, iter('abc'), 10)).rejects.toMatchObject({ code: 'ENOSPC' });
  });

  it('removes only its own file and never what a link points to (S8)', async () => {
    const victim = path.join(dir, 'victim.txt');
    await writeFile(victim, 'keep');
    await mkdir(staging.dir, { recursive: true });
    await symlink(victim, path.join(staging.dir, ID));
    await staging.remove(ID);
    expect(await readFile(victim, 'utf8')).toBe('keep');
    expect(await readdir(staging.dir)).toEqual([]);
    await mkdir(path.join(staging.dir, ID2));
    await staging.remove(ID2);
    expect(await readdir(staging.dir)).toEqual([ID2]);
    await staging.remove('c'.repeat(32)); // missing: no error
  });

  it('lists staging files by id', async () => {
    await staging.create(ID);
    await writeFile(path.join(staging.dir, 'not-an-id'), '');
    expect((await staging.list()).map((f) => f.id)).toEqual([ID]);
    expect(await staging.freeBytes()).toBeGreaterThan(0);
  });
});

describe('commit', () => {
  it('moves the file into place, creating parents 0750, cutting left-overs past the length', async () => {
    await staging.create(ID);
    await write(staging, ID, 0, iter('hello world'), 100);
    await staging.commit(ID, 5, await target('/a/b/c.txt'), false);
    expect(await readFile(path.join(root, 'a/b/c.txt'), 'utf8')).toBe('hello');
    expect((await stat(path.join(root, 'a'))).mode & 0o777).toBe(0o750);
    expect((await stat(path.join(root, 'a/b/c.txt'))).mode & 0o777).toBe(0o640);
    expect(await staging.size(ID)).toBeNull();
  });

  it('never replaces an existing file without override (EEXIST), replaces it with', async () => {
    await writeFile(path.join(root, 'f.txt'), 'old');
    await staging.create(ID);
    await write(staging, ID, 0, iter('new'), 3);
    const t = await target('/f.txt');
    await expect(staging.commit(ID, 3, t, false)).rejects.toMatchObject({ code: 'EEXIST' });
    expect(await readFile(path.join(root, 'f.txt'), 'utf8')).toBe('old');
    expect(await staging.size(ID)).toBe(3);
    await staging.commit(ID, 3, t, true);
    expect(await readFile(path.join(root, 'f.txt'), 'utf8')).toBe('new');
  });

  it('removes the parent folders it made when the file cannot be placed; folders that were there stay', async () => {
    await mkdir(path.join(root, 'kept'));
    await staging.create(ID);
    await write(staging, ID, 0, iter('abc'), 3);
    // The staged file is gone (an operator cleaned up): placing it fails after the folders were made.
    await unlink(path.join(staging.dir, ID));
    await expect(staging.commit(ID, 3, await target('/kept/new/deeper/f.txt'), false)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readdir(root)).toEqual(['kept']);
    expect(await readdir(path.join(root, 'kept'))).toEqual([]);
  });

  it('copies, fsyncs and renames across filesystems, leaving no temporary file', async () => {
    const shm = await mkdtemp('/dev/shm/coffer-staging-').catch(() => null);
    if (!shm) return;
    try {
      const other = await openStaging(shm, root);
      expect(other.sameDevice).toBe(false);
      await other.create(ID);
      await write(other, ID, 0, iter('across'), 6);
      await other.commit(ID, 6, await target('/x/across.txt'), false);
      expect(await readFile(path.join(root, 'x/across.txt'), 'utf8')).toBe('across');
      expect((await stat(path.join(root, 'x/across.txt'))).mode & 0o777).toBe(0o640);
      expect(await readdir(path.join(root, 'x'))).toEqual(['across.txt']);
      expect(await other.size(ID)).toBeNull();
      // Without override an existing file stays.
      await other.create(ID2);
      await write(other, ID2, 0, iter('again!'), 6);
      await expect(other.commit(ID2, 6, await target('/x/across.txt'), false)).rejects.toMatchObject({ code: 'EEXIST' });
      expect(await readdir(path.join(root, 'x'))).toEqual(['across.txt']);
    } finally {
      await rm(shm, { recursive: true, force: true });
    }
  });
});

describe('parentBlocked', () => {
  it('is true when a file stands where a parent folder should be', async () => {
    await writeFile(path.join(root, 'file'), 'x');
    expect(await parentBlocked(await target('/file/child'))).toBe(true);
    expect(await parentBlocked(await target('/file/deeper/child'))).toBe(true);
    expect(await parentBlocked(await target('/new/deeper/child'))).toBe(false);
    expect(await parentBlocked(await target('/top.txt'))).toBe(false);
    await unlink(path.join(root, 'file'));
  });
});
