/**
 * The built CLI as a subprocess (README "Administration", E7): first run, admin sub-commands on the database of
 * a running server, flag precedence, exit codes.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { spawn, spawnSync } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, freePort, login, pageConfig, run, serve, workspace, type ServeProcess, type Workspace } from './cli-process.js';

const GOOD_PASSWORD = 'a-long-enough-password';

let ws: Workspace;
let servers: ServeProcess[] = [];
beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  for (const s of servers) await s.stop();
  servers = [];
  await ws?.dispose();
});

async function start(args: string[] = [], env: Record<string, string> = {}): Promise<ServeProcess> {
  const s = await serve(ws, ['--root', ws.root, '--database', ws.database, '--address', '127.0.0.1', '--port', '0', ...args], env);
  servers.push(s);
  return s;
}

const GENERATED = /User '([^']+)' initialized with randomly generated password: (\S+?)"/;

describe('first run (E7)', { timeout: 90_000 }, () => {
  it('prints a random admin password once, and it works; a second run prints nothing', async () => {
    ws = await workspace();
    const first = await start();
    const line = first.lines.find((l) => GENERATED.test(l));
    expect(line, first.lines.join('\n')).toBeTruthy();
    const [, username, password] = GENERATED.exec(line!)!;
    expect(username).toBe('admin');
    expect(password!.length).toBeGreaterThanOrEqual(16);
    expect(first.lines.filter((l) => l.includes('randomly generated password'))).toHaveLength(1);
    expect((await login(first.origin, 'admin', password!)).status).toBe(200);
    // Never a fixed default.
    expect((await login(first.origin, 'admin', 'admin')).status).toBe(403);
    expect(await first.stop()).toBe(0);

    const second = await start();
    expect(second.lines.some((l) => l.includes('randomly generated password'))).toBe(false);
    expect((await login(second.origin, 'admin', password!)).status).toBe(200);
  });

  it('takes the first admin from COFFER_ADMIN_USERNAME and COFFER_ADMIN_PASSWORD', async () => {
    ws = await workspace();
    const s = await start([], { COFFER_ADMIN_USERNAME: 'boss', COFFER_ADMIN_PASSWORD: GOOD_PASSWORD });
    expect(s.lines.some((l) => l.includes('randomly generated password'))).toBe(false);
    expect((await login(s.origin, 'boss', GOOD_PASSWORD)).status).toBe(200);
    expect((await login(s.origin, 'admin', GOOD_PASSWORD)).status).toBe(403);
    const ls = await run(ws, ['users', 'ls', '-d', ws.database]);
    expect(ls.code).toBe(0);
    expect(ls.stdout).toMatch(/^1\s+boss\s+\/\s/m);
  });

  it('creates the SQLite database with mode 0600 (S54)', async () => {
    ws = await workspace();
    if (ws.database.startsWith('postgres')) return;
    await start([], { COFFER_ADMIN_PASSWORD: GOOD_PASSWORD });
    expect((await stat(ws.database)).mode & 0o777).toBe(0o600);
  });
});

describe('admin commands on the database of a running server', { timeout: 90_000 }, () => {
  it('users add → login over HTTP; users update --password ends the old sessions', async () => {
    ws = await workspace();
    const s = await start([], { COFFER_ADMIN_PASSWORD: GOOD_PASSWORD });
    const add = await run(ws, ['users', 'add', 'bob', 'bobs-secret-password', '-d', ws.database, '--perm.create=false', '--locale', 'fr']);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toMatch(/bob/);
    const res = await login(s.origin, 'bob', 'bobs-secret-password');
    expect(res.status).toBe(200);
    const token = await res.text();
    const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { user: { perm: { create: boolean }; locale: string } };
    expect(payload.user.perm.create).toBe(false);
    expect(payload.user.locale).toBe('fr');
    expect((await fetch(`${s.origin}/api/renew`, { method: 'POST', headers: { 'X-Auth': token } })).status).toBe(200);

    const upd = await run(ws, ['users', 'update', 'bob', '-d', ws.database, '--password', 'another-long-password']);
    expect(upd.code, upd.stderr).toBe(0);
    expect((await fetch(`${s.origin}/api/renew`, { method: 'POST', headers: { 'X-Auth': token } })).status).toBe(401);
    expect((await login(s.origin, 'bob', 'bobs-secret-password')).status).toBe(403);
    expect((await login(s.origin, 'bob', 'another-long-password')).status).toBe(200);

    const rm = await run(ws, ['users', 'rm', 'bob', '-d', ws.database]);
    expect(rm.code, rm.stderr).toBe(0);
    expect((await login(s.origin, 'bob', 'another-long-password')).status).toBe(403);
  });

  it('config set --signup shows up in config cat and in the page at once', async () => {
    ws = await workspace();
    const s = await start([], { COFFER_ADMIN_PASSWORD: GOOD_PASSWORD });
    expect(pageConfig(await (await fetch(`${s.origin}/`)).text()).Signup).toBe(false);
    const set = await run(ws, ['config', 'set', '-d', ws.database, '--signup', '--branding.name', 'Coffer Box']);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ settings: { signup: true, branding: { name: 'Coffer Box' } } });
    const cat = await run(ws, ['config', 'cat', '-d', ws.database]);
    expect(JSON.parse(cat.stdout)).toMatchObject({ settings: { signup: true, authMethod: 'json' }, auther: { method: 'json' } });
    const page = await (await fetch(`${s.origin}/files/`)).text();
    expect(pageConfig(page)).toMatchObject({ Signup: true, Name: 'Coffer Box' });
    expect(page).toContain('<title>Coffer Box</title>');
  });
});

describe('admin commands', { timeout: 90_000 }, () => {
  async function init(): Promise<void> {
    ws = await workspace();
    const s = await start([], { COFFER_ADMIN_PASSWORD: GOOD_PASSWORD });
    await s.stop();
  }
  const d = () => ['-d', ws.database];

  it('refuses a database that does not exist, and a missing value, with the right exit codes', async () => {
    ws = await workspace();
    if (!ws.database.startsWith('postgres')) {
      const r = await run(ws, ['users', 'ls', '-d', path.join(ws.dir, 'none.db')]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/no database/);
    }
    const bad = await run(ws, ['users', 'add', '-d', ws.database]);
    expect(bad.code).toBe(2);
  });

  it('users: policy, duplicates, the only admin, find, export and import', async () => {
    await init();
    const short = await run(ws, ['users', 'add', 'carol', 'short', ...d()]);
    expect(short.code).toBe(1);
    expect(short.stderr).toContain('password is too short, minimum length is 12');
    expect((await run(ws, ['users', 'add', 'carol', GOOD_PASSWORD, '--view-mode', 'grid', ...d()])).code).toBe(2);
    expect((await run(ws, ['users', 'add', 'carol', GOOD_PASSWORD, '--perm.share', '--perm.download=false', ...d()])).code).toBe(1);
    expect((await run(ws, ['users', 'add', 'carol', GOOD_PASSWORD, '--scope', '/../etc', ...d()])).code).toBe(1);
    const ok = await run(ws, ['users', 'add', 'carol', GOOD_PASSWORD, '--scope', '/carol', '--lock-password', ...d()]);
    expect(ok.code, ok.stderr).toBe(0);
    expect((await stat(path.join(ws.root, 'carol'))).isDirectory()).toBe(true);
    const dup = await run(ws, ['users', 'add', 'CAROL', GOOD_PASSWORD, ...d()]);
    expect(dup.code).toBe(1);
    expect(dup.stderr).toMatch(/taken/);
    const find = await run(ws, ['users', 'find', 'carol', ...d()]);
    expect(find.stdout).toMatch(/^2\s+carol\s+\/carol\s+en\s+mosaic\s+no\s+no/m);

    // The only admin can be neither removed nor demoted.
    const rmAdmin = await run(ws, ['users', 'rm', '1', ...d()]);
    expect(rmAdmin.code).toBe(1);
    expect(rmAdmin.stderr).toMatch(/only admin/);
    expect((await run(ws, ['users', 'update', 'admin', '--perm.admin=false', ...d()])).code).toBe(1);
    expect((await run(ws, ['users', 'update', 'carol', '--perm.admin', ...d()])).code).toBe(0);
    expect((await run(ws, ['users', 'update', 'admin', '--perm.admin=false', ...d()])).code).toBe(0);
    expect((await run(ws, ['users', 'update', 'carol', '-u', 'carola', ...d()])).code).toBe(0);

    const file = path.join(ws.dir, 'users.json');
    const exp = await run(ws, ['users', 'export', file, ...d()]);
    expect(exp.code, exp.stderr).toBe(0);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const exported = JSON.parse(await readFile(file, 'utf8')) as { username: string; password: string }[];
    expect(exported.map((u) => u.username)).toEqual(['admin', 'carola']);
    expect(exported[0]!.password).toMatch(/^\$argon2id\$/);

    expect((await run(ws, ['users', 'import', file, ...d()])).code).toBe(1); // clashes without --overwrite
    const clear = path.join(ws.dir, 'clear.json');
    await writeFile(clear, JSON.stringify([{ username: 'dave', password: 'plain-text-password', perm: { admin: true } }]));
    const refused = await run(ws, ['users', 'import', clear, ...d()]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/hash/);
    const replace = await run(ws, ['users', 'import', file, '--replace', ...d()]);
    expect(replace.code, replace.stderr).toBe(0);
    const ls = await run(ws, ['users', 'ls', ...d()]);
    expect(ls.stdout).toMatch(/admin/);
    expect(ls.stdout).toMatch(/carola/);
  });

  it('rules: add, list, remove; invalid patterns refused', async () => {
    await init();
    const bad = await run(ws, ['rules', 'add', '--regex', '(?=x)', ...d()]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/invalid rule/);
    expect((await run(ws, ['rules', 'add', '/private', ...d()])).code).toBe(0);
    expect((await run(ws, ['rules', 'add', '-a', '-r', '\\.txt$', ...d()])).code).toBe(0);
    const ls = await run(ws, ['rules', 'ls', ...d()]);
    expect(ls.stdout).toMatch(/^0\s+deny\s+path\s+\/private$/m);
    expect(ls.stdout).toMatch(/^1\s+allow\s+regex\s+\\\.txt\$$/m);
    expect((await run(ws, ['rules', 'add', '/secret', '-u', 'admin', ...d()])).code).toBe(0);
    expect((await run(ws, ['rules', 'ls', '-i', '1', ...d()])).stdout).toMatch(/\/secret/);
    expect((await run(ws, ['rules', 'rm', '0', '1', ...d()])).code).toBe(0);
    expect((await run(ws, ['rules', 'ls', ...d()])).stdout).toContain('(no rules)');
    expect((await run(ws, ['rules', 'rm', '5', ...d()])).code).toBe(1);
    const cat = JSON.parse((await run(ws, ['config', 'cat', ...d()])).stdout) as { settings: { rules: unknown[] } };
    expect(cat.settings.rules).toEqual([]);
  });

  it('cmds: add, list, remove hook commands', async () => {
    await init();
    expect((await run(ws, ['cmds', 'add', 'after_upload', 'echo', 'uploaded', ...d()])).code).toBe(0);
    expect((await run(ws, ['cmds', 'add', 'before_nothing', 'x', ...d()])).code).toBe(2);
    const ls = await run(ws, ['cmds', 'ls', '-e', 'upload', ...d()]);
    expect(ls.stdout).toBe('before_upload:\nafter_upload:\n  0  echo uploaded\n');
    expect((await run(ws, ['cmds', 'rm', 'after_upload', '0', ...d()])).code).toBe(0);
    expect((await run(ws, ['cmds', 'ls', '-e', 'upload', ...d()])).stdout).toBe('before_upload:\nafter_upload:\n');
  });

  it('config set: auth methods need their settings, every problem is listed, export/import round-trips', async () => {
    await init();
    const proxy = await run(ws, ['config', 'set', '--auth.method', 'proxy', ...d()]);
    expect(proxy.code).toBe(2);
    expect(proxy.stderr).toContain('--auth.method proxy needs --auth.header');
    expect((await run(ws, ['config', 'set', '--auth.method', 'hook', ...d()])).stderr).toContain('--auth.method hook needs --auth.command');
    const many = await run(ws, ['config', 'set', '--minimum-password-length', 'x', '--tus.retry-count', '-1', '--branding.theme', 'pink', '--port', 'abc', ...d()]);
    expect(many.code).toBe(2);
    for (const flag of ['--minimum-password-length', '--tus.retry-count', '--branding.theme', '--port']) expect(many.stderr).toContain(flag);
    expect((await run(ws, ['config', 'set', '--file-mode', '0666', ...d()])).code).toBe(2);

    const set = await run(ws, ['config', 'set', '--auth.method', 'proxy', '--auth.header', 'X-Remote-User', '--recaptcha.key', 'k', '--recaptcha.secret', 's3cret', '--tus.chunk-size', '1048576', '--scope', '/home', '--perm.delete=false', '--token-expiration-time', '30m', ...d()]);
    expect(set.code, set.stderr).toBe(0);
    const shown = JSON.parse(set.stdout) as { settings: Record<string, unknown>; auther: { recaptcha: { secret: string; host: string } }; server: Record<string, unknown> };
    expect(shown).toMatchObject({
      settings: { authMethod: 'proxy', tus: { chunkSize: 1048576 }, defaults: { scope: '/home', perm: { delete: false } } },
      auther: { method: 'proxy', header: 'X-Remote-User', recaptcha: { host: 'https://www.google.com', key: 'k' } },
      server: { tokenExpirationTime: 1800 },
    });
    expect(shown.auther.recaptcha.secret).not.toBe('s3cret');

    const file = path.join(ws.dir, 'config.yaml');
    expect((await run(ws, ['config', 'export', file, ...d()])).code).toBe(0);
    expect(await readFile(file, 'utf8')).toContain('s3cret');
    expect((await run(ws, ['config', 'set', '--auth.method', 'json', '--signup', ...d()])).code).toBe(0);
    const imp = await run(ws, ['config', 'import', file, ...d()]);
    expect(imp.code, imp.stderr).toBe(0);
    expect(JSON.parse(imp.stdout)).toMatchObject({ settings: { signup: false, authMethod: 'proxy' }, auther: { header: 'X-Remote-User' } });
  });

  it('config set: the oidc method needs its provider, a callback of ours, and masks the client secret', async () => {
    await init();
    const bare = await run(ws, ['config', 'set', '--auth.method', 'oidc', ...d()]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('--auth.method oidc needs --oidc.issuer');
    const oidc = ['--auth.method', 'oidc', '--oidc.issuer', 'https://id.example.com', '--oidc.client-id', 'coffer', '--oidc.client-secret', 'oidc-s3cret'];
    const elsewhere = await run(ws, ['config', 'set', ...oidc, '--oidc.redirect-url', 'https://files.example.com/elsewhere', '--oidc.scopes', 'profile', ...d()]);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toContain('--oidc.redirect-url must be');
    expect(elsewhere.stderr).toContain('--oidc.scopes must include openid');
    const set = await run(ws, ['config', 'set', ...oidc, '--oidc.redirect-url', 'https://files.example.com/api/oidc/callback', '--oidc.create-users=false', '--oidc.name', 'Keycloak', ...d()]);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).not.toContain('oidc-s3cret');
    expect(JSON.parse(set.stdout)).toMatchObject({
      settings: { authMethod: 'oidc' },
      auther: { oidc: { issuer: 'https://id.example.com', createUsers: false, name: 'Keycloak', usernameClaim: 'preferred_username', passwordLogin: true } },
    });
    // The stored secret stays with its issuer, as PUT /api/settings/oidc keeps it: another issuer
    // without --oidc.client-secret drops it, so the old provider's secret is never sent to the new one.
    const stored = async () => {
      const file = path.join(ws.dir, 'oidc.json');
      expect((await run(ws, ['config', 'export', file, ...d()])).code).toBe(0);
      return (JSON.parse(await readFile(file, 'utf8')) as { auther: { oidc: { issuer: string; clientSecret: string } } }).auther.oidc;
    };
    expect((await run(ws, ['config', 'set', '--oidc.name', 'Keycloak 2', ...d()])).code).toBe(0);
    expect(await stored()).toMatchObject({ issuer: 'https://id.example.com', clientSecret: 'oidc-s3cret' });
    const moved = await run(ws, ['config', 'set', '--oidc.issuer', 'https://other.example.com', ...d()]);
    expect(moved.code).toBe(2);
    expect(moved.stderr).toContain('--auth.method oidc needs --oidc.client-secret');
    expect(await stored()).toMatchObject({ issuer: 'https://id.example.com', clientSecret: 'oidc-s3cret' });
    const off = await run(ws, ['config', 'set', '--auth.method', 'json', '--oidc.issuer', 'https://other.example.com', ...d()]);
    expect(off.code, off.stderr).toBe(0);
    expect(await stored()).toMatchObject({ issuer: 'https://other.example.com', clientSecret: '' });
    const both = await run(ws, ['config', 'set', '--auth.method', 'oidc', '--oidc.issuer', 'https://id.example.com', '--oidc.client-secret', 'another', ...d()]);
    expect(both.code, both.stderr).toBe(0);
    expect(await stored()).toMatchObject({ issuer: 'https://id.example.com', clientSecret: 'another' });
  });

  it('config init creates a database, refuses an existing one, and the first start adds the admin', async () => {
    ws = await workspace();
    const init = await run(ws, ['config', 'init', '-d', ws.database, '--signup', '--branding.name', 'Fresh', '--root', ws.root]);
    expect(init.code, init.stderr).toBe(0);
    expect(JSON.parse(init.stdout)).toMatchObject({ settings: { signup: true }, server: { root: ws.root } });
    expect((await run(ws, ['config', 'init', '-d', ws.database])).code).toBe(1);
    const s = await serve(ws, ['--database', ws.database, '--port', '0'], { COFFER_ADMIN_PASSWORD: GOOD_PASSWORD });
    servers.push(s);
    expect((await login(s.origin, 'admin', GOOD_PASSWORD)).status).toBe(200);
    expect(pageConfig(await (await fetch(`${s.origin}/`)).text())).toMatchObject({ Name: 'Fresh', Signup: true });
  });

  it('hash prints an argon2id hash; version prints the version', async () => {
    ws = await workspace();
    const h = await run(ws, ['hash', 'some password']);
    expect(h.code).toBe(0);
    expect(h.stdout).toMatch(/^\$argon2id\$v=19\$m=\d+,t=\d+,p=\d+\$\S+\n$/);
    const v = await run(ws, ['version']);
    expect(v.code).toBe(0);
    expect(v.stdout).toMatch(/^Coffer v\d+\.\d+\.\d+/);
    const help = await run(ws, ['hash', '--help']);
    expect(help.stdout).toContain('argon2id');
  });
});

describe('serve flags', { timeout: 90_000 }, () => {
  it('takes --port from flag > environment > config file > stored settings', async () => {
    ws = await workspace();
    const [stored, file, env, flag] = [await freePort(), await freePort(), await freePort(), await freePort()];
    const base = ['--root', ws.root, '--database', ws.database, '--address', '127.0.0.1'];
    const admin = { COFFER_ADMIN_PASSWORD: GOOD_PASSWORD };
    const first = await serve(ws, [...base, '--port', '0'], admin);
    await first.stop();
    expect((await run(ws, ['config', 'set', '--port', String(stored), '-d', ws.database])).code).toBe(0);
    const cfg = path.join(ws.dir, 'coffer.yaml');
    await writeFile(cfg, `port: ${file}\n`);

    const check = async (args: string[], envVars: Record<string, string>, expected: number) => {
      const s = await serve(ws, [...base, ...args], envVars);
      servers.push(s);
      expect(s.port).toBe(expected);
      expect(await s.stop()).toBe(0);
    };
    await check([], {}, stored);
    await check(['-c', cfg], {}, file);
    await check(['-c', cfg], { COFFER_PORT: String(env) }, env);
    await check(['-c', cfg, '--port', String(flag)], { COFFER_PORT: String(env) }, flag);
  });

  it.skipIf(spawnSync('openssl', ['version']).status !== 0)('serves HTTPS with --cert and --key, with HSTS on the page', async () => {
    ws = await workspace();
    const cert = path.join(ws.dir, 'cert.pem');
    const key = path.join(ws.dir, 'key.pem');
    const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1']);
    expect(made.status, made.stderr.toString()).toBe(0);
    const s = await start(['--cert', cert, '--key', key], { COFFER_ADMIN_PASSWORD: GOOD_PASSWORD });
    expect(s.origin).toMatch(/^https:/);
    const { res, protocol } = await new Promise<{ res: http.IncomingMessage; protocol: string | null }>((resolve, reject) => {
      https
        .get(`${s.origin}/files/`, { rejectUnauthorized: false }, (r) => {
          const protocol = (r.socket as TLSSocket).getProtocol();
          r.resume();
          r.on('end', () => resolve({ res: r, protocol }));
        })
        .on('error', reject);
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['strict-transport-security']).toBe('max-age=31536000');
    expect(protocol).toMatch(/^TLSv1\.[23]$/);
    expect(await s.stop()).toBe(0);
  });

  it('listens on a Unix socket with --socket-perm', async () => {
    ws = await workspace();
    const socket = path.join(ws.dir, 'coffer.sock');
    const proc = spawn(process.execPath, [BIN, 'serve', '--root', ws.root, '--database', ws.database, '--socket', socket, '--socket-perm', '0660'], {
      cwd: ws.dir,
      env: ws.env({ COFFER_ADMIN_PASSWORD: GOOD_PASSWORD }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => proc.on('exit', resolve));
    try {
      let out = '';
      await new Promise<void>((resolve, reject) => {
        proc.stdout.on('data', (c: Buffer) => {
          out += c.toString();
          if (out.includes('Server listening at')) resolve();
        });
        void exited.then(() => reject(new Error(`exited early: ${out}`)));
      });
      // The listening line is logged just before the mode is set: wait for it (bounded).
      let mode = 0;
      for (let i = 0; i < 100 && mode !== 0o660; i++) {
        mode = (await stat(socket)).mode & 0o777;
        if (mode !== 0o660) await new Promise((r) => setTimeout(r, 50));
      }
      expect(mode).toBe(0o660);
      const body = await new Promise<string>((resolve, reject) => {
        http.get({ socketPath: socket, path: '/health' }, (res) => {
          let b = '';
          res.on('data', (c: Buffer) => (b += c.toString()));
          res.on('end', () => resolve(b));
        }).on('error', reject);
      });
      expect(body).toBe('{"status":"OK"}');
    } finally {
      proc.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });

  it('exits with code 2 and lists every problem of bad flags', async () => {
    ws = await workspace();
    const r = await run(ws, ['serve', '--database', ws.database, '--port', 'eighty', '--img-processors', '0', '--token-expiration-time', 'soon'], { COFFER_DISABLE_EXEC: 'maybe' });
    expect(r.code).toBe(2);
    for (const what of ['port', 'img-processors', 'token-expiration-time', 'COFFER_DISABLE_EXEC']) expect(r.stderr).toContain(what);
    const unknown = await run(ws, ['serve', '--no-such-flag']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--no-such-flag');
  });

  it('documents every flag in --help', async () => {
    ws = await workspace();
    const help = await run(ws, ['serve', '--help']);
    expect(help.code).toBe(0);
    for (const flag of ['--root', '--database', '--address', '--port', '--baseurl', '--log', '--cert', '--key', '--socket', '--token-expiration-time', '--disable-exec', '--disable-thumbnails', '--disable-preview-resize', '--trusted-proxies', '--noauth', '--username', '--password', '--shutdown-timeout']) {
      expect(help.stdout).toContain(flag);
    }
    expect(help.stdout).toContain('COFFER_TOKEN_EXPIRATION_TIME');
    const top = await run(ws, ['--help']);
    for (const cmd of ['serve', 'users', 'config', 'rules', 'cmds', 'hash', 'version']) expect(top.stdout).toContain(cmd);
  });
});

/** Opens a connection and sends the headers and half of the body of a login; the rest on demand. */
function halfLogin(port: number, username: string, password: string) {
  const body = JSON.stringify({ username, password, recaptcha: '' });
  const half = Math.floor(body.length / 2);
  let received = '';
  const sock = net.connect(port, '127.0.0.1');
  sock.setEncoding('utf8').on('data', (c: string) => (received += c));
  const closed = new Promise<void>((resolve) => sock.on('close', () => resolve()));
  sock.on('error', () => undefined);
  sock.write(`POST /api/login HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, half)}`);
  return {
    finish: () => sock.write(body.slice(half)),
    closed,
    response: () => received,
  };
}

/**
 * Returns once the server has read what was sent to it before: a later request on a new
 * connection has been answered. (Only "request completed" is logged, so the log cannot tell
 * that a request is in flight.)
 */
async function serverHasRead(port: number): Promise<void> {
  await new Promise((r) => setTimeout(r, 50));
  const res = await fetch(`http://127.0.0.1:${port}/health`, { headers: { connection: 'close' } });
  await res.arrayBuffer();
}

/** Whether a new connection is refused (the listener is closed). */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.on('connect', () => (s.destroy(), resolve(false)));
    s.on('error', () => resolve(true));
  });
}

describe('SIGTERM / SIGINT', { timeout: 90_000 }, () => {
  it('stops accepting, lets the in-flight request finish, then exits 0', async () => {
    ws = await workspace();
    const s = await start([], { COFFER_ADMIN_PASSWORD: GOOD_PASSWORD });
    const req = halfLogin(s.port, 'admin', GOOD_PASSWORD);
    await serverHasRead(s.port); // the server is reading this request's body
    s.proc.kill('SIGTERM');
    await s.waitFor(/shutting down/);
    // New connections are refused while the request is still in flight.
    let closedListener = false;
    for (let i = 0; i < 100 && !closedListener; i++) {
      closedListener = await refused(s.port);
      if (!closedListener) await new Promise((r) => setTimeout(r, 50));
    }
    expect(closedListener).toBe(true);
    expect(s.proc.exitCode).toBeNull();
    req.finish();
    await req.closed;
    expect(req.response()).toMatch(/^HTTP\/1\.1 200 /);
    expect(req.response()).toMatch(/\r\n\r\neyJ/); // the token
    expect(await s.exited).toBe(0);
  });

  it('exits 1 when an in-flight request outlives --shutdown-timeout', async () => {
    ws = await workspace();
    const s = await start(['--shutdown-timeout', '1s'], { COFFER_ADMIN_PASSWORD: GOOD_PASSWORD });
    halfLogin(s.port, 'admin', GOOD_PASSWORD);
    await serverHasRead(s.port);
    s.proc.kill('SIGINT');
    await s.waitFor(/shutting down/);
    expect(await s.exited).toBe(1);
    expect(s.lines.some((l) => l.includes('did not finish in time'))).toBe(true);
  });

  it('exits 0 at once when idle keep-alive connections are open', async () => {
    ws = await workspace();
    const s = await start([], { COFFER_ADMIN_PASSWORD: GOOD_PASSWORD });
    const sock = net.connect(s.port, '127.0.0.1');
    await new Promise((r) => sock.on('connect', r));
    sock.on('error', () => undefined);
    const started = Date.now();
    expect(await s.stop()).toBe(0);
    expect(Date.now() - started).toBeLessThan(5000);
    sock.destroy();
  });
});
