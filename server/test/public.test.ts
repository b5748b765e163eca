/**
 * Public access (docs/api.md §15) over real HTTP: the share JSON, confinement to the shared folder
 * (S47, every traversal variant), the owner re-checked on every request (S46), expiry, the
 * password and token flow (S44), share-password throttling (S45) and the share page (S62).
 * Runs on SQLite, and on PostgreSQL with COFFER_TEST_PG_URL.
 */
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useServer, type TestServer } from './harness.js';
import { actor, ALL_PERMS, put, rawRequest, share, type Actor } from './shares-support.js';

const OWNER_NAME = `owner-zed-${Math.random().toString(36).slice(2, 8)}`;

interface Item {
  path: string;
  name: string;
  isDir: boolean;
  isSymlink: boolean;
  type: string;
  size: number;
}
interface Listing extends Item {
  items: Item[];
  numDirs: number;
  numFiles: number;
  sorting: { by: string; asc: boolean };
  token?: string;
  content?: string;
}

async function json(res: Response): Promise<Listing> {
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Listing;
}

/** The owner's files: a shared folder with every kind of hostile neighbour. */
async function layout(srv: TestServer): Promise<void> {
  const s = (rel: string, c?: string) => put(srv, `zed/${rel}`, c);
  await s('docs/folder/a.txt', 'hello');
  await s('docs/folder/File10.txt', 'ten');
  await s('docs/folder/file2.txt', 'two');
  await s('docs/folder/sub/b.txt', 'bee');
  await s('docs/folder/Zeta/z.txt', 'zed');
  await s('docs/folder/.dot.txt', 'dot');
  await s('docs/folder/private/p.txt', 'private words');
  await s('docs/folder/secret.key', 'key material');
  await s('docs/report.txt', 'report');
  await s('other/secret.txt', 'SECRET-OF-OTHER');
  await put(srv, 'outside.txt', 'SECRET-OUTSIDE-SCOPE');
  const f = path.join(srv.root, 'zed/docs/folder');
  await symlink(path.join(srv.root, 'zed/other'), path.join(f, 'esc-link'));
  await symlink('../../other/secret.txt', path.join(f, 'esc-file'));
  await symlink(path.join(srv.root, 'outside.txt'), path.join(f, 'out-link'));
  await symlink('sub', path.join(f, 'in-link'));
  await symlink('does-not-exist', path.join(f, 'dangling'));
  await symlink('../../../outside-nowhere', path.join(f, 'dangling-out'));
}

const SECRETS = /SECRET|private words|key material|other\/|outside/;
/** The bytes of the files outside the share (an error body may echo the request path). */
const CONTENTS = /SECRET-OF-OTHER|SECRET-OUTSIDE-SCOPE|private words|key material/;

describe('GET /api/public/share', () => {
  const srv = useServer();
  let zed: Actor;
  let folder: string;
  let file: string;

  beforeAll(async () => {
    await layout(srv.get());
    zed = await actor(srv.get(), {
      username: OWNER_NAME,
      scope: '/zed',
      sorting: { by: 'size', asc: true },
      rules: [
        { regex: false, allow: false, path: '/docs/folder/private', regexp: null },
        { regex: true, allow: false, path: '', regexp: { raw: '\\.key$' } },
      ],
      hideDotfiles: true,
    });
    folder = (await share(srv.get(), zed, '/docs/folder/')).hash;
    file = (await share(srv.get(), zed, '/docs/report.txt')).hash;
  });

  it('describes a shared folder relative to the share, sorted folders first then by name', async () => {
    const res = await srv.fetch(`/api/public/share/${folder}`);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('no-cache, no-store, must-revalidate');
    const body = await json(res);
    expect(body).toMatchObject({ path: '/', name: 'folder', isDir: true, type: '', sorting: { by: 'name', asc: false } });
    expect(body.items.map((i) => i.path)).toEqual(['/in-link', '/sub', '/Zeta', '/a.txt', '/dangling', '/file2.txt', '/File10.txt']);
    expect(body.items.find((i) => i.name === 'in-link')).toMatchObject({ isDir: true, isSymlink: true });
    expect(body.items.find((i) => i.name === 'dangling')).toMatchObject({ type: 'invalid_link' });
    expect(body.numDirs).toBe(3);
    expect(body.numFiles).toBe(4);
    expect(body.token).toBeUndefined();
    expect(body.content).toBeUndefined();
    expect(await srv.fetch(`/api/public/share/${folder}/`).then(json)).toEqual(body);
  });

  it('never carries the owner\'s name, scope, or any path outside the share (S43)', async () => {
    for (const p of [`/api/public/share/${folder}`, `/api/public/share/${folder}/sub`, `/api/public/share/${folder}/a.txt`, `/api/public/share/${file}`]) {
      const text = await (await srv.fetch(p)).text();
      expect(text, p).not.toContain(OWNER_NAME);
      expect(text, p).not.toContain('zed');
      expect(text, p).not.toContain('/docs');
      expect(text, p).not.toContain(srv.root);
      expect(text, p).not.toMatch(SECRETS);
      expect(text, p).not.toMatch(/"hash"|userID|password/);
    }
  });

  it('browses into sub-folders and describes files inside the share', async () => {
    const sub = await srv.fetch(`/api/public/share/${folder}/sub`).then(json);
    expect(sub).toMatchObject({ path: '/sub', name: 'sub', isDir: true });
    expect(sub.items.map((i) => i.path)).toEqual(['/sub/b.txt']);
    const viaLink = await srv.fetch(`/api/public/share/${folder}/in-link`).then(json);
    expect(viaLink.items.map((i) => i.path)).toEqual(['/in-link/b.txt']);
    const a = await srv.fetch(`/api/public/share/${folder}/a.txt`).then(json);
    expect(a).toMatchObject({ path: '/a.txt', name: 'a.txt', isDir: false, size: 5, type: 'text' });
    expect(a.content).toBeUndefined();
  });

  it('describes a shared file with an empty path; its own name is the only sub-path', async () => {
    const f = await srv.fetch(`/api/public/share/${file}`).then(json);
    expect(f).toMatchObject({ path: '', name: 'report.txt', isDir: false, size: 6 });
    expect(await srv.fetch(`/api/public/share/${file}/report.txt`).then(json)).toEqual(f);
    expect((await srv.fetch(`/api/public/share/${file}/other.txt`)).status).toBe(404);
    expect((await rawRequest(srv.get(), `/api/public/share/${file}/../secret.txt`)).status).toBe(403);
  });

  it('answers 404 to a missing sub-path and to rule-denied or hidden ones (S12, S46)', async () => {
    for (const sub of ['nope', 'sub/nope', 'private', 'private/p.txt', 'secret.key', '.dot.txt', 'private/../a.txt/..']) {
      const res = await srv.fetch(`/api/public/share/${folder}/${sub}`);
      if (sub === 'private/../a.txt/..') continue; // fetch resolves dots itself; covered by the raw variants
      expect(res.status, sub).toBe(404);
      expect(await res.text(), sub).toMatch(/^404 Not Found/);
    }
  });

  it('refuses links that leave the shared folder, even to the owner\'s own files (S47)', async () => {
    for (const sub of ['esc-link', 'esc-link/', 'esc-link/secret.txt', 'esc-file', 'out-link', 'dangling-out']) {
      const res = await srv.fetch(`/api/public/share/${folder}/${sub}`);
      expect(res.status, sub).toBe(403);
      expect(await res.text()).not.toMatch(SECRETS);
    }
  });

  it('answers every traversal variant with a 4xx and never with outside content (S1, S2, S47)', async () => {
    const variants: [string, number][] = [
      ['/..', 403],
      ['/../', 403],
      ['/../other/secret.txt', 403],
      ['/../../other/secret.txt', 403],
      ['/../../../outside.txt', 403],
      ['/sub/../../other/secret.txt', 403],
      ['/sub/../../../outside.txt', 403],
      ['/%2e%2e/other/secret.txt', 403],
      ['/%2E%2E/%2E%2E/other/secret.txt', 403],
      ['/..%2f..%2fother%2fsecret.txt', 403],
      ['/sub%2f..%2f..%2fother%2fsecret.txt', 403],
      ['/.%2e/other/secret.txt', 403],
      ['/%2e./other/secret.txt', 403],
      ['/./../other/secret.txt', 403],
      ['//../other/secret.txt', 403],
      ['/sub/./../../other', 403],
      ['/%252e%252e/other/secret.txt', 404],
      ['/%252e%252e%252fother', 404],
      ['/..%5cother%5csecret.txt', 404],
      ['/..\\other\\secret.txt', 404],
      ['/..;/other/secret.txt', 404],
      ['/...', 404],
      ['/%c0%ae%c0%ae/other/secret.txt', 400],
      ['/%e0%80%ae%e0%80%ae/other', 400],
      ['/a.txt%00', 400],
      ['/%00../other', 400],
      ['/sub%0a/../..', 400],
      ['/%zz', 400],
    ];
    for (const [v, want] of variants) {
      for (const endpoint of ['share', 'dl']) {
        const res = await rawRequest(srv.get(), `/api/public/${endpoint}/${folder}${v}`);
        const label = `${endpoint} ${v}`;
        expect(res.status, label).toBeGreaterThanOrEqual(400);
        expect(res.status, label).toBeLessThan(500);
        expect(res.status, label).toBe(want);
        expect(res.body.toString('latin1'), label).not.toMatch(CONTENTS);
      }
    }
  });

  it('answers 404 to unknown, malformed and missing hashes', async () => {
    for (const p of [
      '/api/public/share/AAAAAAAAAAAAAAAAAAAAAA',
      '/api/public/share/not*a*hash',
      `/api/public/share/${'A'.repeat(300)}`,
      '/api/public/share/',
      `/api/public/share/${folder.slice(0, -1)}`,
      `/api/public/share/${folder.toLowerCase() === folder ? folder.toUpperCase() : folder.toLowerCase()}`,
      '/api/public/dl/AAAAAAAAAAAAAAAAAAAAAA',
      '/api/public/dl/',
    ]) {
      const res = await srv.fetch(p);
      expect(res.status, p).toBe(404);
      expect(await res.text(), p).toMatch(/^404 Not Found/);
    }
  });

  it('ignores a login token: a public request is neither helped nor hurt by one', async () => {
    const res = await srv.fetch(`/api/public/share/${folder}`, { token: zed.token });
    expect((await json(res)).path).toBe('/');
    expect((await srv.fetch(`/api/public/share/${folder}`, { token: 'garbage.token.here' })).status).toBe(200);
    expect((await srv.fetch(`/api/public/share/${folder}/private`, { token: zed.token })).status).toBe(404);
  });

  it('serves the share page with no-referrer (S62)', async () => {
    const res = await srv.fetch(`/share/${folder}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(await res.text()).toContain('window.FileBrowser');
    const sub = await srv.fetch(`/share/${folder}/sub`);
    expect(sub.status).toBe(200);
    expect(sub.headers.get('referrer-policy')).toBe('no-referrer');
  });
});

describe('S46: the owner as it is now', () => {
  const srv = useServer();
  let owner: Actor;

  beforeAll(async () => {
    await put(srv.get(), 'o/proj/folder/a.txt', 'a');
    await put(srv.get(), 'o/proj/folder/later/l.txt', 'l');
    await put(srv.get(), 'o/proj/file.txt', 'f');
    owner = await actor(srv.get(), { scope: '/o' });
  });

  async function setUser(patch: Partial<{ perm: typeof ALL_PERMS; scope: string; rules: unknown[]; hideDotfiles: boolean }>) {
    const u = (await srv.deps.users.byId(owner.id))!;
    await srv.deps.users.update({ ...u, ...patch } as typeof u);
  }
  const restore = () => setUser({ perm: { ...ALL_PERMS }, scope: '/o', rules: [], hideDotfiles: false });
  const status = async (hash: string, sub = '') => (await srv.fetch(`/api/public/share/${hash}${sub}`)).status;
  const dl = async (hash: string, sub = '') => (await srv.fetch(`/api/public/dl/${hash}${sub}`)).status;

  it('types a text file by the owner\'s modify permission: text with it, textImmutable without (docs/api.md §7)', async () => {
    const folderHash = (await share(srv.get(), owner, '/proj/folder/')).hash;
    const fileHash = (await share(srv.get(), owner, '/proj/file.txt')).hash;
    const typeOf = async (p: string) => ((await (await srv.fetch(`/api/public/share/${p}`)).json()) as Item).type;
    expect(await typeOf(`${folderHash}/a.txt`)).toBe('text');
    expect(await typeOf(fileHash)).toBe('text');
    await setUser({ perm: { ...ALL_PERMS, modify: false } });
    try {
      expect(await typeOf(`${folderHash}/a.txt`)).toBe('textImmutable');
      expect(await typeOf(fileHash)).toBe('textImmutable');
      // Listing items are typed as if the viewer could modify, whoever the owner is (docs/api.md §7).
      const listing = (await (await srv.fetch(`/api/public/share/${folderHash}`)).json()) as Listing;
      expect(listing.items.find((i) => i.name === 'a.txt')?.type).toBe('text');
    } finally {
      await restore();
    }
  });

  it('answers 404 when the owner lost perm.share or perm.download, and works again once restored', async () => {
    const h = (await share(srv.get(), owner, '/proj/folder/')).hash;
    expect(await status(h)).toBe(200);
    await setUser({ perm: { ...ALL_PERMS, share: false } });
    expect(await status(h)).toBe(404);
    expect(await dl(h, '/a.txt')).toBe(404);
    await setUser({ perm: { ...ALL_PERMS, download: false } });
    expect(await status(h)).toBe(404);
    expect(await dl(h, '/a.txt')).toBe(404);
    await restore();
    expect(await status(h)).toBe(200);
  });

  it('answers 404 when the owner\'s scope was narrowed so the path is outside it', async () => {
    await put(srv.get(), 'o/narrow/n.txt', 'n');
    const h = (await share(srv.get(), owner, '/proj/folder/')).hash;
    await setUser({ scope: '/o/narrow' });
    expect(await status(h)).toBe(404);
    expect(await dl(h, '/a.txt')).toBe(404);
    await restore();
    expect(await status(h)).toBe(200);
  });

  it('applies rules added after sharing, to the shared item and inside it', async () => {
    const h = (await share(srv.get(), owner, '/proj/folder/')).hash;
    await setUser({ rules: [{ regex: false, allow: false, path: '/proj', regexp: null }] });
    expect(await status(h)).toBe(404);
    await setUser({ rules: [{ regex: false, allow: false, path: '/proj/folder/later', regexp: null }] });
    const body = (await (await srv.fetch(`/api/public/share/${h}`)).json()) as Listing;
    expect(body.items.map((i) => i.name)).toEqual(['a.txt']);
    expect(await status(h, '/later')).toBe(404);
    expect(await dl(h, '/later/l.txt')).toBe(404);
    await setUser({ rules: [], hideDotfiles: true });
    await put(srv.get(), 'o/proj/folder/.env', 'x');
    expect(await status(h, '/.env')).toBe(404);
    await restore();
    expect(await status(h, '/later')).toBe(200);
  });

  it('applies global rules added after sharing', async () => {
    const h = (await share(srv.get(), owner, '/proj/file.txt')).hash;
    const settings = await srv.deps.settings.settings();
    await srv.deps.settings.saveSettings({ ...settings, rules: [{ regex: true, allow: false, path: '', regexp: { raw: 'file\\.txt$' } }] });
    try {
      expect(await status(h)).toBe(404);
      expect(await dl(h)).toBe(404);
    } finally {
      await srv.deps.settings.saveSettings(settings);
    }
    expect(await status(h)).toBe(200);
  });

  it('answers 404 when the target is gone, or replaced by another file at the same path', async () => {
    await put(srv.get(), 'o/proj/swap.txt', 'original');
    const h = (await share(srv.get(), owner, '/proj/swap.txt')).hash;
    expect(await status(h)).toBe(200);
    await rm(path.join(srv.root, 'o/proj/swap.txt'));
    expect(await status(h)).toBe(404);
    // A different file under the same name (another inode; the original is kept alive so the
    // file system cannot hand its inode number out again).
    await put(srv.get(), 'o/proj/keep.txt', 'keep');
    await put(srv.get(), 'o/proj/swap.txt', 'impostor');
    expect(await status(h)).toBe(404);
    expect(await dl(h)).toBe(404);
  });

  it('answers 404 once the owner is deleted, and drops the link', async () => {
    const gone = await actor(srv.get(), { scope: '/o' });
    const h = (await share(srv.get(), gone, '/proj/file.txt')).hash;
    expect(await status(h)).toBe(200);
    await srv.deps.users.delete(gone.id);
    expect(await status(h)).toBe(404);
    expect(await dl(h)).toBe(404);
    expect(await srv.deps.db.kysely.selectFrom('shares').select('hash').where('hash', '=', h).execute()).toEqual([]);
  });

  it('answers 404 for an expired share and deletes it', async () => {
    const h = (await share(srv.get(), owner, '/proj/file.txt', { expires: '1', unit: 'seconds' })).hash;
    await srv.deps.db.kysely.updateTable('shares').set({ expire: Math.floor(Date.now() / 1000) - 1 }).where('hash', '=', h).execute();
    expect(await status(h)).toBe(404);
    expect(await dl(h)).toBe(404);
    expect(await srv.deps.db.kysely.selectFrom('shares').select('hash').where('hash', '=', h).execute()).toEqual([]);
  });
});

describe('password-protected shares (S44)', () => {
  const srv = useServer();
  let owner: Actor;
  const PASSWORD = 'p@ss wörd+/%&?=';
  let protectedHash: string;
  let otherHash: string;
  let openHash: string;

  beforeAll(async () => {
    await put(srv.get(), 'p/box/inner.txt', 'inner bytes');
    await put(srv.get(), 'p/box/deeper/d.txt', 'deep');
    await put(srv.get(), 'p/lone.txt', 'lone bytes');
    owner = await actor(srv.get(), { scope: '/p' });
    protectedHash = (await share(srv.get(), owner, '/box/', { password: PASSWORD })).hash;
    otherHash = (await share(srv.get(), owner, '/lone.txt', { password: 'another one' })).hash;
    openHash = (await share(srv.get(), owner, '/lone.txt')).hash;
  });

  const withPassword = (pw: string) => ({ headers: { 'X-SHARE-PASSWORD': encodeURIComponent(pw) } });

  it('answers 401 with a bare status body without the password, or with an empty one', async () => {
    for (const init of [{}, { headers: { 'X-SHARE-PASSWORD': '' } }]) {
      for (const p of [`/api/public/share/${protectedHash}`, `/api/public/share/${protectedHash}/deeper`, `/api/public/dl/${protectedHash}/inner.txt`, `/api/public/dl/${protectedHash}`]) {
        const res = await srv.fetch(p, init);
        expect(res.status, p).toBe(401);
        const text = await res.text();
        expect(text).toBe('401 Unauthorized\n');
      }
    }
  });

  it('answers 401 to a wrong password and to one that is not valid percent-encoding', async () => {
    expect((await srv.fetch(`/api/public/share/${protectedHash}`, withPassword('wrong'))).status).toBe(401);
    expect((await srv.fetch(`/api/public/share/${protectedHash}`, { headers: { 'X-SHARE-PASSWORD': '%zz' } })).status).toBe(401);
    expect((await srv.fetch(`/api/public/share/${protectedHash}`, { headers: { 'X-SHARE-PASSWORD': PASSWORD.replace('%', '%25').slice(0, 3) } })).status).toBe(401);
  });

  it('opens with the percent-encoded password and hands out a short-lived token', async () => {
    const body = await srv.fetch(`/api/public/share/${protectedHash}`, withPassword(PASSWORD)).then(json);
    expect(body.items.map((i) => i.name)).toEqual(['deeper', 'inner.txt']);
    expect(typeof body.token).toBe('string');
    expect(body.token!.length).toBeGreaterThanOrEqual(16);
    expect(body.token).toMatch(/^[A-Za-z0-9._~-]+$/);
    expect(JSON.stringify(body)).not.toContain(PASSWORD);
    const sub = await srv.fetch(`/api/public/share/${protectedHash}/deeper`, withPassword(PASSWORD)).then(json);
    expect(sub.token).toBeTruthy();
  });

  it('lets the token open the share and its downloads without the header', async () => {
    const { token } = await srv.fetch(`/api/public/share/${protectedHash}`, withPassword(PASSWORD)).then(json);
    const t = encodeURIComponent(token!);
    const listing = await srv.fetch(`/api/public/share/${protectedHash}/deeper?token=${t}`).then(json);
    expect(listing.items.map((i) => i.name)).toEqual(['d.txt']);
    expect(listing.token).toBe(token); // handed back as is, never extended
    const dl = await srv.fetch(`/api/public/dl/${protectedHash}/inner.txt?token=${t}`);
    expect(dl.status).toBe(200);
    expect(await dl.text()).toBe('inner bytes');
    const inline = await srv.fetch(`/api/public/dl/${protectedHash}/inner.txt?inline=true&token=${t}`);
    expect(inline.status).toBe(200);
    expect(inline.headers.get('content-disposition')).toMatch(/^inline/);
    // A wrong header next to a good token changes nothing: the token decides.
    expect((await srv.fetch(`/api/public/dl/${protectedHash}/inner.txt?token=${t}`, withPassword('wrong'))).status).toBe(200);
  });

  it('refuses a token on another share, an altered token and a token made up from nothing', async () => {
    const { token } = await srv.fetch(`/api/public/share/${protectedHash}`, withPassword(PASSWORD)).then(json);
    const other = (await srv.fetch(`/api/public/share/${otherHash}`, withPassword('another one')).then(json)).token!;
    expect((await srv.fetch(`/api/public/dl/${otherHash}?token=${encodeURIComponent(token!)}`)).status).toBe(401);
    expect((await srv.fetch(`/api/public/share/${protectedHash}?token=${encodeURIComponent(other)}`)).status).toBe(401);
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    const [exp] = token!.split('.');
    const altered = [
      flip(token!, token!.length - 1),
      flip(token!, token!.length - 10),
      flip(token!, 0),
      `${(parseInt(exp!, 36) + 3600).toString(36)}.${token!.split('.')[1]}`,
      token!.slice(0, -1),
      token! + 'A',
      'x'.repeat(60),
      '',
    ];
    for (const bad of altered) {
      const res = await srv.fetch(`/api/public/dl/${protectedHash}/inner.txt?token=${encodeURIComponent(bad)}`);
      expect(res.status, bad).toBe(401);
    }
  });

  it('kills tokens when the share\'s password changes, and answers 404 once the share is deleted', async () => {
    const h = (await share(srv.get(), owner, '/lone.txt', { password: 'first password' })).hash;
    const { token } = await srv.fetch(`/api/public/share/${h}`, withPassword('first password')).then(json);
    expect((await srv.fetch(`/api/public/dl/${h}?token=${encodeURIComponent(token!)}`)).status).toBe(200);
    const { hashPassword } = await import('../src/auth/passwords.js');
    await srv.deps.db.kysely.updateTable('shares').set({ password_hash: await hashPassword('second password') }).where('hash', '=', h).execute();
    expect((await srv.fetch(`/api/public/dl/${h}?token=${encodeURIComponent(token!)}`)).status).toBe(401);
    expect((await srv.fetch(`/api/public/dl/${h}`, withPassword('first password'))).status).toBe(401);
    const fresh = (await srv.fetch(`/api/public/share/${h}`, withPassword('second password')).then(json)).token!;
    expect((await srv.fetch(`/api/share/${h}`, { method: 'DELETE', token: owner.token })).status).toBe(200);
    expect((await srv.fetch(`/api/public/dl/${h}?token=${encodeURIComponent(fresh)}`)).status).toBe(404);
  });

  it('ignores password and token on a share without a password and hands out no token', async () => {
    const res = await srv.fetch(`/api/public/share/${openHash}?token=whatever`, withPassword('anything'));
    const body = await json(res);
    expect(body.token).toBeUndefined();
    expect(body.name).toBe('lone.txt');
  });

  it('checks the password before the owner: a dead protected link still asks for it', async () => {
    const gone = await actor(srv.get(), { scope: '/p' });
    const h = (await share(srv.get(), gone, '/lone.txt', { password: 'pw of the dead' })).hash;
    await srv.deps.users.delete(gone.id);
    expect((await srv.fetch(`/api/public/share/${h}`)).status).toBe(401);
    expect((await srv.fetch(`/api/public/share/${h}`, withPassword('pw of the dead'))).status).toBe(404);
  });
});

describe('S45: share-password throttling', () => {
  const srv = useServer({ trustedProxies: ['127.0.0.1'] });
  let owner: Actor;
  let a: string;
  let b: string;
  let open: string;

  beforeAll(async () => {
    await put(srv.get(), 't/f.txt', 'f');
    owner = await actor(srv.get(), { scope: '/t' });
    a = (await share(srv.get(), owner, '/f.txt', { password: 'right-a' })).hash;
    b = (await share(srv.get(), owner, '/f.txt', { password: 'right-b' })).hash;
    open = (await share(srv.get(), owner, '/f.txt')).hash;
  });

  const from = (ip: string, pw?: string) => ({
    headers: { 'X-Forwarded-For': ip, ...(pw === undefined ? {} : { 'X-SHARE-PASSWORD': encodeURIComponent(pw) }) },
  });

  it('after 10 wrong passwords from one address answers 429 with Retry-After and an empty body, for every protected share', async () => {
    const ip = '203.0.113.7';
    for (let i = 0; i < 5; i++) expect((await srv.fetch(`/api/public/share/${a}`, from(ip, `wrong-${i}`))).status).toBe(401);
    for (let i = 0; i < 5; i++) expect((await srv.fetch(`/api/public/dl/${b}`, from(ip, `wrong-${i}`))).status).toBe(401);
    // Missing passwords are not guesses.
    expect((await srv.fetch(`/api/public/share/${a}`, from(ip))).status).toBe(429);
    const res = await srv.fetch(`/api/public/share/${a}`, from(ip, 'right-a'));
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(15 * 60);
    expect(await res.text()).toBe('');
    expect((await srv.fetch(`/api/public/dl/${b}`, from(ip, 'right-b'))).status).toBe(429);
    // A share without a password is not affected, nor is another address.
    expect((await srv.fetch(`/api/public/share/${open}`, from(ip))).status).toBe(200);
    expect((await srv.fetch(`/api/public/share/${a}`, from('203.0.113.8', 'right-a'))).status).toBe(200);
  });

  it('does not count missing passwords, and a correct one from a clean address works', async () => {
    const ip = '198.51.100.1';
    for (let i = 0; i < 15; i++) expect((await srv.fetch(`/api/public/share/${a}`, from(ip))).status).toBe(401);
    expect((await srv.fetch(`/api/public/share/${a}`, from(ip, 'right-a'))).status).toBe(200);
  });

  it('does not let a parallel burst of guesses overshoot the limit', async () => {
    const ip = '198.51.100.77';
    expect((await srv.fetch(`/api/public/share/${a}`, from(ip, 'first-wrong'))).status).toBe(401);
    const burst = await Promise.all(Array.from({ length: 30 }, (_, i) => srv.fetch(`/api/public/share/${a}`, from(ip, `w${i}`))));
    const statuses = burst.map((r) => r.status);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(9);
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
  });

  it('slows a guesser spread over many addresses down on that share without locking out clean addresses', async () => {
    const c = (await share(srv.get(), owner, '/f.txt', { password: 'right-c' })).hash;
    for (let i = 0; i < 30; i++) expect((await srv.fetch(`/api/public/share/${c}`, from(`192.0.2.${i + 1}`, 'nope'))).status).toBe(401);
    // An address that already failed on this share now waits…
    expect((await srv.fetch(`/api/public/share/${c}`, from('192.0.2.1', 'right-c'))).status).toBe(429);
    // …one that has not may still try, and the right password still works.
    expect((await srv.fetch(`/api/public/share/${c}`, from('192.0.2.200', 'right-c'))).status).toBe(200);
  });
});

describe('S45: a wrong share password is answered after a delay', () => {
  const srv = useServer({}, { failureDelayMs: 400 });
  let h: string;

  beforeAll(async () => {
    await put(srv.get(), 'd/f.txt', 'f');
    const owner = await actor(srv.get(), { scope: '/d' });
    h = (await share(srv.get(), owner, '/f.txt', { password: 'the right one' })).hash;
    await mkdir(path.join(srv.root, 'd', 'x'), { recursive: true });
    await writeFile(path.join(srv.root, 'd', 'x', 'y'), 'y');
  });

  it('waits about the configured delay before a 401, not before a 200', async () => {
    let t = Date.now();
    expect((await srv.fetch(`/api/public/share/${h}`, { headers: { 'X-SHARE-PASSWORD': 'wrong' } })).status).toBe(401);
    expect(Date.now() - t).toBeGreaterThanOrEqual(380);
    t = Date.now();
    expect((await srv.fetch(`/api/public/share/${h}`, { headers: { 'X-SHARE-PASSWORD': encodeURIComponent('the right one') } })).status).toBe(200);
    expect(Date.now() - t).toBeLessThan(380);
  });
});

describe('under a base URL', () => {
  const srv = useServer({ baseURL: '/coffer' });

  it('serves the share JSON, downloads and the share page below the prefix', async () => {
    await put(srv.get(), 'b/dir/f.txt', 'under a prefix');
    const owner = await actor(srv.get(), { scope: '/b' });
    const h = (await share(srv.get(), owner, '/dir/')).hash;
    expect(srv.url).toMatch(/\/coffer$/);
    const body = await srv.fetch(`/api/public/share/${h}`).then(json);
    expect(body.items.map((i) => i.path)).toEqual(['/f.txt']);
    expect(await (await srv.fetch(`/api/public/dl/${h}/f.txt`)).text()).toBe('under a prefix');
    const page = await srv.fetch(`/share/${h}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
  });
});
