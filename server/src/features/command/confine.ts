/**
 * Starting commands and hooks confined (issue 17 item 1): at server start, finds bubblewrap and
 * prlimit and proves with one real run that a sandbox can be set up — or refuses to start with
 * a message naming what is missing, unless the operator asked for unconfined execution. Per run,
 * turns a program + scope into the argv to spawn (the argument list itself: sandbox.ts).
 */
import path from 'node:path';
import { arch } from 'node:process';
import type { ServerConfig } from '../../config/schema.js';
import { describeHostPaths, findProgram, isExecutableFile, openFolderExactly } from '../../fs/host.js';
import { reservedWithin } from '../../fs/reserved.js';
import { serverRootReal } from '../../fs/resolve.js';
import { runGroup } from './process.js';
import { bwrapArgs, SANDBOX_PATH, sandboxEnv, SYSTEM_DIRS, type SandboxPolicy } from './sandbox.js';
import { buildFilter, hostAbis } from './seccomp.js';

/** Where prlimit (util-linux) may live; it must be under a folder the sandbox mounts. */
const PRLIMIT_CANDIDATES = ['/usr/bin/prlimit', '/bin/prlimit'];
const PROBE_TIMEOUT_MS = 15_000;

export type ConfineConfig = Pick<
  ServerConfig,
  'root' | 'disableExec' | 'unsafeUnconfinedExec' | 'bwrapPath' | 'commandNetwork' | 'commandMemoryLimit' | 'commandCpuLimit' | 'commandProcessLimit'
>;

/** The server cannot confine commands: the start is refused (unless --unsafe-unconfined-exec). */
export class SandboxUnavailable extends Error {}

/** The program of a run does not exist where the run could see it: the run never starts. */
export class ProgramMissing extends Error {
  constructor(program: string) {
    super(`${program}: no such program`);
  }
}

export interface ExecJob {
  program: string;
  args: readonly string[];
  /** Real path of the scope root (the only part of the served tree the run sees). */
  scope: string;
  /** Real path of the working folder, inside the scope. */
  cwd: string;
  /** The scope may be written (some write permission); else it is mounted read-only. */
  writable: boolean;
  /** The hook's values; the rest of the environment is sandboxEnv()'s. */
  env?: Readonly<Record<string, string>>;
}

/** What to spawn: runGroup(file, args, { cwd, env, fds }). */
export interface Launch {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Descriptors from 3 on (sandbox.ts SECCOMP_FD, SCOPE_FD): runGroup hands them over and closes them. */
  fds?: (number | Buffer)[];
}

export interface Confinement {
  /** False only with --unsafe-unconfined-exec. */
  readonly confined: boolean;
  /** Throws ProgramMissing when the program cannot be started. */
  prepare(job: ExecJob): Promise<Launch>;
}

const isInside = (dir: string, p: string) => p === dir || p.startsWith(dir + path.sep);

function createBwrapConfinement(policy: SandboxPolicy, seccomp: Buffer): Confinement {
  // Folders whose content the sandbox shows at the same path (links like /bin lead into /usr).
  const systemTrees = policy.host.systemDirs.filter((d) => d.link === undefined).map((d) => d.path);
  return {
    confined: true,
    async prepare(job) {
      // Found before the start, so that a missing program is "could not start" as without a
      // sandbox (a non-blocking hook fails the request), not a later exit status 127.
      const found = await findProgram(job.program, job.cwd, SANDBOX_PATH);
      if (!found || ![...systemTrees, job.scope].some((t) => isInside(t, found))) throw new ProgramMissing(job.program);
      const args = bwrapArgs(policy, {
        program: job.program,
        args: job.args,
        scope: job.scope,
        cwd: job.cwd,
        writable: job.writable,
        reserved: await reservedWithin(job.scope),
      });
      // The scope is mounted from this descriptor, not by its path: whatever is at that path when
      // bubblewrap starts (a link swapped in by a user who can write the folder above) is not used.
      const scope = await openFolderExactly(job.scope).catch((err: Error) => {
        throw new Error(`the scope folder cannot be opened (${err.message})`);
      });
      return { file: policy.bwrap, args, cwd: '/', env: sandboxEnv(job.env), fds: [seccomp, scope] };
    },
  };
}

const unconfined: Confinement = {
  confined: false,
  async prepare(job) {
    return { file: job.program, args: [...job.args], cwd: job.cwd, env: sandboxEnv(job.env) };
  },
};

async function run(launch: Launch): Promise<void> {
  const said: string[] = [];
  const outcome = await runGroup(launch.file, launch.args, {
    cwd: launch.cwd,
    env: launch.env,
    fds: launch.fds,
    timeoutMs: PROBE_TIMEOUT_MS,
    outputLimit: 64 * 1024,
    onLine: (line, stream) => void (stream === 'stderr' && said.push(line)),
  }).done;
  if (outcome.kind === 'exited' && outcome.code === 0) return;
  const reason = outcome.kind === 'exited' ? `exit status ${outcome.code ?? outcome.signal}` : outcome.kind === 'not-started' ? outcome.error.message : outcome.kind;
  throw new Error(said.find((l) => l.trim() !== '') ?? reason);
}

function refusal(what: string): SandboxUnavailable {
  return new SandboxUnavailable(
    `command execution is on (--disable-exec=false), but commands and hooks cannot be confined: ${what}. ` +
      'Install bubblewrap (Debian: apt-get install bubblewrap) or point --bwrap-path at it; or pass --unsafe-unconfined-exec ' +
      "to run them unconfined, with every right of the server's account (docs/commands.md)",
  );
}

/**
 * The confinement for this server: null while execution is off; unconfined only when the
 * operator said so; else bubblewrap, proven to work by running `true` in a sandbox over the
 * server root exactly as a command would run. Throws SandboxUnavailable when that fails.
 */
export async function createConfinement(config: ConfineConfig): Promise<Confinement | null> {
  if (config.disableExec) return null;
  if (config.unsafeUnconfinedExec) return unconfined;
  if (!path.isAbsolute(config.bwrapPath) || !(await isExecutableFile(config.bwrapPath))) {
    throw refusal(`bubblewrap was not found at ${JSON.stringify(config.bwrapPath)}`);
  }
  let prlimit: string | undefined;
  for (const c of PRLIMIT_CANDIDATES) if (!prlimit && (await isExecutableFile(c))) prlimit = c;
  if (!prlimit) throw refusal(`prlimit (util-linux) was not found at ${PRLIMIT_CANDIDATES.join(' or ')}`);
  const systemDirs = await describeHostPaths(SYSTEM_DIRS);
  if (!systemDirs.some((d) => d.path === '/usr' && d.link === undefined)) throw refusal('/usr is not a folder');
  const abis = hostAbis();
  if (!abis) throw refusal(`no seccomp filter is known for this processor architecture (${arch})`);
  const policy: SandboxPolicy = {
    bwrap: config.bwrapPath,
    prlimit,
    network: config.commandNetwork,
    limits: { memoryBytes: config.commandMemoryLimit, cpuSeconds: config.commandCpuLimit, processes: config.commandProcessLimit },
    host: { systemDirs },
  };
  const confinement = createBwrapConfinement(policy, buildFilter(abis));
  try {
    const root = await serverRootReal(config.root);
    await run(await confinement.prepare({ program: 'true', args: [], scope: root, cwd: root, writable: false }));
  } catch (err) {
    throw refusal(`a test run in the sandbox failed (${(err as Error).message})`);
  }
  return confinement;
}
