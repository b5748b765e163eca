/** What the jobs panel says about a job (docs/client.md §2 "Jobs panel"): pure, for tests. */
import type { TFunction } from 'i18next';
import type { Job } from '@coffer/protocol';

type Translate = TFunction;

/** The last name of a virtual path ("/a/b.zip" → "b.zip", "/a/dir/" → "dir"). */
export function baseName(virtualPath: string): string {
  const parts = virtualPath.split('/').filter(Boolean);
  return parts.at(-1) ?? '/';
}

function input(job: Job, key: string): string {
  const value = job.inputs[key];
  return typeof value === 'string' ? value : '';
}

/** The row's title: "Extract a.zip", "Compress to b.tar.gz", or the kind for a kind this client does not know. */
export function jobTitle(job: Job, t: Translate): string {
  if (job.kind === 'extract') return t('jobs.extract', { name: baseName(input(job, 'source')) });
  if (job.kind === 'compress') return t('jobs.compress', { name: baseName(input(job, 'destination')) });
  return job.kind;
}

/** 0–100; an ended job is full, a job of unknown size empty. */
export function jobPercent(job: Job): number {
  if (job.state === 'done') return 100;
  const { done, total } = job.progress;
  if (total <= 0) return 0;
  return Math.min(100, Math.floor((done / total) * 100));
}

export const isUnfinished = (job: Job): boolean => job.state === 'queued' || job.state === 'running';

/** The line under the title. */
export function jobDetail(job: Job, t: Translate, size: (bytes: number) => string): string {
  switch (job.state) {
    case 'queued':
      return t('jobs.waiting');
    case 'running':
      return job.progress.total > 0
        ? t('upload.sentOf', { sent: size(job.progress.done), total: size(job.progress.total) })
        : t('jobs.starting');
    case 'done':
      return job.result?.skipped?.length ? t('jobs.doneSkipped', { count: job.result.skipped.length }) : t('jobs.done');
    case 'cancelled':
      return t('jobs.cancelled');
    case 'failed':
      return t('jobs.failed', { error: job.error ?? '' });
  }
}
