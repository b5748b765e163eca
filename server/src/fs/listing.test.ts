import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listFolder, listFolderJson } from './listing.js';
import { resolvePath } from './resolve.js';
import { sortItems } from './sort.js';
import { closeWorkerPools, statDirectory } from './worker-pool.js';

let base: string;
let dir: string;
const N = 5000; // above the split point: the entries are shared between the workers

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'coffer-listing-'));
  dir = path.join(base, 'root', 'big');
  await mkdir(dir, { recursive: true });
  await mkdir(path.join(base, 'outside'));
  for (let i = 0; i < N; i++) await writeFile(path.join(dir, `f${i}.txt`), 'x'.repeat(i % 7));
  await symlink('f1.txt', path.join(dir, 'zz-link'));
  await symlink(path.join(base, 'outside'), path.join(dir, 'zz-out'));
  await symlink('nowhere', path.join(dir, 'zz-broken'));
  await mkdir(path.join(dir, 'sub'));
});
afterAll(async () => {
  await closeWorkerPools();
  await rm(base, { recursive: true, force: true });
});

const viewer = { scope: '/', rules: [], hideDotfiles: false, sorting: { by: 'name', asc: false } };

describe('listing a big folder', () => {
  it('stats every entry once, across workers, and judges links', async () => {
    const raw = await statDirectory(dir, path.join(base, 'root'));
    expect(raw.names).toHaveLength(N + 4);
    const at = (name: string) => raw.names.indexOf(name);
    expect(raw.size[at('f13.txt')]).toBe(13 % 7);
    expect(raw.kind[at('zz-link')]).toBe(1);
    expect(raw.real[at('zz-link')]).toBe(path.join(dir, 'f1.txt'));
    expect(raw.kind[at('zz-out')]).toBe(3);
    expect(raw.kind[at('zz-broken')]).toBe(2);
  });

  it('produces the same JSON as the object form, natural order, escaping link left out', async () => {
    const p = await resolvePath(viewer, '/big', { serverRoot: path.join(base, 'root'), globalRules: [] });
    const json = JSON.parse((await listFolderJson(p, viewer, [])).toString('utf8'));
    const objects = await listFolder(p, viewer, []);
    expect(json).toEqual(objects);
    expect(json.numDirs).toBe(1);
    expect(json.numFiles).toBe(N + 2);
    expect(json.items[0].name).toBe('sub');
    expect(json.items.slice(1, 4).map((i: { name: string }) => i.name)).toEqual(['f0.txt', 'f1.txt', 'f2.txt']);
    expect(json.items.find((i: { name: string }) => i.name === 'zz-broken').type).toBe('invalid_link');
    expect(json.items.find((i: { name: string }) => i.name === 'zz-link')).toMatchObject({ isSymlink: true, size: 1 });
    expect(json.items.some((i: { name: string }) => i.name === 'zz-out')).toBe(false);
  });

  it('orders by every sorting exactly as the sort rules say (name order computed while the workers stat)', async () => {
    const p = await resolvePath(viewer, '/big', { serverRoot: path.join(base, 'root'), globalRules: [] });
    const disk = (await listFolder(p, viewer, [])).items;
    const sortable = disk.map((i) => ({ name: i.name, isDir: i.isDir, size: i.size, mtime: Date.parse(i.modified) }));
    for (const by of ['name', 'size', 'modified', 'weird']) {
      for (const asc of [false, true]) {
        const sorting = { by, asc };
        const json = JSON.parse((await listFolderJson(p, { ...viewer, sorting }, [])).toString('utf8'));
        const expected = sortItems(sortable.slice().sort((a, b) => (a.name < b.name ? -1 : 1)), sorting).map((i) => i.name);
        if (by === 'modified') expect(json.items.length, `${by} ${asc}`).toBe(expected.length);
        else expect(json.items.map((i: { name: string }) => i.name), `${by} ${asc}`).toEqual(expected);
      }
    }
  });

  it('writes exactly the bytes JSON.stringify gives for the same listing (escapes, non-BMP, pieces of UTF-8)', async () => {
    const odd = path.join(base, 'root', 'bytes');
    await mkdir(odd);
    const names = ['quote".txt', 'back\\slash', 'ctl\x01\x1f\x7f', 'line\nbreak', 'sep\u2028\u2029', 'é ü 漢字', '😀 𝄞.mp3', 'Ω10.png', 'Ω9.png'];
    for (const n of names) await writeFile(path.join(odd, n), 'x');
    for (let i = 0; i < 3000; i++) await writeFile(path.join(odd, `n${i}-ü😀.txt`), ''); // more than one piece
    const p = await resolvePath(viewer, '/bytes', { serverRoot: path.join(base, 'root'), globalRules: [] });
    const { items, numDirs, numFiles, sorting, ...self } = await listFolder(p, viewer, []);
    const expected = JSON.stringify({ ...self, sorting, items, numDirs, numFiles });
    expect((await listFolderJson(p, viewer, [])).toString('utf8')).toBe(expected);
  });

  it('escapes names in the hand-written JSON', async () => {
    const odd = path.join(base, 'root', 'odd');
    await mkdir(odd);
    const names = ['quote".txt', 'back\\slash', 'tab\there', 'é ü 漢字', '<script>'];
    for (const n of names) await writeFile(path.join(odd, n), '');
    const p = await resolvePath(viewer, '/odd', { serverRoot: path.join(base, 'root'), globalRules: [] });
    const json = JSON.parse((await listFolderJson(p, viewer, [])).toString('utf8'));
    expect(json.items.map((i: { name: string }) => i.name).sort()).toEqual([...names].sort());
    expect(json.items.map((i: { path: string }) => i.path).sort()).toEqual(names.map((n) => `/odd/${n}`).sort());
  });
});
