import type { CompressFormat, Job } from '@coffer/protocol';
import { encodePath, request, requestJson } from './client';

export type { Job };

/** GET /api/jobs (docs/api.md §18 E10): the caller's jobs, newest first. */
export function listJobs(signal?: AbortSignal): Promise<Job[]> {
  return requestJson<Job[]>('/jobs', { signal });
}

/** POST /api/jobs/{id}/cancel: the job, now cancelled (409 when it had already ended). */
export function cancelJob(id: string): Promise<Job> {
  return requestJson<Job>(`/jobs/${encodeURIComponent(id)}/cancel`, { method: 'POST' });
}

/** DELETE /api/jobs/{id}: forgets an ended job. */
export async function forgetJob(id: string): Promise<void> {
  await request(`/jobs/${encodeURIComponent(id)}`, { method: 'DELETE' });
}

/** POST /api/extract{archive} (docs/api.md §18 E11): the extraction's job, started. */
export function startExtract(archive: string, destination: string, conflict: 'skip' | 'rename' | 'overwrite'): Promise<Job> {
  return requestJson<Job>(`/extract${encodePath(archive)}`, { method: 'POST', json: { destination, conflict } });
}

/** POST /api/compress{folder} (docs/api.md §18 E12): the job that makes the archive `name` in `destination`. */
export function startCompress(folder: string, files: string[], destination: string, name: string, algo: CompressFormat): Promise<Job> {
  return requestJson<Job>(`/compress${encodePath(folder)}`, { method: 'POST', json: { files, destination, name, algo } });
}
