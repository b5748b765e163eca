import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { closingLaunch } from './process.js';

describe('closingLaunch', () => {
  it('hands the program and its arguments over verbatim, never as shell', () => {
    const l = closingLaunch('/usr/bin/printf', ['%s|', '$(id)', '*', '-c', ''], { PATH: '/usr/bin:/bin' }, 0);
    const r = spawnSync(l.file, l.args, { env: l.env, encoding: 'utf8' });
    expect(r.stdout).toBe('$(id)|*|-c||');
  });

  it('gives the program exactly the environment it was given', () => {
    const env = { PATH: '/usr/bin:/bin', FILE: 'x' };
    const l = closingLaunch('/usr/bin/env', [], { ...env, BASH_ENV: '/tmp/evil', GLOBIGNORE: '/proc/*' }, 0);
    const r = spawnSync(l.file, l.args, { env: l.env, encoding: 'utf8' });
    expect(r.stdout.trim().split('\n').sort()).toEqual(['FILE=x', 'PATH=/usr/bin:/bin']);
  });

  it('spawns a path holding "=" as is (env would read it as a variable and run the next argument)', () => {
    expect(closingLaunch('/tmp/a=b/tool', ['/bin/sh'], {}, 0)).toEqual({ file: '/tmp/a=b/tool', args: ['/bin/sh'], env: {} });
  });

  it('closes inherited descriptors above the ones handed over', () => {
    const l = closingLaunch('/usr/bin/ls', ['/proc/self/fd'], { PATH: '/usr/bin:/bin' }, 1);
    // fd 3 handed over, 5 and 7 inherited (opened by the shell that starts the launch).
    const r = spawnSync('/bin/bash', ['-c', 'exec 3</dev/null 5</dev/null 7</dev/null; exec "$@"', 'x', l.file, ...l.args], { env: l.env, encoding: 'utf8' });
    expect(r.stdout.trim().split('\n').sort()).toEqual(['0', '1', '2', '3', '4']); // 4: ls's own listing of the folder
  });
});
