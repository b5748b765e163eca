/**
 * Commands and hooks run confined (issue 17 item 1), tried as an attacker would: through the real
 * shell WebSocket and real hooks of the built server, started as an operator starts it with a
 * secret in its environment. Nothing outside the user's scope, nothing of Coffer's own files and
 * no secret may show up, whatever the allowed program (`sh` included) tries.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaults } from '../src/config/load.js';
import { createConfinement } from '../src/features/command/confine.js';
import { runGroup } from '../src/features/command/process.js';
import { eventually, marker, processesWith, runCommand, type Served } from './command-helpers.js';
import { ensureBuilt, login, run, serve, workspace, type ServeProcess, type Workspace } from './cli-process.js';
import { startServer, type TestServer } from './harness.js';

const SECRET = `admin-pw-${randomBytes(8).toString('hex')}`;
const OTHER_SECRET = `aws-${randomBytes(8).toString('hex')}`;
const OUTSIDE = `outside-content-${randomBytes(8).toString('hex')}`;
const PASSWORD = 'a-long-enough-password';

let ws: Workspace;
let srv: ServeProcess;
let served: Served;
let database = '';
let scope = ''; // real path of alice's scope
let outsideFile = '';
let writer = '';
let reader = '';

async function addUser(name: string, flags: string[]): Promise<string> {
  const r = await run(ws, ['users', 'add', name, PASSWORD, '-d', database, '--scope', '/alice', '--perm.execute', '--commands', 'cat,ls,env,sh,pwd,touch', ...flags]);
  expect(r.code, r.stderr).toBe(0);
  const res = await login(srv.origin, name, PASSWORD);
  expect(res.status).toBe(200);
  return res.text();
}

/** Every message of every line, joined: what a user could have learnt. */
async function outputOf(server: Served, token: string, lines: string[]): Promise<string> {
  const out: string[] = [];
  for (const line of lines) out.push(...(await runCommand(server, token, line)).messages);
  return out.join('\n');
}

function expectNothingSecret(text: string): void {
  for (const s of [SECRET, OTHER_SECRET, OUTSIDE, 'SQLite format 3', 'COFFER_']) expect(text).not.toContain(s);
}

beforeAll(async () => {
  ensureBuilt();
  ws = await workspace();
  database = path.join(ws.dir, 'coffer.db'); // a file, also when the suite runs on PostgreSQL
  await mkdir(path.join(ws.root, 'alice', 'docs'), { recursive: true });
  await mkdir(path.join(ws.root, 'outside'), { recursive: true });
  outsideFile = path.join(ws.root, 'outside', 'o.txt');
  await writeFile(outsideFile, OUTSIDE);
  scope = await realpath(path.join(ws.root, 'alice'));
  await writeFile(path.join(scope, 'mine.txt'), 'mine');
  await symlink('../outside/o.txt', path.join(scope, 'link-relative'));
  await symlink(outsideFile, path.join(scope, 'link-absolute'));
  await symlink(database, path.join(scope, 'link-database'));
  // A config file inside the served root: never served, never visible to a command.
  await writeFile(path.join(ws.root, 'outside', 'coffer.yaml'), `metrics-token: ${OTHER_SECRET}\n`);
  srv = await serve(ws, ['-c', path.join(ws.root, 'outside', 'coffer.yaml'), '--root', ws.root, '--database', database, '--address', '127.0.0.1', '--port', '0', '--disable-exec=false'], {
    COFFER_ADMIN_PASSWORD: SECRET,
    AWS_SECRET_ACCESS_KEY: OTHER_SECRET,
  });
  served = { url: srv.origin };
  writer = await addUser('writer', []);
  reader = await addUser('reader', ['--perm.create=false', '--perm.rename=false', '--perm.modify=false', '--perm.delete=false']);
}, 120_000);

afterAll(async () => {
  await srv?.stop();
  await ws?.dispose();
});

describe('the shell socket of a built server with execution on', { timeout: 60_000 }, () => {
  it('shows nothing outside the scope: ../, absolute paths, the database, links leading out', async () => {
    const text = await outputOf(served, writer, [
      'cat ../outside/o.txt',
      `cat ${outsideFile}`,
      `cat ${database}`,
      `cat ${database}-wal`,
      'cat link-relative',
      'cat link-absolute',
      'cat link-database',
      `sh -c 'cat ${path.dirname(scope)}/*/* ${ws.dir}/*'`,
      `cat /tmp/${path.relative(tmpdir(), outsideFile)}`,
    ]);
    expectNothingSecret(text);
    expect(text).toContain('No such file or directory');
    expect((await runCommand(served, writer, 'cat mine.txt')).messages).toEqual(['mine']);
  });

  it('shows only the scope of the served root and nothing of the folder around it', async () => {
    expect((await runCommand(served, writer, `ls -a ${path.dirname(scope)}`)).messages).toEqual(['.', '..', 'alice']);
    expect((await runCommand(served, writer, `ls -a ${ws.dir}`)).messages.sort()).toEqual(['.', '..', 'root']);
    const top = (await runCommand(served, writer, 'ls /')).messages;
    for (const name of ['usr', 'proc', 'dev', 'tmp', 'etc']) expect(top).toContain(name);
    for (const name of ['home', 'root', 'var', 'srv', 'run', 'sys', 'opt', 'mnt', 'boot', 'work']) expect(top).not.toContain(name);
    const etc = (await runCommand(served, writer, 'ls /etc')).messages;
    expect(etc).toContain('passwd');
    for (const name of ['shadow', 'gshadow', 'ssh', 'sudoers', 'ssl', 'hostname']) expect(etc).not.toContain(name);
  });

  it('shows neither the server\'s /proc nor any secret in an environment', async () => {
    const text = await outputOf(served, writer, [
      `cat /proc/${srv.proc.pid}/environ`,
      `cat /proc/${process.pid}/environ`,
      'cat /proc/1/environ',
      `sh -c 'cat /proc/*/environ /proc/*/cmdline'`,
      'env',
    ]);
    expectNothingSecret(text);
    const pids = (await runCommand(served, writer, 'ls /proc')).messages.filter((n) => /^\d+$/.test(n)).map(Number);
    expect(pids).not.toContain(srv.proc.pid);
    expect(Math.max(...pids)).toBeLessThan(20); // a PID namespace of its own: 1 (bwrap), then ls
    expect((await runCommand(served, writer, 'env')).messages.sort()).toEqual([
      'HOME=/tmp',
      'LANG=C.UTF-8',
      'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      `PWD=${scope}`, // set by bubblewrap with --chdir
    ]);
    // No descriptor of the server (its database, its sockets) is inherited.
    expect((await runCommand(served, writer, 'ls /proc/self/fd')).messages).toEqual(['0', '1', '2', '3']);
  });

  it('runs as an unprivileged user without capabilities or new privileges, and without network', async () => {
    const status = (await runCommand(served, writer, 'cat /proc/self/status')).messages;
    const field = (k: string) => status.find((l) => l.startsWith(`${k}:`))?.split(/\s+/).slice(1);
    expect(field('Uid')).toEqual(['65534', '65534', '65534', '65534']);
    for (const k of ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb']) expect(field(k), k).toEqual(['0000000000000000']);
    expect(field('NoNewPrivs')).toEqual(['1']);
    const nested = await runCommand(served, writer, `sh -c 'unshare --user --map-root-user id'`);
    expect(nested.code).toBe(1011);
    expect(nested.messages.join('\n')).not.toMatch(/uid=0/);
    const net = (await runCommand(served, writer, 'cat /proc/net/dev')).messages.slice(2).map((l) => l.trim().split(':')[0]);
    expect(net).toEqual(['lo']);
  });

  it('cannot give a file the set-user-ID or set-group-ID bit (as root it would be root\'s), while an ordinary chmod works', async () => {
    const m = marker();
    const copy = `suid-${m}`;
    const r = await runCommand(served, writer, `sh -c 'cp /bin/sh ${copy}; chmod u+s ${copy}; chmod g+s ${copy}; chmod 4755 ${copy}; chmod 0750 ${copy} && echo chmod-ok'`);
    expect(r.messages).toContain('chmod-ok');
    expect(r.messages.filter((l) => /Operation not permitted/.test(l))).toHaveLength(3);
    expect(statSync(path.join(scope, copy)).mode & 0o7777).toBe(0o750);
  });

  it.runIf(existsSync('/usr/bin/python3'))('cannot create a set-user-ID file with open() or mknod(), nor a device node', async () => {
    const m = marker();
    const py = (code: string) => `sh -c 'python3 -c "import os; ${code}"; echo done'`;
    const lines = await outputOf(served, writer, [
      py(`os.close(os.open(\\"open-${m}\\", os.O_CREAT | os.O_WRONLY, 0o4755))`),
      py(`os.mknod(\\"node-${m}\\", 0o104755)`),
      py(`os.mknod(\\"dev-${m}\\", 0o020666, os.makedev(1, 3))`),
    ]);
    expect(lines.match(/Operation not permitted/g)).toHaveLength(3);
    for (const name of [`open-${m}`, `node-${m}`, `dev-${m}`]) expect(existsSync(path.join(scope, name)), name).toBe(false);
  });

  it('cannot write the kernel\'s settings (as root, kernel.core_pattern would run its program as root)', async () => {
    const r = await runCommand(served, writer, `sh -c 'cat /proc/sys/fs/lease-break-time > /proc/sys/fs/lease-break-time'`);
    expect(r.code).toBe(1011);
    expect(r.messages.join('\n')).toMatch(/Read-only file system/);
  });

  it('runs in the folder on screen, at its real path, the scope writable only with a write permission', async () => {
    expect((await runCommand(served, writer, 'pwd', '/docs/')).messages).toEqual([path.join(scope, 'docs')]);
    const m = marker();
    const denied = await runCommand(served, reader, `touch by-reader-${m}`);
    expect(denied.code).toBe(1011);
    expect(denied.messages.join('\n')).toMatch(/Read-only file system/);
    expect(existsSync(path.join(scope, `by-reader-${m}`))).toBe(false);
    expect((await runCommand(served, writer, `touch by-writer-${m}`)).code).toBe(1000);
    expect(existsSync(path.join(scope, `by-writer-${m}`))).toBe(true);
  });

  it('ends everything a command started with it, even what left its process group', async () => {
    const m = marker();
    // The pause lets the escapee reach setsid before the command ends (without a sandbox it then survives).
    const r = await runCommand(served, writer, `sh -c 'setsid sleep 3${m} >/dev/null 2>&1 & sleep 1; echo started'`);
    expect(r).toMatchObject({ messages: ['started'], code: 1000 });
    expect(await eventually(() => processesWith(`sleep 3${m}`).length === 0)).toBe(true);
  });
});

describe('the config file inside the served root', { timeout: 60_000 }, () => {
  it('is not served, not even to an admin whose scope holds it', async () => {
    const admin = await (await login(srv.origin, 'admin', SECRET)).text();
    const res = await fetch(`${srv.origin}/api/raw/outside/coffer.yaml`, { headers: { 'X-Auth': admin } });
    expect(res.status).not.toBe(200);
    expect(await res.text()).not.toContain(OTHER_SECRET);
    const listing = await (await fetch(`${srv.origin}/api/resources/outside/`, { headers: { 'X-Auth': admin } })).json() as { items: { name: string }[] };
    expect(listing.items.map((i) => i.name)).toEqual(['o.txt']);
  });
});

describe('hooks of a built server with execution on', { timeout: 60_000 }, () => {
  it('run in the acting user\'s scope with only the hook\'s values: no secret, nothing outside', async () => {
    const m = marker();
    const script = [
      `env > hook-env-${m}.txt`,
      `pwd > hook-pwd-${m}.txt`,
      `cat "$FILE" > hook-file-${m}.txt`,
      `cat ../outside/o.txt ${outsideFile} ${database} /proc/1/environ /proc/${srv.proc.pid}/environ link-relative > hook-escape-${m}.txt 2>&1`,
      'true',
    ].join('; ');
    const set = await run(ws, ['cmds', 'add', '-d', database, 'after_upload', `sh -c '${script}'`]);
    expect(set.code, set.stderr).toBe(0);
    const res = await fetch(`${srv.origin}/api/resources/up-${m}.txt`, { method: 'POST', headers: { 'X-Auth': writer }, body: 'uploaded' });
    expect(res.status).toBe(200);
    const read = (name: string) => readFile(path.join(scope, `${name}-${m}.txt`), 'utf8');
    const env = (await read('hook-env')).trim().split('\n').sort();
    expect(env).toEqual([
      `DESTINATION=${scope}`,
      `FILE=${path.join(scope, `up-${m}.txt`)}`,
      'HOME=/tmp',
      'LANG=C.UTF-8',
      'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      `PWD=${scope}`,
      'SCOPE=/alice',
      'TRIGGER=after_upload',
      'USERNAME=writer',
    ]);
    expect((await read('hook-pwd')).trim()).toBe(scope);
    expect(await read('hook-file')).toBe('uploaded');
    const escape = await read('hook-escape');
    expectNothingSecret(escape);
    expect(escape).toContain('No such file or directory');
  });
});

describe('Coffer\'s own files inside a scope (the database in the served root)', { timeout: 60_000 }, () => {
  let own: TestServer;
  let root = '';

  beforeAll(async () => {
    root = await realpath(await mkdtemp(path.join(tmpdir(), 'coffer-own-')));
    own = await startServer({ disableExec: false, root, database: path.join(root, 'coffer.db'), cacheDir: path.join(root, 'cache') });
  });
  afterAll(async () => {
    await own?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('are covered, and the scope holding them is read-only even for a user who may write', async () => {
    await writeFile(path.join(root, 'cache', 'thumb.jpg'), OUTSIDE);
    const user = await own.createUser({ scope: '/', perm: { execute: true, create: true, modify: true, delete: true, rename: true }, commands: ['cat', 'ls', 'sh', 'touch', 'rm', 'mv'] });
    const token = await own.login(user.username, user.password);
    expectNothingSecret(await outputOf(own, token, ['cat coffer.db', 'cat coffer.db-wal', 'cat coffer.db-shm', 'ls cache', `sh -c 'cat cache/*'`]));
    const m = marker();
    for (const line of [`touch made-${m}`, 'rm coffer.db', 'mv coffer.db moved.db', `sh -c 'echo x > coffer.db-journal'`]) {
      expect((await runCommand(own, token, line)).code, line).toBe(1011);
    }
    expect(existsSync(path.join(root, `made-${m}`))).toBe(false);
    expect(existsSync(path.join(root, 'coffer.db-journal'))).toBe(false);
    expect(readFileSync(path.join(root, 'coffer.db')).subarray(0, 15).toString()).toBe('SQLite format 3');
  });
});

describe('limits', { timeout: 60_000 }, () => {
  let lim: TestServer;
  beforeAll(async () => {
    lim = await startServer({ disableExec: false, commandCpuLimit: 1, commandMemoryLimit: 64 * 1024 * 1024 });
  });
  afterAll(async () => {
    await lim?.close();
  });

  it('kill a process past its CPU time, long before the time limit', async () => {
    const user = await lim.createUser({ perm: { execute: true }, commands: ['sh'] });
    const token = await lim.login(user.username, user.password);
    const t0 = Date.now();
    const r = await runCommand(lim, token, `sh -c 'while :; do :; done'`);
    expect(r.code).toBe(1011);
    expect(Date.now() - t0).toBeLessThan(15_000); // the time limit is 10 min
  });

  it('stop a process from taking more memory than allowed', async () => {
    const user = await lim.createUser({ perm: { execute: true }, commands: ['sh'] });
    const token = await lim.login(user.username, user.password);
    const r = await runCommand(lim, token, `sh -c 'x=$(head -c 100000000 /dev/zero | tr "\\0" a); echo \${#x}'`);
    expect(r.messages).not.toContain('100000000');
    expect(r.code).toBe(1011);
  });
});

describe('--command-network', { timeout: 60_000 }, () => {
  let netSrv: TestServer;
  beforeAll(async () => {
    netSrv = await startServer({ disableExec: false, commandNetwork: true });
  });
  afterAll(async () => {
    await netSrv?.close();
  });

  it('gives commands the server\'s network', async () => {
    const user = await netSrv.createUser({ perm: { execute: true }, commands: ['cat'] });
    const token = await netSrv.login(user.username, user.password);
    const names = (text: string[]) => text.slice(2).map((l) => l.trim().split(':')[0]).sort();
    const host = readFileSync('/proc/net/dev', 'utf8').trim().split('\n');
    expect(names((await runCommand(netSrv, token, 'cat /proc/net/dev')).messages)).toEqual(names(host));
  });
});

describe('the scope mounted from the folder itself', { timeout: 60_000 }, () => {
  it('is what a command sees even when a link took the place of its path before bubblewrap started', async () => {
    const base = await realpath(await mkdtemp(path.join(tmpdir(), 'coffer-swap-')));
    try {
      const own = path.join(base, 'alice');
      const elsewhere = path.join(base, 'elsewhere');
      await mkdir(own);
      await mkdir(elsewhere);
      await writeFile(path.join(own, 'mine.txt'), 'mine');
      await writeFile(path.join(elsewhere, 'o.txt'), OUTSIDE);
      const confinement = (await createConfinement({ ...defaults(), root: base, disableExec: false }))!;
      const job = { program: 'ls', args: [], scope: own, cwd: own, writable: true };
      const launch = await confinement.prepare(job);
      // A user who may write the folder above the scope swaps a link into its place (a race in real life).
      await rename(own, `${own}.real`);
      await symlink(elsewhere, own);
      const lines: string[] = [];
      const outcome = await runGroup(launch.file, launch.args, { cwd: launch.cwd, env: launch.env, fds: launch.fds, timeoutMs: 30_000, outputLimit: 0, onLine: (l) => lines.push(l) }).done;
      expect(lines).toEqual(['mine.txt']);
      expect(outcome).toMatchObject({ kind: 'exited', code: 0 });
      // Swapped before the run was prepared: refused, nothing is mounted from the link.
      await expect(confinement.prepare(job)).rejects.toThrow(/scope folder cannot be opened/);
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });
});
