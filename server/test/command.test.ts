/**
 * GET /api/command/{path} over a real WebSocket (docs/api.md §16, S25, S26, S70, S71).
 */
import { existsSync } from 'node:fs';
import net from 'node:net';
import { mkdir, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { useServer } from './harness.js';
import { eventually, marker, openCommand, processesWith, runCommand, sleepers, upgradeStatus, wsUrl } from './command-helpers.js';

const NOT_ALLOWED = 'Command not allowed.';

describe('command socket with execution off (the default, S70)', () => {
  const srv = useServer();

  it('refuses the upgrade with 401 without a valid token', async () => {
    expect(await upgradeStatus(srv, '/api/command/')).toBe(401);
    expect(await upgradeStatus(srv, '/api/command/', { token: 'a.b.c' })).toBe(401);
  });

  it('accepts a valid token, answers the first line with "Command not allowed." and closes', async () => {
    const user = await srv.createUser({ perm: { execute: true }, commands: ['echo'] });
    const token = await srv.login(user.username, user.password);
    const r = await runCommand(srv, token, 'echo hi');
    expect(r.messages).toEqual([NOT_ALLOWED]);
    expect(r.code).not.toBe(1000);
  });

  it('runs nothing for an admin either', async () => {
    const m = marker();
    const r = await runCommand(srv, await srv.login(), `touch ${m}`);
    expect(r.messages).toEqual([NOT_ALLOWED]);
    expect(existsSync(path.join(srv.root, m))).toBe(false);
  });
});

describe('command socket with execution on', () => {
  const srv = useServer({ disableExec: false, commandOutputLimit: 256 * 1024 });
  const tools = ['echo', 'pwd', 'sh', 'sleep', 'yes', 'false', 'env', 'cat', 'definitely-not-a-program-7f3a'];

  async function userToken(over: Parameters<typeof srv.createUser>[0] = {}) {
    const user = await srv.createUser({ perm: { execute: true }, commands: tools, ...over });
    return { user, token: await srv.login(user.username, user.password) };
  }

  afterEach(async () => {
    const s = await srv.deps.settings.settings();
    if (s.shell.length) await srv.deps.settings.saveSettings({ ...s, shell: [] });
  });

  describe('authentication on the upgrade (docs/api.md §2.2, S25, S26)', () => {
    it('answers 401 without a token, with garbage, and with a forged or revoked one', async () => {
      const { token } = await userToken();
      const [h, p] = token.split('.');
      expect(await upgradeStatus(srv, '/api/command/')).toBe(401);
      expect(await upgradeStatus(srv, '/api/command/', { token: 'x.y.z' })).toBe(401);
      expect(await upgradeStatus(srv, '/api/command/', { token: `${h}.${p}.forged` })).toBe(401);
      const other = await userToken();
      await srv.fetch('/api/logout', { method: 'POST', token: other.token });
      expect(await upgradeStatus(srv, '/api/command/', { token: other.token })).toBe(401);
    });

    it('ignores a token in the query string', async () => {
      const { token } = await userToken();
      expect(await upgradeStatus(srv, `/api/command/?auth=${token}`)).toBe(401);
      expect(await upgradeStatus(srv, `/api/command/?token=${token}`)).toBe(401);
    });

    it('accepts the token from the X-Auth header or the auth cookie', async () => {
      const { token } = await userToken();
      expect(await upgradeStatus(srv, '/api/command/', { token })).toBe(101);
      expect(await upgradeStatus(srv, '/api/command/', { cookie: `theme=dark; auth=${token}` })).toBe(101);
      const s = await openCommand(srv, '/api/command/', { cookie: `auth=${token}` });
      s.ws.send('echo cookie');
      expect((await s.closed).code).toBe(1000);
      expect(s.messages).toEqual(['cookie']);
    });

    it('refuses an Origin naming another host with 403, accepts its own', async () => {
      const { token } = await userToken();
      const own = new URL(srv.url).host;
      expect(await upgradeStatus(srv, '/api/command/', { cookie: `auth=${token}`, headers: { Origin: 'https://evil.example' } })).toBe(403);
      expect(await upgradeStatus(srv, '/api/command/', { token, headers: { Origin: 'null' } })).toBe(403);
      expect(await upgradeStatus(srv, '/api/command/', { cookie: `auth=${token}`, headers: { Origin: `http://${own}` } })).toBe(101);
    });

    it('closes the connection of an upgrade it answered over HTTP (nothing lingers)', async () => {
      const port = Number(new URL(srv.url).port);
      for (const p of ['/api/command/', '/health', '/api/resources/', '/no-such-route']) {
        const sock = net.connect(port, '127.0.0.1');
        let head = '';
        sock.on('data', (d: Buffer) => (head += d.toString()));
        const closed = new Promise<string>((r) => sock.on('close', () => r('closed')));
        sock.write(`GET ${new URL(srv.url).pathname.replace(/\/$/, '')}${p} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`);
        const outcome = await Promise.race([closed, new Promise<string>((r) => setTimeout(() => r('still open'), 3000))]);
        sock.destroy();
        expect(outcome, `${p}: ${head.split('\r\n')[0]}`).toBe('closed');
        expect(head).not.toMatch(/^HTTP\/1\.1 101/);
      }
    });

    it('is not a plain HTTP endpoint', async () => {
      const { token } = await userToken();
      expect((await srv.fetch('/api/command/', { token })).status).toBe(404);
    });
  });

  describe('who may run what (docs/api.md §16.1 step 2, S70, S71)', () => {
    it('answers "Command not allowed." to a user without the execute permission', async () => {
      const { token } = await userToken({ perm: { execute: false } });
      const r = await runCommand(srv, token, 'echo hi');
      expect(r.messages).toEqual([NOT_ALLOWED]);
    });

    it('refuses programs that are not exactly in the user\'s commands', async () => {
      const { token } = await userToken({ commands: ['echo'] });
      for (const line of ['ls', '/bin/echo hi', './echo', 'env echo hi', 'ECHO hi', 'echo\\ hi']) {
        const r = await runCommand(srv, token, line);
        expect(r.messages, line).toEqual([NOT_ALLOWED]);
        expect(r.code, line).toBe(1008);
      }
    });

    it('lets a user with no commands run nothing', async () => {
      const { token } = await userToken({ commands: [] });
      expect((await runCommand(srv, token, 'echo hi')).messages).toEqual([NOT_ALLOWED]);
    });

    it('gives a user created by signup no way to run anything, even with generous defaults (S73)', async () => {
      const before = await srv.deps.settings.settings();
      const defaults = { ...before.defaults, perm: { ...before.defaults.perm, execute: true }, commands: ['echo'] };
      await srv.deps.settings.saveSettings({ ...before, signup: true, defaults });
      try {
        const username = `new${marker()}`;
        const res = await srv.fetch('/api/signup', { method: 'POST', json: { username, password: 'a-long-enough-password' } });
        expect(res.status).toBe(200);
        const token = await srv.login(username, 'a-long-enough-password');
        expect((await runCommand(srv, token, 'echo hi')).messages).toEqual([NOT_ALLOWED]);
      } finally {
        await srv.deps.settings.saveSettings(before);
      }
    });

    it('answers a line that does not split with the parser\'s error', async () => {
      const { token } = await userToken();
      const r = await runCommand(srv, token, 'echo "unclosed');
      expect(r.messages).toHaveLength(1);
      expect(r.messages[0]).toMatch(/^error parsing command: /);
    });
  });

  describe('running (docs/api.md §16.1 steps 3-4)', () => {
    it('streams one message per line and closes with 1000 on exit status 0', async () => {
      const { token } = await userToken();
      const r = await runCommand(srv, token, 'echo -e "one\\n\\nthree"');
      expect(r.messages).toEqual(['one', '', 'three']);
      expect(r.code).toBe(1000);
    });

    it('groups quoted words and passes them as single arguments', async () => {
      const { token } = await userToken();
      const r = await runCommand(srv, token, `sh -c 'for a; do echo "[$a]"; done' x "my dir" a\\ b ''`);
      expect(r.messages).toEqual(['[my dir]', '[a b]', '[]']);
    });

    it('treats ; && | $() backticks > and newlines as plain argument text (no shell)', async () => {
      const { token } = await userToken();
      const m = marker();
      const line = `echo a; touch x${m} && touch y${m} | cat > z${m} $(touch w${m}) \`touch v${m}\``;
      const r = await runCommand(srv, token, line);
      expect(r.messages).toEqual([`a; touch x${m} && touch y${m} | cat > z${m} $(touch w${m}) \`touch v${m}\``]);
      expect(r.code).toBe(1000);
      for (const f of ['x', 'y', 'z', 'w', 'v']) expect(existsSync(path.join(srv.root, `${f}${m}`))).toBe(false);
      const nl = await runCommand(srv, token, `echo "a\ntouch n${m}"`);
      expect(nl.messages).toEqual(['a', `touch n${m}`]);
      expect(existsSync(path.join(srv.root, `n${m}`))).toBe(false);
    });

    it('expands no variables, globs or tildes', async () => {
      const { token } = await userToken();
      const r = await runCommand(srv, token, 'echo $HOME ${PATH} ~ * "$USER"');
      expect(r.messages).toEqual(['$HOME ${PATH} ~ * $USER']);
    });

    it('sends stdout before stderr', async () => {
      const { token } = await userToken();
      const r = await runCommand(srv, token, `sh -c 'echo err1 >&2; echo out1; echo err2 >&2; echo out2'`);
      expect(r.messages).toEqual(['out1', 'out2', 'err1', 'err2']);
    });

    it('closes with 1011 on a non-zero exit status, after the output', async () => {
      const { token } = await userToken();
      const r = await runCommand(srv, token, `sh -c 'echo before; exit 3'`);
      expect(r.messages).toEqual(['before']);
      expect(r).toMatchObject({ code: 1011, reason: 'Internal Server Error' });
      expect((await runCommand(srv, token, 'false')).code).toBe(1011);
    });

    it('closes with 1011 when an allowed program does not exist', async () => {
      const { token } = await userToken();
      const r = await runCommand(srv, token, 'definitely-not-a-program-7f3a --help');
      expect(r).toMatchObject({ messages: [], code: 1011, reason: 'Internal Server Error' });
    });

    it('ignores blank messages and reads only the first command', async () => {
      const { token } = await userToken();
      const m = marker();
      const s = await openCommand(srv, '/api/command/', { token });
      s.ws.send('');
      s.ws.send('  \t ');
      s.ws.send('echo first');
      s.ws.send(`sh -c 'touch second${m}'`);
      expect((await s.closed).code).toBe(1000);
      expect(s.messages).toEqual(['first']);
      expect(existsSync(path.join(srv.root, `second${m}`))).toBe(false);
    });

    it('does not pass Coffer\'s own environment variables to the program', async () => {
      const { token } = await userToken();
      process.env.COFFER_TEST_SECRET = 'do-not-leak';
      try {
        const r = await runCommand(srv, token, 'env');
        expect(r.code).toBe(1000);
        expect(r.messages.some((l) => l.startsWith('PATH='))).toBe(true);
        expect(r.messages.filter((l) => l.toUpperCase().startsWith('COFFER_'))).toEqual([]);
      } finally {
        delete process.env.COFFER_TEST_SECRET;
      }
    });
  });

  describe('working folder (docs/api.md §16.1, S1, S4)', () => {
    it('runs in the requested folder inside the user\'s scope', async () => {
      const m = marker();
      await mkdir(path.join(srv.root, `home${m}`, 'sub dir'), { recursive: true });
      const { token } = await userToken({ scope: `/home${m}` });
      const real = await realpath(path.join(srv.root, `home${m}`));
      expect((await runCommand(srv, token, 'pwd', '/')).messages).toEqual([real]);
      expect((await runCommand(srv, token, 'pwd')).messages).toEqual([real]);
      expect((await runCommand(srv, token, 'pwd', '/sub%20dir/')).messages).toEqual([path.join(real, 'sub dir')]);
      const bare = await openCommand(srv, '/api/command', { token });
      bare.ws.send('pwd');
      await bare.closed;
      expect(bare.messages).toEqual([real]);
    });

    it('refuses a path that climbs out of the scope or is denied by a rule with 403, before the upgrade', async () => {
      const m = marker();
      await mkdir(path.join(srv.root, `jail${m}`, 'secret'), { recursive: true });
      const { token } = await userToken({
        scope: `/jail${m}`,
        rules: [{ regex: false, allow: false, path: '/secret', regexp: { raw: '' } }],
      });
      expect(await upgradeStatus(srv, '/api/command/..%2F..%2F', { token })).toBe(403);
      expect(await upgradeStatus(srv, '/api/command/secret/', { token })).toBe(403);
    });

    it('fails the start with 1011 when the folder does not exist or is a file', async () => {
      const { token } = await userToken();
      await writeFile(path.join(srv.root, 'plain.txt'), 'x');
      expect((await runCommand(srv, token, 'pwd', '/no-such-folder/')).code).toBe(1011);
      expect((await runCommand(srv, token, 'pwd', '/plain.txt')).code).toBe(1011);
    });
  });

  describe('settings.shell (docs/api.md §16.2, S71)', () => {
    it('hands the whole line to the configured shell, having checked only the first word', async () => {
      const { token } = await userToken({ commands: ['echo'] });
      const s = await srv.deps.settings.settings();
      await srv.deps.settings.saveSettings({ ...s, shell: ['sh', '-c'] });
      const r = await runCommand(srv, token, 'echo a; echo b');
      expect(r.messages).toEqual(['a', 'b']);
      expect((await runCommand(srv, token, 'cat /etc/hostname')).messages).toEqual([NOT_ALLOWED]);
    });

    it('ignores a shell whose first element is empty', async () => {
      const { token } = await userToken({ commands: ['echo'] });
      const s = await srv.deps.settings.settings();
      await srv.deps.settings.saveSettings({ ...s, shell: ['', '-c'] });
      expect((await runCommand(srv, token, 'echo a; echo b')).messages).toEqual(['a; echo b']);
    });
  });

  describe('limits and cleanup (S71)', () => {
    it('kills a flood of output past the output limit', async () => {
      const { token } = await userToken();
      const m = marker();
      const r = await runCommand(srv, token, `yes flood${m}`);
      expect(r.code).toBe(1011);
      expect(r.messages.at(-1)).toMatch(/^Command killed: it printed more than 262144 bytes\.$/);
      const sent = r.messages.slice(0, -1).reduce((n, l) => n + l.length + 1, 0);
      expect(sent).toBeLessThanOrEqual(256 * 1024);
      expect(sent).toBeGreaterThan(100 * 1024);
      expect(processesWith(`flood${m}`)).toEqual([]);
    });

    it('kills the command and its children when the client vanishes', async () => {
      const { token } = await userToken();
      const m = marker();
      const s = await openCommand(srv, '/api/command/', { token });
      s.ws.send(`sh -c 'sleep 1${m} & sleep 2${m}; echo never'`);
      expect(await eventually(() => sleepers(`1${m}`).length === 1 && sleepers(`2${m}`).length === 1)).toBe(true);
      s.ws.terminate(); // no close frame: the TCP connection just goes away
      expect(await eventually(() => processesWith(m).length === 0)).toBe(true);
    });

    it('kills the command and its children when the client closes the socket normally', async () => {
      const { token } = await userToken();
      const m = marker();
      const s = await openCommand(srv, '/api/command/', { token });
      s.ws.send(`sh -c 'sleep 3${m} & sleep 4${m}'`);
      expect(await eventually(() => sleepers(`3${m}`).length === 1 && sleepers(`4${m}`).length === 1)).toBe(true);
      s.ws.close(1000);
      expect(await eventually(() => processesWith(m).length === 0)).toBe(true);
    });

    it('leaves nothing running that the program started in the background and forgot', async () => {
      const { token } = await userToken();
      const m = marker();
      const r = await runCommand(srv, token, `sh -c 'sleep 5${m} & echo started'`);
      expect(r).toMatchObject({ messages: ['started'], code: 1000 });
      expect(await eventually(() => processesWith(`sleep 5${m}`).length === 0)).toBe(true);
    });

    it('leaves nothing running when the client leaves right after sending the line', async () => {
      const { token } = await userToken();
      const m = marker();
      const s = await openCommand(srv, '/api/command/', { token });
      s.ws.send(`sleep 6${m}`);
      s.ws.terminate();
      await new Promise((r) => setTimeout(r, 300));
      expect(await eventually(() => processesWith(`sleep 6${m}`).length === 0)).toBe(true);
    });
  });

  describe('malformed messages', () => {
    it('closes with 1003 on a binary message and runs nothing', async () => {
      const { token } = await userToken();
      const m = marker();
      const s = await openCommand(srv, '/api/command/', { token });
      s.ws.send(Buffer.from(`sh -c 'touch bin${m}'`), { binary: true });
      expect((await s.closed).code).toBe(1003);
      expect(existsSync(path.join(srv.root, `bin${m}`))).toBe(false);
    });

    it('closes on a text frame that is not UTF-8', async () => {
      const { token } = await userToken();
      const s = await openCommand(srv, '/api/command/', { token });
      s.ws.send(Buffer.from([0x65, 0x63, 0x68, 0x6f, 0x20, 0xff, 0xfe]), { binary: false });
      expect((await s.closed).code).toBe(1007);
      expect(s.messages).toEqual([]);
    });

    it('closes on a message over 64 KiB', async () => {
      const { token } = await userToken();
      const s = await openCommand(srv, '/api/command/', { token });
      s.ws.send(`echo ${'x'.repeat(70 * 1024)}`);
      expect((await s.closed).code).toBe(1009);
      expect(s.messages).toEqual([]);
    });

    it('survives a raw garbage frame after the upgrade', async () => {
      const { token } = await userToken();
      const s = await openCommand(srv, '/api/command/', { token });
      // A frame with reserved bits set and no mask: a protocol error the server must shrug off.
      (s.ws as unknown as { _socket: { write(b: Buffer): void } })._socket.write(Buffer.from([0xf1, 0x7f, 1, 2, 3]));
      const { code } = await s.closed;
      expect([1002, 1006]).toContain(code);
      expect((await srv.fetch('/health')).status).toBe(200);
    });
  });
});

describe('command socket time limit', () => {
  const srv = useServer({ disableExec: false, commandTimeout: 1 });

  it('kills a command that never ends, with its children', async () => {
    const user = await srv.createUser({ perm: { execute: true }, commands: ['sh'] });
    const token = await srv.login(user.username, user.password);
    const m = marker();
    const started = Date.now();
    const r = await runCommand(srv, token, `sh -c 'echo going; sleep 7${m} & sleep 8${m}'`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(r.messages).toEqual(['going', 'Command killed: it ran longer than 1 s.']);
    expect(r.code).toBe(1011);
    expect(await eventually(() => processesWith(m).length === 0)).toBe(true);
  });

  it('closes with 1011 when no command arrives in time', async () => {
    const user = await srv.createUser({ perm: { execute: true }, commands: ['sh'] });
    const token = await srv.login(user.username, user.password);
    const s = await openCommand(srv, '/api/command/', { token });
    expect(await s.closed).toEqual({ code: 1011, reason: 'Internal Server Error' });
  });

  it('kills running commands when the server shuts down', async () => {
    const { startServer } = await import('./harness.js');
    const own = await startServer({ disableExec: false });
    const user = await own.createUser({ perm: { execute: true }, commands: ['sleep'] });
    const token = await own.login(user.username, user.password);
    const m = marker();
    const ws = new WebSocket(wsUrl(own, '/api/command/'), { headers: { 'X-Auth': token } });
    await new Promise((r) => ws.once('open', r));
    ws.send(`sleep 9${m}`);
    expect(await eventually(() => sleepers(`9${m}`).length === 1)).toBe(true);
    await own.close();
    expect(await eventually(() => processesWith(m).length === 0)).toBe(true);
  });
});
