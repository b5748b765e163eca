/**
 * `coffer import filebrowser` (docs/migrating-from-filebrowser.md) on File Browser's real database
 * (../shared/fixtures/filebrowser-db, checked against its manifest.json), then a real server on the
 * imported database: old passwords sign in (and their bcrypt hash becomes argon2id), old share
 * links open at the same address. Damaged or foreign files are refused with nothing written.
 */
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeBolt, type BoltTree } from './bolt-writer.js';
import { ensureBuilt, login, run, serve, workspace, type ServeProcess, type Workspace } from './cli-process.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURE = path.resolve(repo, '../shared/fixtures/filebrowser-db');

interface ManifestUser {
  id: number;
  username: string;
  password_plaintext: string;
  password_hash: string;
  record: Record<string, unknown> & { scope: string; perm: Record<string, boolean>; rules: unknown[] };
}
interface ManifestShare {
  hash: string;
  path: string;
  username: string;
  expire: number;
  expired: boolean;
  password_plaintext?: string;
  password_hash?: string;
  token?: string;
}
interface Manifest {
  config: { settings: Record<string, unknown> & { defaults: Record<string, unknown> }; server: Record<string, unknown> };
  users: ManifestUser[];
  shares: ManifestShare[];
}

let manifest: Manifest;
let ws: Workspace;
let fbFile: string;
let server: ServeProcess | undefined;
const configFile = () => path.join(ws.dir, 'from-fb.json');

/** Files the fixture's shares point at, inside each owner's scope. */
const FILES: Record<string, string> = {
  'alice/reports/q1.pdf': 'quarter one',
  'alice/photos/cat.jpg': 'a cat',
  'alice/old/notes.txt': 'old notes',
  'bob/music/song.mp3': 'la la la',
};

function importArgs(...extra: string[]): string[] {
  return ['import', 'filebrowser', fbFile, '-d', ws.database, '--root', ws.root, '--server-config', configFile(), ...extra];
}

async function exportedUsers(): Promise<{ username: string; password: string }[]> {
  const out = path.join(ws.dir, `users-${Date.now()}.json`);
  const r = await run(ws, ['users', 'export', out, '-d', ws.database]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(await readFile(out, 'utf8')) as { username: string; password: string }[];
}

async function signIn(username: string, password: string): Promise<string> {
  const res = await login(server!.origin, username, password);
  expect(res.status, `${username}: ${await res.clone().text()}`).toBe(200);
  return res.text();
}

beforeAll(async () => {
  ensureBuilt();
  manifest = JSON.parse(await readFile(path.join(FIXTURE, 'manifest.json'), 'utf8')) as Manifest;
  ws = await workspace();
  fbFile = path.join(ws.dir, 'filebrowser.db');
  await copyFile(path.join(FIXTURE, 'filebrowser.db'), fbFile);
  for (const [rel, text] of Object.entries(FILES)) {
    await mkdir(path.dirname(path.join(ws.root, rel)), { recursive: true });
    await writeFile(path.join(ws.root, rel), text);
  }
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await ws?.dispose();
});

function fbTree(users: Record<number, object>, links: Record<string, object>, settings: object = manifest.config.settings): BoltTree {
  const meta = (): BoltTree => new Map([['codec', 'json']]);
  const key = (id: number) => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64BE(BigInt(id));
    return b;
  };
  return new Map<string | Buffer, Buffer | string | BoltTree>([
    ['config', new Map<string | Buffer, string | BoltTree>([['settings', JSON.stringify(settings)], ['server', JSON.stringify(manifest.config.server)], ['auther', '{"recaptcha":null}'], ['version', '2'], ['__storm_metadata', meta()]])],
    ['User', new Map<string | Buffer, string | BoltTree>([...Object.entries(users).map(([id, u]): [Buffer, string] => [key(Number(id)), JSON.stringify(u)]), ['__storm_metadata', meta()]])],
    ['Link', new Map<string | Buffer, string | BoltTree>([...Object.entries(links).map(([h, l]): [string, string] => [h, JSON.stringify(l)]), ['__storm_metadata', meta()]])],
  ]);
}

describe('coffer import filebrowser', { timeout: 120_000 }, () => {
  it('refuses a truncated file, a random file and a BoltDB without File Browser’s buckets, writing nothing', async () => {
    const whole = await readFile(fbFile);
    const cases: [string, Buffer, RegExp][] = [
      ['truncated.db', whole.subarray(0, 40_000), /truncated/],
      ['random.db', Buffer.from(Array.from({ length: 65536 }, (_, i) => (i * 7919) % 251)), /not a BoltDB database/],
      ['other.db', writeBolt(new Map([['widgets', new Map([['a', '1']])]])), /not a File Browser database/],
      ['empty.db', Buffer.alloc(0), /too short/],
    ];
    for (const [name, data, why] of cases) {
      const file = path.join(ws.dir, name);
      await writeFile(file, data);
      const r = await run(ws, ['import', 'filebrowser', file, '-d', ws.database, '--root', ws.root, '--server-config', configFile()]);
      expect(r.code, name).toBe(1);
      expect(r.stderr, name).toMatch(why);
      expect(r.stderr, name).toMatch(/nothing imported/);
    }
    const missing = await run(ws, ['users', 'ls', '-d', ws.database]);
    expect(missing.code).toBe(1);
    await expect(readFile(configFile())).rejects.toThrow();
  });

  it('--dry-run lists every user and share and what cannot be carried over, and writes nothing', async () => {
    const r = await run(ws, importArgs('--dry-run'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Dry run \(nothing written\)/);
    for (const u of manifest.users) expect(r.stdout).toContain(`would create ${u.username}`);
    for (const s of manifest.shares) {
      if (s.expired) expect(r.stdout).toMatch(new RegExp(`share "${s.hash}": expired on`));
      else expect(r.stdout).toContain(`would create ${s.hash}: ${s.username} ${s.path}`);
    }
    expect(r.stdout).toMatch(/not carried over[\s\S]*signing key/);
    for (const u of manifest.users) expect(r.stdout).not.toContain(u.password_hash); // never print hashes
    expect((await run(ws, ['users', 'ls', '-d', ws.database])).code).toBe(1);
    await expect(readFile(configFile())).rejects.toThrow();
  });

  it('imports users with their bcrypt hashes, settings and shares; writes the server settings to the config file', async () => {
    const r = await run(ws, importArgs());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`start Coffer with: coffer -c ${configFile()}`);
    const cfg = JSON.parse(await readFile(configFile(), 'utf8')) as Record<string, unknown>;
    const srv = manifest.config.server;
    expect(cfg).toMatchObject({
      root: ws.root,
      address: srv.address,
      port: Number(srv.port),
      log: srv.log,
      'token-expiration-time': srv.tokenExpirationTime,
      'disable-thumbnails': !srv.enableThumbnails,
      'disable-preview-resize': !srv.resizePreview,
      'disable-exec': !srv.enableExec,
      'disable-type-detection-by-header': !srv.typeDetectionByHeader,
      'disable-image-resolution-calc': !srv.imageResolutionCalculation,
    });
    const exported = await exportedUsers();
    expect(exported.map((u) => u.username).sort()).toEqual(manifest.users.map((u) => u.username).sort());
    for (const u of manifest.users) expect(exported.find((e) => e.username === u.username)!.password).toBe(u.password_hash);
  });

  it('serves the imported users, settings and shares over HTTP', async () => {
    // Flags win over the config file: any free port, and no command execution (no sandbox needed here).
    server = await serve(ws, ['-c', configFile(), '--port', '0', '--disable-exec']);
    const admin = manifest.users.find((u) => u.record.perm.admin)!;
    const token = await signIn(admin.username, admin.password_plaintext);
    const auth = { 'X-Auth': token };

    const users = (await (await fetch(`${server.origin}/api/users`, { headers: auth })).json()) as Record<string, unknown>[];
    for (const m of manifest.users) {
      const u = users.find((x) => x.username === m.username)!;
      const rec = m.record;
      expect(u, m.username).toMatchObject({
        scope: rec.scope === '.' ? '/' : rec.scope,
        locale: rec.locale,
        lockPassword: rec.lockPassword,
        viewMode: rec.viewMode,
        singleClick: rec.singleClick,
        redirectAfterCopyMove: rec.redirectAfterCopyMove,
        perm: rec.perm,
        commands: rec.commands,
        sorting: rec.sorting,
        rules: rec.rules,
        hideDotfiles: rec.hideDotfiles,
        dateFormat: rec.dateFormat,
        aceEditorTheme: rec.aceEditorTheme,
      });
    }

    const settings = (await (await fetch(`${server.origin}/api/settings`, { headers: auth })).json()) as Record<string, unknown>;
    const s = manifest.config.settings;
    expect(settings).toMatchObject({
      signup: s.signup,
      hideLoginButton: s.hideLoginButton,
      createUserDir: s.createUserDir,
      userHomeBasePath: s.userHomeBasePath,
      minimumPasswordLength: s.minimumPasswordLength,
      authMethod: s.authMethod,
      defaults: s.defaults,
      branding: s.branding,
      tus: s.tus,
      shell: s.shell,
      rules: s.rules,
      commands: s.commands,
    });

    const shares = (await (await fetch(`${server.origin}/api/shares`, { headers: auth })).json()) as { hash: string }[];
    const live = manifest.shares.filter((x) => !x.expired);
    expect(shares.map((x) => x.hash).sort()).toEqual(live.map((x) => x.hash).sort());
    for (const m of live) {
      const owner = users.find((u) => u.username === m.username)!;
      expect(shares.find((x) => x.hash === m.hash)).toMatchObject({ path: m.path, userID: owner.id, expire: m.expire, hasPassword: Boolean(m.password_hash) });
    }
  });

  it('signs every user in with the old password and replaces the bcrypt hash by argon2id', async () => {
    for (const u of manifest.users) {
      expect((await login(server!.origin, u.username, `${u.password_plaintext}x`)).status).toBe(403);
      await signIn(u.username, u.password_plaintext);
    }
    for (const e of await exportedUsers()) expect(e.password, e.username).toMatch(/^\$argon2id\$/);
    for (const u of manifest.users) await signIn(u.username, u.password_plaintext);
  });

  it('opens every share by its old hash: with and without its password, by its old token; the expired one is gone', async () => {
    const origin = server!.origin;
    for (const m of manifest.shares) {
      const info = await fetch(`${origin}/api/public/share/${m.hash}`);
      if (m.expired) {
        expect(info.status, m.hash).toBe(404);
        expect((await fetch(`${origin}/api/public/dl/${m.hash}`)).status).toBe(404);
        continue;
      }
      if (!m.password_plaintext) {
        expect(info.status, m.hash).toBe(200);
        const dl = await fetch(`${origin}/api/public/dl/${m.hash}`);
        expect(dl.status, m.hash).toBe(200);
        expect(await dl.text()).toBe(FILES[`${m.username}${m.path}`]);
        expect((await fetch(`${origin}/share/${m.hash}`)).status).toBe(200);
        continue;
      }
      expect(info.status, m.hash).toBe(401);
      expect((await fetch(`${origin}/api/public/share/${m.hash}`, { headers: { 'X-SHARE-PASSWORD': 'wrong-password' } })).status).toBe(401);
      const ok = await fetch(`${origin}/api/public/share/${m.hash}`, { headers: { 'X-SHARE-PASSWORD': encodeURIComponent(m.password_plaintext) } });
      expect(ok.status).toBe(200);
      const body = (await ok.json()) as { items: { name: string }[]; token: string };
      expect(body.items.map((i) => i.name)).toEqual(['cat.jpg']);
      const withNew = await fetch(`${origin}/api/public/dl/${m.hash}/cat.jpg?token=${encodeURIComponent(body.token)}`);
      expect(withNew.status).toBe(200);
      // A link File Browser handed out with its token keeps working; a wrong token does not.
      const withOld = await fetch(`${origin}/api/public/dl/${m.hash}/cat.jpg?token=${encodeURIComponent(m.token!)}`);
      expect(withOld.status).toBe(200);
      expect(await withOld.text()).toBe('a cat');
      expect((await fetch(`${origin}/api/public/dl/${m.hash}/cat.jpg?token=${encodeURIComponent(m.token!.slice(1))}`)).status).toBe(401);
      expect((await fetch(`${origin}/api/public/dl/${m.hash}/cat.jpg`)).status).toBe(401);
    }
  });

  it('a second import updates instead of duplicating, and keeps the passwords upgraded since', async () => {
    const r = await run(ws, importArgs());
    expect(r.code, r.stderr).toBe(0);
    for (const u of manifest.users) expect(r.stdout).toMatch(new RegExp(`  update ${u.username} \\(password kept`));
    for (const s of manifest.shares.filter((x) => !x.expired)) expect(r.stdout).toContain(`  update ${s.hash}:`);
    const exported = await exportedUsers();
    expect(exported).toHaveLength(manifest.users.length);
    for (const e of exported) expect(e.password).toMatch(/^\$argon2id\$/);
    for (const u of manifest.users) await signIn(u.username, u.password_plaintext);
    const admin = manifest.users.find((u) => u.record.perm.admin)!;
    const token = await signIn(admin.username, admin.password_plaintext);
    const shares = (await (await fetch(`${server!.origin}/api/shares`, { headers: { 'X-Auth': token } })).json()) as unknown[];
    expect(shares).toHaveLength(manifest.shares.filter((x) => !x.expired).length);
  });

  it('leaves out hostile records: a scope or share path climbing out of the root, a costly or foreign hash', async () => {
    const good = manifest.users[0]!.record;
    const hash = manifest.users[0]!.password_hash;
    const file = path.join(ws.dir, 'hostile.db');
    await writeFile(
      file,
      writeBolt(
        fbTree(
          {
            1: { ...good, id: 1, username: 'boss' },
            2: { ...good, id: 2, username: 'escaper', scope: '../../etc', perm: { ...good.perm, admin: false } },
            3: { ...good, id: 3, username: 'slowhash', password: hash.replace('$10$', '$31$') },
            4: { ...good, id: 4, username: 'plain', password: 'hunter2-in-clear' },
            5: { ...good, id: 5, username: 'typed', perm: 'everything' },
          },
          {
            climb: { hash: 'climb', path: '../../etc/passwd', userID: 1, expire: 0 },
            nul: { hash: 'nul', path: '/a\u0000b', userID: 1, expire: 0 },
            orphan: { hash: 'orphan', path: '/x', userID: 99, expire: 0 },
            fine: { hash: 'fine', path: '/alice/reports/q1.pdf', userID: 1, expire: 0 },
          },
        ),
      ),
    );
    const r = await run(ws, ['import', 'filebrowser', file, '-d', ws.database, '--root', ws.root, '--server-config', path.join(ws.dir, 'hostile.json')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/user 2 "escaper": scope "..\/..\/etc": the scope climbs above the server root/);
    expect(r.stdout).toMatch(/user 3 "slowhash": the bcrypt cost 31 is outside/);
    expect(r.stdout).toMatch(/user 4 "plain": the password hash is not a bcrypt hash/);
    expect(r.stdout).toMatch(/user 5 "typed": invalid field \/perm/);
    expect(r.stdout).toMatch(/share "climb": path "..\/..\/etc\/passwd"/);
    expect(r.stdout).toMatch(/share "nul": path/);
    expect(r.stdout).toMatch(/share "orphan": its owner is not imported/);
    expect(r.stdout).toContain('create fine: boss /alice/reports/q1.pdf');
    const names = (await exportedUsers()).map((u) => u.username);
    expect(names).toContain('boss');
    for (const bad of ['escaper', 'slowhash', 'plain', 'typed']) expect(names).not.toContain(bad);
    const dl = await fetch(`${server!.origin}/api/public/dl/fine`);
    expect(await dl.text()).toBe('quarter one');
  });

  it('does not take over a Coffer user that no import made: its password and permissions stay unless --replace-users', async () => {
    const add = await run(ws, ['users', 'add', 'carol', 'carols-own-long-password', '--perm.admin', '-d', ws.database]);
    expect(add.code, add.stderr).toBe(0);
    const fb = manifest.users[0]!;
    const file = path.join(ws.dir, 'takeover.db');
    await writeFile(file, writeBolt(fbTree({ 1: { ...fb.record, id: 1, username: 'carol', password: fb.password_hash } }, {})));
    const args = ['import', 'filebrowser', file, '-d', ws.database, '--root', ws.root, '--server-config', path.join(ws.dir, 'takeover.json')];
    const r = await run(ws, args);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/user 1 "carol": a Coffer user of that name was not imported from File Browser; kept as it is \(--replace-users replaces it\)/);
    expect((await login(server!.origin, 'carol', fb.password_plaintext)).status).toBe(403);
    await signIn('carol', 'carols-own-long-password');
    const again = await run(ws, [...args, '--replace-users']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('  update carol');
    await signIn('carol', fb.password_plaintext);
  });
});
