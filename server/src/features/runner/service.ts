/**
 * The event-hook runner (docs/api.md §16, S72): runs `settings.commands[before_X / after_X]` line by
 * line around a file operation, only while command execution is enabled. No shell unless the
 * admin set `settings.shell`; with a shell the line goes to it unchanged and the event values
 * travel only in the environment. Each line runs in the OS sandbox over the acting user's scope
 * (features/command/confine.ts), in the scope root, with only the sandbox's environment.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { ServerConfig } from '../../config/schema.js';
import { ProgramMissing, type Confinement, type Launch } from '../command/confine.js';
import { runGroup, type GroupRun, type Outcome } from '../command/process.js';
import { CommandParseError, shellInEffect, splitCommandLine } from '../command/split.js';
import { sandboxEnv } from '../command/sandbox.js';
import { expandVariables, parseHookLine } from './expand.js';

/** docs/api.md §16.6: the values one event hands to its hooks. */
export interface HookValues {
  /** Absolute on-disk path of the item. */
  file: string;
  /** The acting user's scope as stored in the user record. */
  scope: string;
  username: string;
  /** Absolute on-disk destination (copy/rename), else the scope root's on-disk path. */
  destination: string;
  /** Real path of the scope root: the part of the served tree the hook sees, and its working folder. */
  root: string;
}

/** A hook line that failed; the message says which line and why (it goes to the log, not the client). */
export class HookError extends Error {
  constructor(
    readonly trigger: string,
    readonly line: string,
    reason: string,
  ) {
    super(`${trigger} hook ${JSON.stringify(line)} failed: ${reason}`);
  }
}

export interface RunnerDeps {
  config: Pick<ServerConfig, 'disableExec' | 'commandTimeout' | 'commandOutputLimit'>;
  settings: { settings(): Promise<{ shell: string[]; commands: Record<string, string[]> }> };
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
  confinement: Confinement;
}

function reasonOf(o: Outcome, limits: RunnerDeps['config']): string {
  switch (o.kind) {
    case 'exited':
      return o.code !== null ? `exited with status ${o.code}` : `ended by signal ${o.signal}`;
    case 'not-started':
      return `could not start (${o.error.message})`;
    case 'timeout':
      return `killed after the time limit of ${limits.commandTimeout} s`;
    case 'output-limit':
      return `killed after printing more than ${limits.commandOutputLimit} bytes`;
    case 'stopped':
      return 'stopped at shutdown';
  }
}

export function createRunner(deps: RunnerDeps) {
  const live = new Set<GroupRun>();

  /** Starts one hook line; resolves when it is done (blocking) or started (non-blocking). */
  async function runLine(trigger: string, raw: string, values: HookValues, shell: readonly string[]): Promise<void> {
    const { line, blocking } = parseHookLine(raw);
    let words: string[];
    try {
      words = splitCommandLine(line);
    } catch (err) {
      if (err instanceof CommandParseError) throw new HookError(trigger, raw, err.message);
      throw err;
    }
    const eventEnv: Record<string, string> = {
      FILE: values.file,
      SCOPE: values.scope,
      TRIGGER: trigger,
      USERNAME: values.username,
      DESTINATION: values.destination,
    };
    let file: string;
    let args: string[];
    if (shellInEffect(shell)) {
      // S72: the line reaches the shell unchanged; the values only as environment variables.
      file = shell[0]!;
      args = [...shell.slice(1), line];
    } else {
      // Other names come from the hook's own (sandbox) environment, never the server's.
      const env = sandboxEnv(eventEnv);
      const lookup = (name: string) => (Object.hasOwn(env, name) ? env[name] : undefined);
      file = words[0]!;
      args = words.slice(1).map((w) => expandVariables(w, lookup));
    }
    let launch: Launch;
    try {
      // The acting user's scope, writable: hooks run for write operations the user was allowed.
      launch = await deps.confinement.prepare({ program: file, args, scope: values.root, cwd: values.root, writable: true, env: eventEnv });
    } catch (err) {
      throw new HookError(trigger, raw, err instanceof ProgramMissing ? `could not start (${err.message})` : `could not be confined (${(err as Error).message})`);
    }
    const log = deps.log;
    const run = runGroup(launch.file, launch.args, {
      cwd: launch.cwd,
      fds: launch.fds,
      env: launch.env,
      timeoutMs: deps.config.commandTimeout * 1000,
      outputLimit: deps.config.commandOutputLimit,
      // The hook's output belongs to the server log (docs/api.md §16.6), never to the HTTP client.
      onLine: (text, stream) => log.info({ trigger, stream, text }, 'hook output'),
      registry: live,
    });
    try {
      await run.started;
    } catch {
      const o = await run.done;
      throw new HookError(trigger, raw, reasonOf(o, deps.config));
    }
    if (!blocking) {
      void run.done.then((o) => {
        if (o.kind === 'exited' && o.code === 0) log.info({ trigger, line: raw }, 'background hook finished');
        else log.warn({ trigger, line: raw, reason: reasonOf(o, deps.config) }, 'background hook failed');
      });
      return;
    }
    const o = await run.done;
    if (o.kind !== 'exited' || o.code !== 0) throw new HookError(trigger, raw, reasonOf(o, deps.config));
  }

  return {
    /** Hooks started and not yet ended (tests and shutdown). */
    live,

    /**
     * Runs every line of `settings.commands[trigger]` in order (docs/api.md §16.5); the first failure
     * skips the rest and throws a HookError. Does nothing while execution is disabled (S70).
     */
    async run(trigger: string, values: HookValues): Promise<void> {
      if (deps.config.disableExec) return;
      const { shell, commands } = await deps.settings.settings();
      const lines = (commands[trigger] ?? []).filter((l) => l.trim() !== '');
      for (const raw of lines) {
        try {
          await runLine(trigger, raw, values, shell ?? []);
        } catch (err) {
          deps.log.warn({ trigger, reason: (err as Error).message }, 'hook failed');
          throw err;
        }
      }
    },

    /** Kills every hook still running (shutdown). */
    stopAll(): void {
      for (const run of live) run.stop();
    },
  };
}

export type Runner = ReturnType<typeof createRunner>;
