/**
 * Facts about the host's own files that the command sandbox needs (features/command/confine.ts):
 * which system folders exist (and which are links), and where a program would be found. Only
 * the server's paths and the program lookup are read here; no user data.
 */
import { accessSync, close, closeSync, constants, open } from 'node:fs';
import { access, lstat, readdir, readFile, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const openFd = promisify(open);
const closeFd = promisify(close);

/** The given absolute paths that exist: a folder, or a symbolic link with its target. */
export async function describeHostPaths(paths: readonly string[]): Promise<{ path: string; link?: string }[]> {
  const out: { path: string; link?: string }[] = [];
  for (const p of paths) {
    const st = await lstat(p).catch(() => undefined);
    if (st?.isSymbolicLink()) out.push({ path: p, link: await readlink(p) });
    else if (st?.isDirectory()) out.push({ path: p });
  }
  return out;
}

/** True when `p` is a regular file (through links) that may be executed. */
export async function isExecutableFile(p: string): Promise<boolean> {
  try {
    if (!(await stat(p)).isFile()) return false;
    await access(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Where `execvp` would find `program` with this PATH in `cwd`: its real (link-resolved) path, or
 * null when there is no such executable file. A name with a `/` is taken relative to `cwd`.
 */
export async function findProgram(program: string, cwd: string, searchPath: string): Promise<string | null> {
  const candidates = program.includes('/') ? [path.resolve(cwd, program)] : searchPath.split(':').filter((d) => path.isAbsolute(d)).map((d) => path.join(d, program));
  for (const c of candidates) {
    if (await isExecutableFile(c)) return realpath(c).catch(() => null);
  }
  return null;
}

/**
 * Opens the folder whose real path is `real` and returns the descriptor, after checking that what
 * was opened is still at exactly that path: a folder renamed away, or a path component replaced
 * by a link since `real` was found, makes this throw instead of opening something else. The
 * command sandbox mounts a scope from this descriptor (bubblewrap --bind-fd). The caller closes it.
 */
export async function openFolderExactly(real: string): Promise<number> {
  const fd = await openFd(real, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  try {
    if ((await readlink(`/proc/self/fd/${fd}`)) !== real) throw new Error('the folder moved while it was being opened');
    return fd;
  } catch (err) {
    await closeFd(fd);
    throw err;
  }
}

/** Closes descriptors handed to a child process (features/command/process.ts); closed ones are fine. */
/** Whether a host program (an absolute path) can be run by this process. */
export function isExecutableSync(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function closeDescriptors(fds: readonly number[]): void {
  for (const fd of fds) {
    try {
      closeSync(fd);
    } catch {
      // Already closed.
    }
  }
}

/** O_CLOEXEC as Linux prints it in /proc/<pid>/fdinfo ("flags:", octal). */
const O_CLOEXEC = 0o2000000;

/**
 * Closes the descriptors above stderr that this process inherited open across exec (everything
 * Node and Coffer open themselves is close-on-exec): a launcher's leaked pipe or file would
 * otherwise reach every command, sandbox or not. Returns the numbers closed. Linux only; call it
 * once at start, after the log destination is open.
 */
export async function closeInheritedDescriptors(): Promise<number[]> {
  const closed: number[] = [];
  for (const name of await readdir('/proc/self/fd').catch(() => [])) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2) continue;
    const info = await readFile(`/proc/self/fdinfo/${fd}`, 'utf8').catch(() => '');
    const flags = /^flags:\s*([0-7]+)$/m.exec(info);
    if (!flags || (parseInt(flags[1]!, 8) & O_CLOEXEC) !== 0) continue;
    try {
      closeSync(fd);
      closed.push(fd);
    } catch {
      // Gone meanwhile.
    }
  }
  return closed;
}
