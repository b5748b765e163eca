/** A job record → the API's Job (docs/api.md §18 E10); the only place that decides what leaves the server. */
import type { Job } from '@coffer/protocol';
import type { JobRecord } from './repository.js';

const iso = (ms: number) => new Date(ms).toISOString();

export function presentJob(j: JobRecord): Job {
  return {
    id: j.id,
    kind: j.kind,
    userId: j.userId,
    username: j.username,
    inputs: j.inputs,
    state: j.state,
    progress: { done: j.done, total: j.total },
    error: j.error,
    result: j.result,
    created: iso(j.createdAt),
    updated: iso(j.updatedAt),
    finished: j.finishedAt === null ? null : iso(j.finishedAt),
  };
}
