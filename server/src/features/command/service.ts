/**
 * The shell socket's rules (docs/api.md §16, S70, S71): who may run what, how the line becomes
 * argv, and how the program is started — in the OS sandbox over the user's scope (confine.ts), in
 * its own process group with a time and an output limit.
 */
import type { Permissions } from '@coffer/protocol';
import type { ServerConfig } from '../../config/schema.js';
import { ProgramMissing, type Confinement } from './confine.js';
import { notStartedRun, runGroup, type GroupRun, type StreamName } from './process.js';
import { CommandParseError, invocation, splitCommandLine, type Invocation } from './split.js';

/** docs/api.md §16.1: the one refusal text, for "execution off", "no execute permission" and "not allowed". */
export const NOT_ALLOWED = 'Command not allowed.';

export interface CommandDeps {
  config: Pick<ServerConfig, 'disableExec' | 'commandTimeout' | 'commandOutputLimit'>;
  settings: { settings(): Promise<{ shell: string[] }> };
  /** Null while execution is off (then `check` refuses every line). */
  confinement: Confinement | null;
}

export interface CommandUser {
  perm: Pick<Permissions, 'execute'>;
  commands: readonly string[];
}

/** Where a command runs: real paths of the user's scope root and of the folder on screen. */
export interface CommandPlace {
  scope: string;
  cwd: string;
  perm: Pick<Permissions, 'create' | 'rename' | 'modify' | 'delete'>;
}

/** The scope is mounted read-only unless the user may change something in it. */
export function mayWrite(perm: CommandPlace['perm']): boolean {
  return perm.create || perm.rename || perm.modify || perm.delete;
}

export type CheckResult = { ok: true; invocation: Invocation; words: string[] } | { ok: false; message: string };

export function createCommandService(deps: CommandDeps) {
  const live = new Set<GroupRun>();
  return {
    /** Commands running now (tests and shutdown). */
    live,

    /** docs/api.md §16.1 step 2, the checks in their order; the first failure's text is the answer. */
    async check(user: CommandUser, line: string): Promise<CheckResult> {
      if (deps.config.disableExec || !user.perm.execute) return { ok: false, message: NOT_ALLOWED };
      let words: string[];
      try {
        words = splitCommandLine(line);
      } catch (err) {
        if (err instanceof CommandParseError) return { ok: false, message: err.message };
        throw err;
      }
      // S71: exact string equality — no path (`/bin/ls` ≠ `ls`), no wrapper (`env ls` ≠ `ls`).
      if (!user.commands.includes(words[0]!)) return { ok: false, message: NOT_ALLOWED };
      const { shell } = await deps.settings.settings();
      return { ok: true, invocation: invocation(line, words, shell ?? []), words };
    },

    /** Starts a checked invocation; output lines go to `onLine`, stdout before stderr. */
    async start(inv: Invocation, at: CommandPlace, onLine: (line: string, stream: StreamName) => void): Promise<GroupRun> {
      if (!deps.confinement) throw new Error('command execution is off');
      let launch;
      try {
        launch = await deps.confinement.prepare({ program: inv.file, args: inv.args, scope: at.scope, cwd: at.cwd, writable: mayWrite(at.perm) });
      } catch (err) {
        if (err instanceof ProgramMissing) return notStartedRun(err);
        throw err;
      }
      return runGroup(launch.file, launch.args, {
        cwd: launch.cwd,
        fds: launch.fds,
        env: launch.env,
        timeoutMs: deps.config.commandTimeout * 1000,
        outputLimit: deps.config.commandOutputLimit,
        onLine,
        stdoutFirst: true,
        registry: live,
      });
    },

    /** Kills every running command (shutdown). */
    stopAll(): void {
      for (const run of live) run.stop();
    },
  };
}

export type CommandService = ReturnType<typeof createCommandService>;
