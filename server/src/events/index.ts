/**
 * The typed hook point around file writes (docs/api.md §16.4, §16.5). Routes call
 * `events.before(name, ctx)` after their own permission, rule and conflict checks and right before
 * the filesystem change, then `events.after(name, ctx)` once it succeeded. The command runner (a
 * later issue), the share clean-up (S48) and the preview cache subscribe here; with no listener
 * both calls do nothing.
 */
import type { EventName } from '@coffer/protocol';
import type { FastifyBaseLogger } from 'fastify';
import { HttpError } from '../http/errors.js';
import type { ScopedPath } from '../fs/resolve.js';

export type FileEvent = EventName; // 'save' | 'copy' | 'rename' | 'upload' | 'delete'
export type Phase = 'before' | 'after';

/** What a listener learns about one operation (docs/api.md §16.6's FILE / DESTINATION / SCOPE / USERNAME). */
export interface FileEventContext {
  user: { id: number; username: string; scope: string };
  /** The item: the new item (upload), the saved file (save), the source (copy, rename), the deleted item (delete). */
  file: ScopedPath;
  /** The destination of copy/rename. */
  destination?: ScopedPath;
  /** Real path of the acting user's scope root (DESTINATION for events without one). */
  scopeRoot: string;
}

export type FileEventListener = (phase: Phase, event: FileEvent, ctx: FileEventContext) => void | Promise<void>;

/** A `before` listener's failure aborts the operation: 500 unless it threw an HttpError of its own. */
export class HookFailed extends HttpError {
  constructor(event: string, cause: unknown) {
    super(500, `${event} hook failed`, { cause });
  }
}

export interface AfterOptions {
  /** tus completion: failures are logged only (docs/api.md §16.5). */
  ignoreFailures?: boolean;
}

type Log = Pick<FastifyBaseLogger, 'warn' | 'error'>;

export function createEventBus(initialLog?: Log) {
  const listeners: FileEventListener[] = [];
  let log = initialLog;
  async function run(phase: Phase, event: FileEvent, ctx: FileEventContext): Promise<void> {
    for (const l of listeners) await l(phase, event, ctx);
  }
  return {
    /** Adds a listener; returns a function that removes it. */
    on(listener: FileEventListener): () => void {
      listeners.push(listener);
      return () => {
        const i = listeners.indexOf(listener);
        if (i >= 0) listeners.splice(i, 1);
      };
    },
    /** Runs `before_<event>` listeners in order; the first failure aborts the operation (throws). */
    async before(event: FileEvent, ctx: FileEventContext): Promise<void> {
      try {
        await run('before', event, ctx);
      } catch (err) {
        log?.warn({ err, event }, 'before hook failed; operation not performed');
        throw err instanceof HttpError ? err : new HookFailed(`before_${event}`, err);
      }
    },
    /**
     * Runs `after_<event>` listeners. A failure is logged; by default it then fails the request
     * with 500 although the operation happened (docs/api.md §16.5), unless `ignoreFailures`.
     */
    async after(event: FileEvent, ctx: FileEventContext, opts: AfterOptions = {}): Promise<void> {
      try {
        await run('after', event, ctx);
      } catch (err) {
        log?.error({ err, event }, 'after hook failed');
        if (!opts.ignoreFailures) throw err instanceof HttpError ? err : new HookFailed(`after_${event}`, err);
      }
    },
    get size(): number {
      return listeners.length;
    },
    /** The app's logger, set once the app exists (services are built before it). */
    useLogger(l: Log): void {
      log ??= l;
    },
  };
}

export type EventBus = ReturnType<typeof createEventBus>;
