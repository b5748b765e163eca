/**
 * Jobs (docs/api.md §18 E10): long work that runs in the server, with a record in the database
 * that the owner (and an admin) can read and cancel.
 *
 * - A feature starts a job with `start(user, kind, inputs, work)`; `work` gets an AbortSignal and a
 *   `progress` callback and answers the job's result. Its errors become the job's `error`: the
 *   message of a 4xx HttpError or of a 507 (a full disk; written for users, never a server path),
 *   else "internal error" (logged).
 * - Limits: one user has at most `perUser` jobs queued or running (counted in the database, so
 *   across instances; past it 429); one instance runs at most `total` at once, the others wait
 *   queued in start order.
 * - Heartbeat: every `heartbeatMs` the instance writes `updated_at` of its jobs and reads their
 *   `cancel_requested` (a cancel that reached another instance). A job whose heartbeat is older
 *   than three beats belongs to a process that died: it is marked failed ("the server stopped")
 *   at the next start or sweep — never silently lost. A graceful close cancels the running jobs
 *   (their work cleans up) and marks them failed the same way.
 */
import { randomBytes } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { JobResult } from '@coffer/protocol';
import { Conflict, HttpError, NotFound, TooManyRequests } from '../../http/errors.js';
import type { UserRecord } from '../users/repository.js';
import type { JobRecord, JobRepository } from './repository.js';

/** Seconds a user over the job limit is told to wait. */
export const JOB_RETRY_AFTER_S = 5;
/** Default heartbeat; a job is given up after three missed beats. */
export const JOB_HEARTBEAT_MS = 10_000;
/** Progress reaches the database at most this often per job. */
const PROGRESS_WRITE_MS = 500;
/** Finished jobs are forgotten after a week. */
const KEEP_FINISHED_MS = 7 * 24 * 3600 * 1000;
/** Rows GET /api/jobs answers at most. */
export const JOB_LIST_LIMIT = 200;

export const STOPPED = 'the server stopped before the job finished';

const noop = () => undefined;
const SILENT = {
  level: 'silent', fatal: noop, error: noop, warn: noop, info: noop, debug: noop, trace: noop, silent: noop,
  child: () => SILENT,
} as unknown as FastifyBaseLogger;

export interface JobContext {
  /** The job's id (32 hex digits). */
  id: string;
  signal: AbortSignal;
  /** Units done so far and, when known, in all (bytes for extraction). */
  progress(done: number, total?: number): void;
  log: FastifyBaseLogger;
}
export type JobWork = (ctx: JobContext) => Promise<JobResult | null>;

interface Local {
  id: string;
  work: JobWork;
  controller: AbortController;
  /** Why it was aborted: a user's cancel, or the server closing. */
  abortedBy?: 'cancel' | 'close';
  done: number;
  total: number;
  lastWrite: number;
  finished?: Promise<void>;
}

export interface JobServiceDeps {
  repo: JobRepository;
  limits: { perUser: number; total: number };
  heartbeatMs?: number;
  now?: () => number;
  /**
   * Called after this process marked jobs of a stopped process failed: their staging folders (fs/extract.ts
   * sweepStaging) were still live at this start, as a process restarted, or a worker replaced,
   * within the heartbeat finds its predecessor's jobs.
   */
  afterStale?: () => Promise<unknown>;
}

export function createJobService(deps: JobServiceDeps) {
  const { repo, limits } = deps;
  /** Silent until the app hands over its logger (`useLog`): the service exists before the app. */
  let log: FastifyBaseLogger = SILENT;
  const now = deps.now ?? Date.now;
  const heartbeatMs = deps.heartbeatMs ?? JOB_HEARTBEAT_MS;
  /** This process; names the jobs it runs. */
  const instance = randomBytes(8).toString('hex');
  const local = new Map<string, Local>();
  const queue: Local[] = [];
  let running = 0;
  let closing = false;
  /** Starts one after the other, so two at once cannot both pass the per-user count. */
  let starting: Promise<unknown> = Promise.resolve();

  const isVisible = (viewer: UserRecord, job: JobRecord) => viewer.perm.admin || job.userId === viewer.id;

  async function visible(viewer: UserRecord, id: string): Promise<JobRecord> {
    const job = await repo.get(id);
    if (!job || !isVisible(viewer, job)) throw new NotFound();
    return job;
  }

  function pump(): void {
    while (!closing && queue.length > 0 && (limits.total <= 0 || running < limits.total)) {
      const job = queue.shift()!;
      running++;
      job.finished = run(job).finally(() => {
        running--;
        local.delete(job.id);
        pump();
      });
    }
  }

  async function writeProgress(job: Local): Promise<void> {
    job.lastWrite = now();
    await repo.progress(job.id, job.done, job.total, job.lastWrite);
  }

  function errorText(err: unknown, job: Local): string {
    if (err instanceof HttpError && (err.status < 500 || err.status === 507)) return err.message || STATUS_CODES[err.status] || 'refused';
    log.error({ err, job: job.id }, 'job failed');
    return 'internal error';
  }

  async function run(job: Local): Promise<void> {
    const { signal } = job.controller;
    let end: Parameters<JobRepository['finish']>[1];
    try {
      await repo.setRunning(job.id, now());
      signal.throwIfAborted();
      const result = await job.work({
        id: job.id,
        signal,
        log: log.child({ job: job.id }),
        progress(done, total) {
          job.done = done;
          if (total !== undefined) job.total = total;
          if (now() - job.lastWrite >= PROGRESS_WRITE_MS) {
            writeProgress(job).catch((err: unknown) => log.warn({ err, job: job.id }, 'job progress not written'));
          }
        },
      });
      // Work that returned is done, even if a cancel came while it was finishing.
      end = { state: 'done', error: null, result, done: job.total || job.done, total: job.total };
    } catch (err) {
      if (signal.aborted) {
        end = job.abortedBy === 'close'
          ? { state: 'failed', error: STOPPED, result: null, done: job.done, total: job.total }
          : { state: 'cancelled', error: null, result: null, done: job.done, total: job.total };
      } else {
        end = { state: 'failed', error: errorText(err, job), result: null, done: job.done, total: job.total };
      }
    }
    try {
      await repo.finish(job.id, end, now());
    } catch (err) {
      // The heartbeat stops with it: the sweep marks it failed later.
      log.error({ err, job: job.id }, 'job end not written');
    }
  }

  async function beat(): Promise<void> {
    const t = now();
    if (local.size > 0) {
      const cancelled = await repo.beat([...local.keys()], t);
      for (const id of cancelled) abort(id, 'cancel');
    }
    const lost = await repo.failStale(t - 3 * heartbeatMs, STOPPED, t);
    if (lost > 0) {
      log.warn({ jobs: lost }, 'jobs of a stopped server marked failed');
      await deps.afterStale?.().catch((err: unknown) => log.warn({ err }, 'staging folders of failed jobs not removed'));
    }
    await repo.prune(t - KEEP_FINISHED_MS);
  }

  function abort(id: string, by: 'cancel' | 'close'): void {
    const job = local.get(id);
    if (!job || job.controller.signal.aborted) return;
    job.abortedBy = by;
    job.controller.abort(new Error(by === 'cancel' ? 'cancelled' : STOPPED));
    const waiting = queue.indexOf(job);
    if (waiting >= 0) {
      // Never started: it ends here.
      queue.splice(waiting, 1);
      local.delete(id);
      const state = by === 'cancel' ? 'cancelled' : 'failed';
      job.finished = repo
        .finish(id, { state, error: by === 'cancel' ? null : STOPPED, result: null, done: 0, total: 0 }, now())
        .catch((err: unknown) => log.error({ err, job: id }, 'job end not written'));
    }
  }

  const timer = setInterval(() => {
    beat().catch((err: unknown) => log.warn({ err }, 'job heartbeat failed'));
  }, heartbeatMs);
  timer.unref();

  return {
    instance,

    useLog(logger: FastifyBaseLogger): void {
      log = logger;
    },

    /** At start: jobs of a process that stopped beating are failed, not left "running". */
    async recover(): Promise<void> {
      await beat();
    },

    /** Queues `work` as a job of `user`; 429 past the user's limit. */
    async start(user: UserRecord, kind: string, inputs: Record<string, unknown>, work: JobWork): Promise<JobRecord> {
      if (closing) throw new HttpError(503, 'the server is stopping');
      const started = starting.then(async () => {
        const id = randomBytes(16).toString('hex');
        if (!(await repo.insertUnderLimit({ id, kind, userId: user.id, inputs, instance, now: now() }, limits.perUser))) {
          throw new TooManyRequests(JOB_RETRY_AFTER_S);
        }
        const job: Local = { id, work, controller: new AbortController(), done: 0, total: 0, lastWrite: 0 };
        local.set(id, job);
        queue.push(job);
        pump();
        return id;
      });
      starting = started.catch(() => undefined);
      const id = await started;
      return (await repo.get(id))!;
    },

    async list(viewer: UserRecord, all: boolean): Promise<JobRecord[]> {
      return repo.list(all && viewer.perm.admin ? undefined : viewer.id, JOB_LIST_LIMIT);
    },

    get: visible,

    /** True while job `id` is queued or running, in any instance. */
    async isUnfinished(id: string): Promise<boolean> {
      const job = await repo.get(id);
      return job !== undefined && (job.state === 'queued' || job.state === 'running');
    },

    /** Cancels a queued or running job (its work removes what it began); 409 when it has ended. */
    async cancel(viewer: UserRecord, id: string): Promise<JobRecord> {
      const job = await visible(viewer, id);
      if (job.state !== 'queued' && job.state !== 'running') throw new Conflict('the job has ended');
      await repo.requestCancel(id, now());
      const mine = local.get(id);
      if (mine) {
        abort(id, 'cancel');
        await mine.finished;
      }
      return (await repo.get(id))!;
    },

    /** Forgets an ended job; 409 while it runs. */
    async remove(viewer: UserRecord, id: string): Promise<void> {
      const job = await visible(viewer, id);
      if (job.state === 'queued' || job.state === 'running') throw new Conflict('the job has not ended');
      await repo.remove(id);
    },

    /** Graceful close: running and queued jobs stop and are marked failed. */
    async close(): Promise<void> {
      closing = true;
      clearInterval(timer);
      const jobs = [...local.values()];
      for (const job of jobs) abort(job.id, 'close');
      await Promise.all(jobs.map((j) => j.finished));
    },
  };
}

export type JobService = ReturnType<typeof createJobService>;
