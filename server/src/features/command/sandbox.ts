/**
 * The confinement of commands and hooks (issue 17 item 1), as plain data: the bubblewrap argument
 * list, the resource limits and the environment. Every mount a sandboxed program can see is
 * decided here and pinned by sandbox.test.ts; nothing in this file touches the disk or starts a
 * process (confine.ts does, with what this file returns).
 *
 * What a sandboxed program sees:
 *
 *   /usr, /bin, /sbin, /lib…   the host's programs and libraries, read-only (merged-/usr links are
 *                              recreated as the same links)
 *   /etc/<a few files>         read-only: user and group names, the dynamic linker's cache, the
 *                              time zone, Debian's alternatives (awk, editor…) and, only with
 *                              network, name resolution and CA certificates. Never /etc as a
 *                              whole: it holds /etc/shadow, host keys, Coffer's own config.
 *   /proc                      a fresh procfs of a new PID namespace: only the sandbox's processes
 *                              (never the server's /proc/<pid>/environ), read-only (as root
 *                              outside, a command could otherwise write the host's sysctls:
 *                              kernel.core_pattern runs a program of its choice as root)
 *   /dev                       bubblewrap's minimal /dev (null, zero, full, random, urandom, tty)
 *   /tmp                       an empty tmpfs, also HOME; gone when the command ends
 *   <scope>                    the user's scope, at its real path (so $FILE, $DESTINATION and
 *                              `pwd` are the same paths as on the host), read-write or read-only,
 *                              mounted from a descriptor of the folder itself (confine.ts), so that
 *                              a link swapped into its path meanwhile cannot mount anything else;
 *                              Coffer's own files inside it (database, data dir, cache, config,
 *                              TLS key, socket) are covered and the scope is then read-only
 *
 * Nothing else exists: no /home, /root, /var, /srv, /run, /sys, no other part of the served root.
 * The program runs in new user, PID, IPC, UTS, cgroup and (unless network is allowed) network
 * namespaces, as uid/gid 65534 ("nobody") inside, with every capability dropped, unable to make
 * further user namespaces, with no_new_privs (bubblewrap always sets it), in a new session
 * (no terminal injection), killed with everything it started when bubblewrap dies
 * (--die-with-parent; the PID namespace ends with its first process).
 */
import path from 'node:path';

/** uid and gid of the program inside its user namespace ("nobody"). */
export const SANDBOX_ID = 65534;

/** PATH inside (and for the program lookup before the start): Debian's default. */
export const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** HOME inside: the sandbox's private, empty /tmp. */
export const SANDBOX_HOME = '/tmp';

/** The descriptors bubblewrap gets besides stdio (Launch.fds in confine.ts, in this order). */
export const SECCOMP_FD = 3;
export const SCOPE_FD = 4;

/** Top-level system folders mounted read-only when the host has them (or recreated as links). */
export const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'] as const;

/** The parts of /etc every program may need; none holds a secret. Missing ones are skipped. */
export const ETC_BASE = [
  '/etc/passwd', // names for `ls -l`, `id` (password hashes live in /etc/shadow, never mounted)
  '/etc/group',
  '/etc/nsswitch.conf',
  '/etc/ld.so.cache',
  '/etc/localtime',
  '/etc/timezone',
  '/etc/alternatives', // Debian: /usr/bin/awk → /etc/alternatives/awk → /usr/bin/mawk
  '/etc/mime.types',
  '/etc/os-release',
] as const;

/** Added only when commands may use the network: name resolution and TLS trust. */
export const ETC_NETWORK = [
  '/etc/resolv.conf',
  '/etc/hosts',
  '/etc/host.conf',
  '/etc/gai.conf',
  '/etc/services',
  '/etc/protocols',
  '/etc/ssl/certs', // not /etc/ssl/private
  '/etc/ssl/openssl.cnf',
  '/etc/ca-certificates',
] as const;

/** Kernel file systems a scope must never contain or lie in (an rbind would bring the host's /proc). */
const KERNEL_DIRS = ['/proc', '/sys', '/dev'];

/** Per-process limits applied with prlimit inside the sandbox; 0 = that limit is not set. */
export interface ResourceLimits {
  /** RLIMIT_AS: bytes of address space per process. */
  memoryBytes: number;
  /** RLIMIT_CPU: seconds of CPU time per process. */
  cpuSeconds: number;
  /**
   * RLIMIT_NPROC: processes of the sandbox's user (counted per user namespace, so per sandbox).
   * Linux does not apply it when Coffer runs as root (docs/commands.md).
   */
  processes: number;
}

/** What the host has at the system paths, found once at start (confine.ts). */
export interface HostLayout {
  /** SYSTEM_DIRS present on the host: a folder, or a symbolic link with its target. */
  systemDirs: readonly { path: string; link?: string }[];
}

export interface SandboxPolicy {
  /** Absolute path of bwrap on the host. */
  bwrap: string;
  /** Absolute path of prlimit, the same inside (it lives under /usr or /bin). */
  prlimit: string;
  network: boolean;
  limits: ResourceLimits;
  host: HostLayout;
}

/** One of Coffer's own files inside the scope. `missing` ones cannot be covered, only kept from being made. */
export interface ReservedEntry {
  path: string;
  kind: 'file' | 'dir' | 'missing';
}

export interface SandboxJob {
  /** The program as the user or admin wrote it (looked up with SANDBOX_PATH inside). */
  program: string;
  args: readonly string[];
  /** Real (link-resolved) absolute path of the scope root; mounted at the same path, from SCOPE_FD. */
  scope: string;
  /** Real absolute path of the working folder, inside `scope`. */
  cwd: string;
  /** Mount the scope read-write (the user holds at least one of create, rename, modify, delete). */
  writable: boolean;
  /** Coffer's own files at or below `scope` (fs/reserved.ts). */
  reserved: readonly ReservedEntry[];
}

function isInside(dir: string, p: string): boolean {
  return p === dir || p.startsWith(dir === '/' ? '/' : dir + '/');
}

function assertAbsolute(what: string, p: string): void {
  if (!path.isAbsolute(p) || path.normalize(p) !== p || (p.length > 1 && p.endsWith('/'))) {
    throw new Error(`sandbox: ${what} must be an absolute, normalised path`);
  }
}

/** One mount (or link) of the new root; applied shallowest first (see bwrapArgs). */
interface Mount {
  dest: string;
  args: string[];
}

const depth = (p: string) => (p === '/' ? 0 : p.split('/').length - 1);

/** The scope stays writable only when nothing of Coffer's own lies inside it (a writable scope could rename its way around a cover). */
export function scopeWritable(job: Pick<SandboxJob, 'writable' | 'reserved'>): boolean {
  return job.writable && job.reserved.length === 0;
}

/** prlimit's options (before `--`); `--core=0` always: no core dumps of a command into the scope. */
export function limitArgs(limits: ResourceLimits): string[] {
  const out = ['--core=0'];
  if (limits.memoryBytes > 0) out.push(`--as=${limits.memoryBytes}`);
  if (limits.cpuSeconds > 0) out.push(`--cpu=${Math.ceil(limits.cpuSeconds)}`);
  if (limits.processes > 0) out.push(`--nproc=${limits.processes}`);
  return out;
}

/**
 * The complete argv after `bwrap`: options, `--`, prlimit with the limits, `--`, the program and
 * its arguments. Throws on a job that would not be confined as described above (a relative
 * path, a working folder outside the scope, a scope holding or inside /proc, /sys or /dev).
 */
export function bwrapArgs(policy: SandboxPolicy, job: SandboxJob): string[] {
  assertAbsolute('the scope', job.scope);
  assertAbsolute('the working folder', job.cwd);
  if (!isInside(job.scope, job.cwd)) throw new Error('sandbox: the working folder is outside the scope');
  for (const k of KERNEL_DIRS) {
    if (isInside(k, job.scope) || isInside(job.scope, k)) throw new Error(`sandbox: a scope cannot contain or lie in ${k}`);
  }
  for (const r of job.reserved) {
    assertAbsolute('a reserved path', r.path);
    if (!isInside(job.scope, r.path)) throw new Error('sandbox: a reserved path outside the scope');
  }

  const namespaces = [
    '--unshare-all', // user, pid, ipc, uts, cgroup and net namespaces
    '--unshare-user', // required, not "try": the uid mapping below depends on it
    '--disable-userns', // no nested user namespace (no "root" inside one, less kernel surface); bubblewrap ≥ 0.8
    ...(policy.network ? ['--share-net'] : []),
    '--uid', String(SANDBOX_ID),
    '--gid', String(SANDBOX_ID),
    '--hostname', 'sandbox',
    '--cap-drop', 'ALL', // also when Coffer runs as root
    '--seccomp', String(SECCOMP_FD),
    '--new-session',
    '--die-with-parent',
  ];

  const mounts: Mount[] = [];
  for (const d of policy.host.systemDirs) {
    assertAbsolute('a system folder', d.path);
    mounts.push({ dest: d.path, args: d.link !== undefined ? ['--symlink', d.link, d.path] : ['--ro-bind', d.path, d.path] });
  }
  for (const f of [...ETC_BASE, ...(policy.network ? ETC_NETWORK : [])]) mounts.push({ dest: f, args: ['--ro-bind-try', f, f] });
  mounts.push({ dest: '/proc', args: ['--proc', '/proc', '--remount-ro', '/proc'] });
  mounts.push({ dest: '/dev', args: ['--dev', '/dev'] });
  mounts.push({ dest: '/tmp', args: ['--tmpfs', '/tmp'] });
  mounts.push({ dest: job.scope, args: [scopeWritable(job) ? '--bind-fd' : '--ro-bind-fd', String(SCOPE_FD), job.scope] });
  for (const r of job.reserved) {
    // An existing file is covered by /dev/null, a folder by an empty read-only tmpfs; a missing one
    // cannot be covered (a mount needs something to sit on), but the scope is read-only then, so
    // nothing can be made at that name from inside.
    if (r.kind === 'file') mounts.push({ dest: r.path, args: ['--ro-bind', '/dev/null', r.path] });
    if (r.kind === 'dir') mounts.push({ dest: r.path, args: ['--tmpfs', r.path, '--remount-ro', r.path] });
  }
  // Shallowest first, in the order above for equal depths: a deeper mount always lands on top of
  // a shallower one, whichever way round they nest — a scope under /tmp sits on the fresh tmpfs
  // (not hidden by it), a scope under /usr is writable inside the read-only /usr, and the covers
  // of Coffer's files sit on the scope.
  const ordered = mounts.map((m, i) => ({ m, i })).sort((a, b) => depth(a.m.dest) - depth(b.m.dest) || a.i - b.i);

  return [
    ...namespaces,
    ...ordered.flatMap(({ m }) => m.args),
    '--chdir', job.cwd,
    '--',
    policy.prlimit,
    ...limitArgs(policy.limits),
    '--',
    job.program,
    ...job.args,
  ];
}

/**
 * The whole environment of a command or hook, inside the sandbox or not: never the server's
 * (COFFER_ADMIN_PASSWORD, database URLs, tokens), only these and the hook's values.
 */
export function sandboxEnv(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  return { PATH: SANDBOX_PATH, HOME: SANDBOX_HOME, LANG: 'C.UTF-8', ...extra };
}
