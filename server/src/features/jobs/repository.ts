/** Kysely queries on `jobs` — the only SQL about jobs. */
import type { Selectable } from 'kysely';
import type { JobResult, JobState } from '@coffer/protocol';
import { inKeyedTransaction, type Db } from '../../db/index.js';
import type { JobsTable } from '../../db/schema.js';

export interface JobRecord {
  id: string;
  kind: string;
  userId: number;
  /** The owner's name (joined in lists; "" when the user is gone). */
  username: string;
  inputs: Record<string, unknown>;
  state: JobState;
  done: number;
  total: number;
  error: string | null;
  result: JobResult | null;
  instance: string;
  cancelRequested: boolean;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
}

export const UNFINISHED: JobState[] = ['queued', 'running'];
/** inKeyedTransaction's key for "count a user's jobs, then add one" (jobs/service.ts limits). */
const JOB_TAKING_KEY = 0x4a6f6254616b; // "JobTak"

function parse<T>(text: string | null, fallback: T): T {
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

function fromRow(r: Selectable<JobsTable> & { username: string | null }): JobRecord {
  return {
    id: r.id,
    kind: r.kind,
    userId: Number(r.user_id),
    username: r.username ?? '',
    inputs: parse<Record<string, unknown>>(r.inputs, {}),
    state: r.state as JobState,
    done: Number(r.progress_done),
    total: Number(r.progress_total),
    error: r.error,
    result: parse<JobResult | null>(r.result, null),
    instance: r.instance,
    cancelRequested: Number(r.cancel_requested) === 1,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    finishedAt: r.finished_at === null ? null : Number(r.finished_at),
  };
}

export interface NewJob {
  id: string;
  kind: string;
  userId: number;
  inputs: Record<string, unknown>;
  instance: string;
  now: number;
}

export function createJobRepository(db: Db) {
  const k = db.kysely;
  const selected = () =>
    k.selectFrom('jobs').leftJoin('users', 'users.id', 'jobs.user_id').selectAll('jobs').select('users.username');

  const row = (j: NewJob) => ({
    id: j.id,
    kind: j.kind,
    user_id: j.userId,
    inputs: JSON.stringify(j.inputs),
    state: 'queued' as const,
    progress_done: 0,
    progress_total: 0,
    error: null,
    result: null,
    instance: j.instance,
    cancel_requested: 0,
    created_at: j.now,
    updated_at: j.now,
    finished_at: null,
  });

  return {
    /**
     * Adds `j` unless its user already has `perUser` jobs queued or running (0: no limit); false
     * when refused. The count and the insert are one step for every process on the database
     * (db/index.ts inKeyedTransaction): two starts at once in two instances or workers cannot both
     * take the last place.
     */
    async insertUnderLimit(j: NewJob, perUser: number): Promise<boolean> {
      return inKeyedTransaction(db, JOB_TAKING_KEY, function* (t) {
        if (perUser > 0) {
          const [mine] = (yield t
            .selectFrom('jobs')
            .select((e) => e.fn.countAll<number>().as('n'))
            .where('user_id', '=', j.userId)
            .where('state', 'in', UNFINISHED)) as { n: number }[];
          if (Number(mine?.n ?? 0) >= perUser) return false;
        }
        yield t.insertInto('jobs').values(row(j));
        return true;
      });
    },

    async get(id: string): Promise<JobRecord | undefined> {
      const row = await selected().where('jobs.id', '=', id).executeTakeFirst();
      return row && fromRow(row);
    },

    /** Newest first; one user's or everyone's (`userId` undefined). */
    async list(userId: number | undefined, limit: number): Promise<JobRecord[]> {
      let q = selected().orderBy('jobs.created_at', 'desc').orderBy('jobs.id').limit(limit);
      if (userId !== undefined) q = q.where('jobs.user_id', '=', userId);
      return (await q.execute()).map(fromRow);
    },

    async setRunning(id: string, now: number): Promise<void> {
      await k.updateTable('jobs').set({ state: 'running', updated_at: now }).where('id', '=', id).execute();
    },

    async progress(id: string, done: number, total: number, now: number): Promise<void> {
      await k
        .updateTable('jobs')
        .set({ progress_done: done, progress_total: total, updated_at: now })
        .where('id', '=', id)
        .where('state', 'in', UNFINISHED)
        .execute();
    },

    /**
     * The heartbeat of one instance's jobs: their `updated_at` becomes `now`. Answers the ids whose
     * cancel was asked for (maybe through another instance).
     */
    async beat(ids: string[], now: number): Promise<string[]> {
      if (ids.length === 0) return [];
      await k.updateTable('jobs').set({ updated_at: now }).where('id', 'in', ids).where('state', 'in', UNFINISHED).execute();
      const rows = await k.selectFrom('jobs').select('id').where('id', 'in', ids).where('cancel_requested', '=', 1).execute();
      return rows.map((r) => r.id);
    },

    /** The end of a job; only an unfinished one changes (a job ends once). */
    async finish(
      id: string,
      end: { state: JobState; error: string | null; result: JobResult | null; done: number; total: number },
      now: number,
    ): Promise<void> {
      await k
        .updateTable('jobs')
        .set({
          state: end.state,
          error: end.error,
          result: end.result === null ? null : JSON.stringify(end.result),
          progress_done: end.done,
          progress_total: end.total,
          updated_at: now,
          finished_at: now,
        })
        .where('id', '=', id)
        .where('state', 'in', UNFINISHED)
        .execute();
    },

    async requestCancel(id: string, now: number): Promise<void> {
      await k
        .updateTable('jobs')
        .set({ cancel_requested: 1, updated_at: now })
        .where('id', '=', id)
        .where('state', 'in', UNFINISHED)
        .execute();
    },

    /**
     * Jobs whose process stopped beating before `staleBefore` (it died: a crash or a restart) are
     * failed with `reason`. Answers how many.
     */
    async failStale(staleBefore: number, reason: string, now: number): Promise<number> {
      const res = await k
        .updateTable('jobs')
        .set({ state: 'failed', error: reason, updated_at: now, finished_at: now })
        .where('state', 'in', UNFINISHED)
        .where('updated_at', '<', staleBefore)
        .executeTakeFirst();
      return Number(res.numUpdatedRows);
    },

    async remove(id: string): Promise<void> {
      await k.deleteFrom('jobs').where('id', '=', id).where('state', 'not in', UNFINISHED).execute();
    },

    /** Finished jobs older than `before` are forgotten. */
    async prune(before: number): Promise<void> {
      await k.deleteFrom('jobs').where('state', 'not in', UNFINISHED).where('finished_at', '<', before).execute();
    },
  };
}

export type JobRepository = ReturnType<typeof createJobRepository>;
