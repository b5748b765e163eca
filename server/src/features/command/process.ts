/**
 * One program run in its own process group (S71): spawned without a shell, output read line by
 * line, and the whole group — the program and everything it started — killed on stop, after the
 * time limit, past the output limit, and as soon as the program itself exits (so a forgotten
 * background child never outlives it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import type { Readable, Writable } from 'node:stream';
import { closeDescriptors, isExecutableSync as executable } from '../../fs/host.js';

/** A line longer than this is passed on in pieces (bounded memory for output without newlines). */
export const MAX_LINE_CHARS = 64 * 1024;
/** stderr waits behind stdout (docs/api.md §16.1 order) up to this many bytes, then flows interleaved. */
const STDERR_HOLD_BYTES = 1024 * 1024;

export type Outcome =
  | { kind: 'exited'; code: number | null; signal: NodeJS.Signals | null }
  | { kind: 'not-started'; error: Error }
  | { kind: 'timeout' }
  | { kind: 'output-limit' }
  | { kind: 'stopped' };

export type StreamName = 'stdout' | 'stderr';

export interface GroupOptions {
  cwd?: string;
  env: NodeJS.ProcessEnv;
  /** Milliseconds before the group is killed; 0 = no limit. */
  timeoutMs: number;
  /** Bytes of stdout + stderr before the group is killed; 0 = no limit. */
  outputLimit: number;
  /** Receives each output line without its terminator; absent = output is discarded. */
  onLine?: (line: string, stream: StreamName) => void;
  /** docs/api.md §16.1: all of stdout before stderr (true), or lines as they come (false). */
  stdoutFirst?: boolean;
  /** Live runs, so an owner can stop them all at shutdown. */
  registry?: Set<GroupRun>;
  /**
   * Descriptors the program gets from 3 on, in this order: an open descriptor (handed over: it is
   * closed here once the program started or failed to), or bytes the program reads from a pipe.
   */
  fds?: readonly (number | Buffer)[];
}

export interface GroupRun {
  readonly pid: number | undefined;
  /** Resolves once the program started, rejects when it could not be started. */
  readonly started: Promise<void>;
  /** Settles once the program ended and every output line was delivered; never rejects. */
  readonly done: Promise<Outcome>;
  /** Kills the group; the outcome becomes `stopped` unless the run had already ended. */
  stop(): void;
  /** Back-pressure: stop reading output (the program blocks once its pipes fill) / read again. */
  pause(): void;
  resume(): void;
}

/** SIGKILL to the whole process group; a group that is already gone is fine. */
export function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') child.kill('SIGKILL');
  }
}

class LineReader {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  constructor(private readonly emit: (line: string) => void) {}

  push(chunk: Buffer): void {
    let text = this.pending + this.decoder.write(chunk);
    let nl = text.indexOf('\n');
    while (nl >= 0) {
      this.emitLine(text.slice(0, nl));
      text = text.slice(nl + 1);
      nl = text.indexOf('\n');
    }
    while (text.length >= MAX_LINE_CHARS) {
      this.emit(text.slice(0, MAX_LINE_CHARS));
      text = text.slice(MAX_LINE_CHARS);
    }
    this.pending = text;
  }

  end(): void {
    const rest = this.pending + this.decoder.end();
    this.pending = '';
    if (rest !== '') this.emitLine(rest);
  }

  private emitLine(line: string): void {
    this.emit(line.endsWith('\r') ? line.slice(0, -1) : line);
  }
}

/**
 * A library can open a descriptor without close-on-exec (@parcel/watcher, behind the file index,
 * leaves a pipe so), and a spawned program inherits every such descriptor: a sandboxed command
 * would hold the server's pipe. Debian's bash (an essential package) closes every descriptor
 * above the ones handed over and then becomes the program, keeping its pid and process group.
 * The script is fixed text: the count to keep, the program and its arguments are positional
 * parameters, never parsed as shell.
 */
const BASH = '/bin/bash';
const ENV = '/usr/bin/env';
const CLOSE_THEN_EXEC =
  'keep=$1; pwd=$2; shift 2; for f in /proc/self/fd/*; do n=${f##*/}; if [ "$n" -gt "$keep" ] && [ -e "$f" ]; then exec {n}>&-; fi; done; ' +
  // bash exports SHLVL (even unset, at exec) and PWD of its own: coreutils' env takes them out, so
  // the program gets the environment it was given.
  'if [ "$pwd" = unset ]; then unset PWD; fi; exec /usr/bin/env -u SHLVL -- "$@"';
/** Variables that would make bash run or change something before the script. */
const BASH_STARTUP = /^(BASH_ENV|ENV|SHELLOPTS|BASHOPTS|GLOBIGNORE|BASH_FUNC_.*)$/;

/** What to spawn for `file`: through the closer when both exist (else as is, so a missing program is still 'not-started'). */
export function closingLaunch(file: string, args: readonly string[], env: NodeJS.ProcessEnv, extraFds: number): { file: string; args: string[]; env: NodeJS.ProcessEnv } {
  // env reads an operand holding `=` as a variable even after `--`: such a path is spawned as is.
  if (!file.startsWith('/') || file.includes('=') || !executable(file) || !executable(BASH) || !executable(ENV)) return { file, args: [...args], env };
  const clean = Object.fromEntries(Object.entries(env).filter(([k]) => !BASH_STARTUP.test(k)));
  return { file: BASH, args: ['--norc', '--noprofile', '-c', CLOSE_THEN_EXEC, 'coffer-launch', String(2 + extraFds), env.PWD === undefined ? 'unset' : 'keep', file, ...args], env: clean };
}

/** Starts `file` with `args` (never through a shell) as the leader of a new process group. */
export function runGroup(file: string, args: readonly string[], opts: GroupOptions): GroupRun {
  let outcome: Outcome | undefined;
  let resolveDone!: (o: Outcome) => void;
  const done = new Promise<Outcome>((r) => (resolveDone = r));
  let resolveStarted!: () => void;
  let rejectStarted!: (e: Error) => void;
  const started = new Promise<void>((res, rej) => {
    resolveStarted = res;
    rejectStarted = rej;
  });
  started.catch(() => undefined); // a caller that only awaits `done` must not see an unhandled rejection

  const extra = opts.fds ?? [];
  let child: ChildProcess;
  try {
    const launch = closingLaunch(file, args, opts.env, extra.length);
    child = spawn(launch.file, launch.args, {
      cwd: opts.cwd,
      env: launch.env,
      shell: false,
      detached: true, // its own process group: killing -pid reaches every descendant that stayed in it
      stdio: ['ignore', opts.onLine ? 'pipe' : 'ignore', opts.onLine ? 'pipe' : 'ignore', ...extra.map((f) => (typeof f === 'number' ? f : 'pipe'))],
      windowsHide: true,
    });
  } finally {
    closeDescriptors(extra.filter((f) => typeof f === 'number'));
  }
  extra.forEach((f, i) => {
    const pipe = child.stdio[3 + i] as Writable | null | undefined;
    if (typeof f === 'number' || !pipe) return;
    pipe.on('error', () => undefined); // a program that never reads it: nothing to report
    pipe.end(f);
  });

  let bytes = 0;
  let stdoutOpen = opts.onLine !== undefined;
  let held: string[] | null = opts.stdoutFirst ? [] : null;
  let heldBytes = 0;
  const deliver = (line: string, stream: StreamName) => {
    if (outcome?.kind === 'output-limit') return;
    opts.onLine?.(line, stream);
  };
  const releaseHeld = () => {
    const lines = held ?? [];
    held = null;
    for (const l of lines) deliver(l, 'stderr');
  };
  const onStderrLine = (line: string) => {
    if (held && stdoutOpen) {
      held.push(line);
      heldBytes += line.length;
      if (heldBytes > STDERR_HOLD_BYTES) releaseHeld();
      return;
    }
    deliver(line, 'stderr');
  };
  const outReader = new LineReader((l) => deliver(l, 'stdout'));
  const errReader = new LineReader(onStderrLine);

  const conclude = (o: Outcome) => {
    outcome ??= o;
  };
  let ended = false;
  const finish = () => {
    // From here on the group id may belong to someone else one day: never signal it again.
    ended = true;
    clearTimeout(timer);
    opts.registry?.delete(run);
    resolveDone(outcome ?? { kind: 'stopped' });
  };

  const onData = (reader: LineReader) => (chunk: Buffer) => {
    if (outcome?.kind === 'output-limit') return;
    bytes += chunk.length;
    if (opts.outputLimit > 0 && bytes > opts.outputLimit) {
      conclude({ kind: 'output-limit' });
      killGroup(child);
      drain();
      return;
    }
    reader.push(chunk);
  };
  const streams: Readable[] = [];
  if (child.stdout && child.stderr) {
    streams.push(child.stdout, child.stderr);
    child.stdout.on('data', onData(outReader));
    child.stderr.on('data', onData(errReader));
    child.stdout.on('end', () => {
      outReader.end();
      stdoutOpen = false;
      releaseHeld();
    });
    child.stderr.on('end', () => errReader.end());
  }

  // A killed run must still reach 'close': output paused for a slow client is read (and dropped
  // or delivered) so the pipes can end.
  const drain = () => {
    for (const s of streams) s.resume();
  };
  const timer = opts.timeoutMs > 0
    ? setTimeout(() => {
      conclude({ kind: 'timeout' });
      killGroup(child);
      drain();
    }, opts.timeoutMs)
    : undefined;

  child.on('spawn', () => resolveStarted());
  child.on('error', (error) => {
    if (child.pid === undefined) {
      // Could not be started (no such program, not executable, bad cwd).
      conclude({ kind: 'not-started', error });
      rejectStarted(error);
      finish();
    }
  });
  child.on('exit', (code, signal) => {
    conclude({ kind: 'exited', code, signal });
    // The leader is gone: whatever it left running in its group goes with it, which also
    // closes the pipes those leftovers hold, so 'close' below can fire.
    killGroup(child);
  });
  child.on('close', () => {
    outReader.end();
    errReader.end();
    stdoutOpen = false;
    releaseHeld();
    finish();
  });

  const run: GroupRun = {
    get pid() {
      return child.pid;
    },
    started,
    done,
    stop() {
      if (ended || (outcome && outcome.kind !== 'exited')) return;
      if (!outcome) conclude({ kind: 'stopped' });
      killGroup(child);
      drain();
    },
    pause() {
      for (const s of streams) s.pause();
    },
    resume() {
      drain();
    },
  };
  opts.registry?.add(run);
  return run;
}

/** A run that never started (its program is missing): `started` rejects, `done` is `not-started`. */
export function notStartedRun(error: Error): GroupRun {
  const started = Promise.reject(error);
  started.catch(() => undefined);
  return {
    pid: undefined,
    started,
    done: Promise.resolve({ kind: 'not-started', error }),
    stop() {},
    pause() {},
    resume() {},
  };
}
