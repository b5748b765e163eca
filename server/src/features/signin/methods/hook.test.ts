import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseHookOutput, runHookCommand } from './hook.js';

describe('parseHookOutput', () => {
  it('reads key=value lines, trims, accepts CRLF and ignores everything else', () => {
    const out = parseHookOutput(
      'hello\r\n hook.action = auth \r\nuser.locale=de\nuser.commands= ls  git \nuser.perm.admin=true\nuser.perm.bogus=true\nuser.singleClick=True\nuser.sorting.asc=true\nx=y\n=z\n',
    );
    expect(out.action).toBe('auth');
    expect(out.values.locale).toBe('de');
    expect(out.values.commands).toEqual(['ls', 'git']);
    expect(out.values.perm).toEqual({ admin: true });
    expect(out.values.singleClick).toBe(false);
    expect(out.values.sorting).toEqual({ asc: true });
    expect(out.fields).toBe(5);
  });
  it('keeps "=" inside values and lets a later line win', () => {
    const out = parseHookOutput('hook.action=pass\nuser.scope=/a=b\nhook.action=block\n');
    expect(out.action).toBe('block');
    expect(out.values.scope).toBe('/a=b');
  });
  it('reports no action for empty output', () => {
    expect(parseHookOutput('').action).toBe('');
    expect(parseHookOutput('').fields).toBe(0);
  });
});

describe('runHookCommand', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'coffer-hook-unit-'));
    const script = async (name: string, body: string) => {
      await writeFile(path.join(dir, name), `#!/bin/sh\n${body}\n`);
      await chmod(path.join(dir, name), 0o755);
    };
    await script('echo.sh', 'echo "user=$USERNAME"; echo "args=$#:$1:$2"');
    await script('slow.sh', `sleep 30 & echo $! > "${dir}/child.pid"; sleep 30`);
    await script('loud.sh', 'yes hook.action=auth');
    await script('fail.sh', 'echo hook.action=auth; exit 1');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('splits the command on single spaces and passes credentials only in the environment', async () => {
    const out = await runHookCommand(`${dir}/echo.sh a  b`, { username: 'u $(x)', password: 'p' });
    expect(out).toBe('user=u $(x)\nargs=3:a:\n');
  });

  it('fails on a non-zero exit and on a missing program', async () => {
    await expect(runHookCommand(`${dir}/fail.sh`, { username: 'u', password: 'p' })).rejects.toThrow(/exited with 1/);
    await expect(runHookCommand(`${dir}/nope.sh`, { username: 'u', password: 'p' })).rejects.toThrow(/could not start/);
    await expect(runHookCommand('', { username: 'u', password: 'p' })).rejects.toThrow(/no command/);
  });

  it('kills the command and what it started after the time limit', async () => {
    const t = Date.now();
    await expect(runHookCommand(`${dir}/slow.sh`, { username: 'u', password: 'p' }, 300)).rejects.toThrow(/did not finish/);
    expect(Date.now() - t).toBeLessThan(5000);
    const pid = Number((await readFile(path.join(dir, 'child.pid'), 'utf8')).trim());
    // Gone, or a zombie waiting for init to reap it: either way no longer running.
    const running = async () => {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
      return stat !== '' && !/\) [ZX] /.test(stat);
    };
    for (let i = 0; i < 40 && (await running()); i++) await new Promise((r) => setTimeout(r, 50));
    expect(await running()).toBe(false);
  });

  it('stops a command that prints without end', async () => {
    await expect(runHookCommand(`${dir}/loud.sh`, { username: 'u', password: 'p' })).rejects.toThrow(/too much/);
  });
});
