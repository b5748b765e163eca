/**
 * The shell socket's rules (api.md §18, S70, S71): who may run what, how the line becomes argv,
 * and how the program is started in its own process group with a time and an output limit.
 */
import type { Permissions } from '@coffer/protocol';
import type { ServerConfig } from '../../config/schema.js';
import { runGroup, type GroupRun, type StreamName } from './process.js';
import { CommandParseError, invocation, splitCommandLine, type Invocation } from './split.js';

/** api.md §18: the one refusal text, for "execution off", "no execute permission" and "not allowed". */
export const NOT_ALLOWED = 'Command not allowed.';

export interface CommandDeps {
  config: Pick<ServerConfig, 'disableExec' | 'commandTimeout' | 'commandOutputLimit'>;
  settings: { settings(): Promise<{ shell: string[] }> };
}

export interface CommandUser {
  perm: Pick<Permissions, 'execute'>;
  commands: readonly string[];
}

export type CheckResult = { ok: true; invocation: Invocation; words: string[] } | { ok: false; message: string };

/**
 * The child's environment: the server's, less Coffer's own variables, which may hold the admin
 * password, the database URL or the metrics token (a user allowed `env` must not read them).
 */
export function commandEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([k]) => !k.toUpperCase().startsWith('COFFER_')));
}

export function createCommandService(deps: CommandDeps) {
  const live = new Set<GroupRun>();
  return {
    /** Commands running now (tests and shutdown). */
    live,

    /** api.md §18 step 2, the checks in their order; the first failure's text is the answer. */
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

    /** Starts a checked invocation in `cwd`; output lines go to `onLine`, stdout before stderr. */
    start(inv: Invocation, cwd: string, onLine: (line: string, stream: StreamName) => void): GroupRun {
      return runGroup(inv.file, inv.args, {
        cwd,
        env: commandEnv(),
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
