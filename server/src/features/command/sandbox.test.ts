import { describe, expect, it } from 'vitest';
import { bwrapArgs, limitArgs, sandboxEnv, scopeWritable, type SandboxJob, type SandboxPolicy } from './sandbox.js';

const policy = (over: Partial<SandboxPolicy> = {}): SandboxPolicy => ({
  bwrap: '/usr/bin/bwrap',
  prlimit: '/usr/bin/prlimit',
  network: false,
  limits: { memoryBytes: 1024, cpuSeconds: 60, processes: 32 },
  host: { systemDirs: [{ path: '/usr' }, { path: '/bin', link: 'usr/bin' }, { path: '/lib', link: 'usr/lib' }, { path: '/lib64', link: 'usr/lib64' }, { path: '/sbin', link: 'usr/sbin' }] },
  ...over,
});

const job = (over: Partial<SandboxJob> = {}): SandboxJob => ({
  program: 'cat',
  args: ['../x', '--', '-n'],
  scope: '/srv/files/alice',
  cwd: '/srv/files/alice/docs',
  writable: true,
  reserved: [],
  ...over,
});

/** The options as [option, operands…] groups, for order checks. */
function mountOps(args: string[]): string[][] {
  const arity: Record<string, number> = { '--ro-bind': 2, '--ro-bind-try': 2, '--bind': 2, '--bind-fd': 2, '--ro-bind-fd': 2, '--symlink': 2, '--proc': 1, '--dev': 1, '--tmpfs': 1, '--remount-ro': 1 };
  const out: string[][] = [];
  for (let i = 0; i < args.length; i++) {
    const n = arity[args[i]!];
    if (n === undefined) continue;
    out.push(args.slice(i, i + n + 1));
    i += n;
  }
  return out;
}

const dest = (op: string[]) => op.at(-1)!;

describe('bwrapArgs', () => {
  it('builds the whole argument list of a command in a writable scope', () => {
    expect(bwrapArgs(policy(), job())).toEqual([
      '--unshare-all', '--unshare-user', '--disable-userns',
      '--uid', '65534', '--gid', '65534',
      '--hostname', 'sandbox',
      '--cap-drop', 'ALL',
      '--seccomp', '3',
      '--new-session', '--die-with-parent',
      '--ro-bind', '/usr', '/usr',
      '--symlink', 'usr/bin', '/bin',
      '--symlink', 'usr/lib', '/lib',
      '--symlink', 'usr/lib64', '/lib64',
      '--symlink', 'usr/sbin', '/sbin',
      '--proc', '/proc', '--remount-ro', '/proc',
      '--dev', '/dev',
      '--tmpfs', '/tmp',
      '--ro-bind-try', '/etc/passwd', '/etc/passwd',
      '--ro-bind-try', '/etc/group', '/etc/group',
      '--ro-bind-try', '/etc/nsswitch.conf', '/etc/nsswitch.conf',
      '--ro-bind-try', '/etc/ld.so.cache', '/etc/ld.so.cache',
      '--ro-bind-try', '/etc/localtime', '/etc/localtime',
      '--ro-bind-try', '/etc/timezone', '/etc/timezone',
      '--ro-bind-try', '/etc/alternatives', '/etc/alternatives',
      '--ro-bind-try', '/etc/mime.types', '/etc/mime.types',
      '--ro-bind-try', '/etc/os-release', '/etc/os-release',
      '--bind-fd', '4', '/srv/files/alice',
      '--chdir', '/srv/files/alice/docs',
      '--',
      '/usr/bin/prlimit', '--core=0', '--as=1024', '--cpu=60', '--nproc=32',
      '--',
      'cat', '../x', '--', '-n',
    ]);
  });

  it('mounts nothing but the system folders, a few /etc files, /proc, /dev, /tmp and the scope', () => {
    const dests = mountOps(bwrapArgs(policy(), job())).map(dest);
    for (const d of dests) {
      const allowed = ['/usr', '/bin', '/lib', '/lib64', '/sbin', '/proc', '/dev', '/tmp', '/srv/files/alice'].includes(d) || /^\/etc\/[a-z.]/.test(d);
      expect(allowed, d).toBe(true);
    }
    for (const never of ['/', '/etc', '/home', '/root', '/var', '/srv', '/srv/files', '/run', '/sys', '/etc/shadow', '/etc/ssl/private']) expect(dests).not.toContain(never);
  });

  it('mounts the scope read-only when the user may not write', () => {
    const ops = mountOps(bwrapArgs(policy(), job({ writable: false })));
    expect(ops.find((o) => dest(o) === '/srv/files/alice')).toEqual(['--ro-bind-fd', '4', '/srv/files/alice']);
    expect(ops.some((o) => o[0] === '--bind' || o[0] === '--bind-fd')).toBe(false);
  });

  it('covers Coffer\'s files inside the scope and then mounts the scope read-only', () => {
    const reserved = [
      { path: '/srv/files/alice/coffer.db', kind: 'file' as const },
      { path: '/srv/files/alice/coffer.db-journal', kind: 'missing' as const },
      { path: '/srv/files/alice/cache', kind: 'dir' as const },
    ];
    expect(scopeWritable({ writable: true, reserved })).toBe(false);
    const ops = mountOps(bwrapArgs(policy(), job({ reserved })));
    const scopeAt = ops.findIndex((o) => dest(o) === '/srv/files/alice');
    expect(ops[scopeAt]![0]).toBe('--ro-bind-fd');
    expect(ops.slice(scopeAt + 1)).toEqual([
      ['--ro-bind', '/dev/null', '/srv/files/alice/coffer.db'],
      ['--tmpfs', '/srv/files/alice/cache'],
      ['--remount-ro', '/srv/files/alice/cache'],
    ]);
  });

  it('lays a scope under /tmp or /usr over the fresh /tmp and the read-only /usr, not under them', () => {
    for (const scope of ['/tmp/coffer-x/root', '/usr/share/docs']) {
      const ops = mountOps(bwrapArgs(policy(), job({ scope, cwd: scope })));
      const parent = ops.findIndex((o) => dest(o) === `/${scope.split('/')[1]}`);
      const own = ops.findIndex((o) => dest(o) === scope);
      expect(parent).toBeGreaterThanOrEqual(0);
      expect(own).toBeGreaterThan(parent);
    }
  });

  it('keeps the network namespace and mounts name resolution only when network is allowed', () => {
    const off = bwrapArgs(policy(), job());
    expect(off).not.toContain('--share-net');
    expect(off).not.toContain('/etc/resolv.conf');
    const on = bwrapArgs(policy({ network: true }), job());
    expect(on.slice(0, 4)).toEqual(['--unshare-all', '--unshare-user', '--disable-userns', '--share-net']);
    expect(mountOps(on)).toContainEqual(['--ro-bind-try', '/etc/resolv.conf', '/etc/resolv.conf']);
    expect(mountOps(on)).toContainEqual(['--ro-bind-try', '/etc/ssl/certs', '/etc/ssl/certs']);
  });

  it('binds a host whose /bin is a real folder read-only', () => {
    const args = bwrapArgs(policy({ host: { systemDirs: [{ path: '/usr' }, { path: '/bin' }] } }), job());
    expect(mountOps(args).slice(0, 2)).toEqual([['--ro-bind', '/usr', '/usr'], ['--ro-bind', '/bin', '/bin']]);
  });

  it('passes the program and its arguments after both `--`, untouched', () => {
    const args = bwrapArgs(policy(), job({ program: '--help', args: ['$(id)', '; rm -rf /', '--bind'] }));
    expect(args.slice(-5)).toEqual(['--', '--help', '$(id)', '; rm -rf /', '--bind']);
  });

  it('refuses jobs it could not confine as described', () => {
    const bad: [string, Partial<SandboxJob>][] = [
      ['relative scope', { scope: 'alice', cwd: 'alice' }],
      ['unnormalised scope', { scope: '/srv/files/../etc', cwd: '/srv/files/../etc' }],
      ['trailing slash', { scope: '/srv/files/alice/', cwd: '/srv/files/alice/' }],
      ['cwd outside the scope', { cwd: '/srv/files/bob' }],
      ['cwd beside the scope by prefix', { cwd: '/srv/files/alice2' }],
      ['scope "/" holds /proc', { scope: '/', cwd: '/' }],
      ['scope inside /proc', { scope: '/proc/1', cwd: '/proc/1' }],
      ['scope inside /sys', { scope: '/sys/kernel', cwd: '/sys/kernel' }],
      ['scope inside /dev', { scope: '/dev/shm', cwd: '/dev/shm' }],
      ['reserved outside the scope', { reserved: [{ path: '/srv/files/coffer.db', kind: 'file' }] }],
    ];
    for (const [what, over] of bad) expect(() => bwrapArgs(policy(), job(over)), what).toThrow(/^sandbox: /);
  });
});

describe('limitArgs', () => {
  it('always forbids core dumps and leaves out limits set to 0', () => {
    expect(limitArgs({ memoryBytes: 0, cpuSeconds: 0, processes: 0 })).toEqual(['--core=0']);
    expect(limitArgs({ memoryBytes: 2 ** 31, cpuSeconds: 0.5, processes: 1 })).toEqual(['--core=0', '--as=2147483648', '--cpu=1', '--nproc=1']);
  });
});

describe('sandboxEnv', () => {
  it('is PATH, HOME, LANG and the given values only, never the server\'s environment', () => {
    process.env.COFFER_ADMIN_PASSWORD_TEST = 'secret';
    try {
      expect(sandboxEnv()).toEqual({ PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', HOME: '/tmp', LANG: 'C.UTF-8' });
      expect(Object.keys(sandboxEnv({ FILE: '/srv/files/alice/a', TRIGGER: 'after_save' }))).toEqual(['PATH', 'HOME', 'LANG', 'FILE', 'TRIGGER']);
    } finally {
      delete process.env.COFFER_ADMIN_PASSWORD_TEST;
    }
  });
});
