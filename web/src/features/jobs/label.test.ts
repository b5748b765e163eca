import { describe, expect, it } from 'vitest';
import type { TFunction } from 'i18next';
import type { Job } from '@coffer/protocol';
import { baseName, jobDetail, jobPercent, jobTitle } from './label';

const t = ((key: string, o?: Record<string, unknown>) => `${key}${o ? JSON.stringify(o) : ''}`) as unknown as TFunction;
const size = (b: number) => `${b}B`;

function job(over: Partial<Job>): Job {
  return {
    id: 'a'.repeat(32), kind: 'extract', userId: 1, username: 'ann', inputs: { source: '/in/a.zip', destination: '/out/' },
    state: 'running', progress: { done: 0, total: 0 }, error: null, result: null,
    created: '2026-01-01T00:00:00.000Z', updated: '2026-01-01T00:00:00.000Z', finished: null, ...over,
  };
}

describe('jobs panel labels', () => {
  it('names the archive or the archive made, and shows an unknown kind as it is', () => {
    expect(jobTitle(job({}), t)).toBe('jobs.extract{"name":"a.zip"}');
    expect(jobTitle(job({ kind: 'compress', inputs: { destination: '/x/b.tar.gz' } }), t)).toBe('jobs.compress{"name":"b.tar.gz"}');
    expect(jobTitle(job({ kind: 'reindex' }), t)).toBe('reindex');
    expect(baseName('/a/dir/')).toBe('dir');
    expect(baseName('/')).toBe('/');
  });

  it('percent: empty while the size is unknown, full when done, never past 100', () => {
    expect(jobPercent(job({}))).toBe(0);
    expect(jobPercent(job({ progress: { done: 1, total: 3 } }))).toBe(33);
    expect(jobPercent(job({ progress: { done: 9, total: 3 } }))).toBe(100);
    expect(jobPercent(job({ state: 'done', progress: { done: 0, total: 0 } }))).toBe(100);
  });

  it('details per state, with the server\'s reason on failure and skipped entries counted', () => {
    expect(jobDetail(job({ state: 'queued' }), t, size)).toBe('jobs.waiting');
    expect(jobDetail(job({}), t, size)).toBe('jobs.starting');
    expect(jobDetail(job({ progress: { done: 5, total: 10 } }), t, size)).toBe('upload.sentOf{"sent":"5B","total":"10B"}');
    expect(jobDetail(job({ state: 'failed', error: 'too many entries' }), t, size)).toBe('jobs.failed{"error":"too many entries"}');
    expect(jobDetail(job({ state: 'cancelled' }), t, size)).toBe('jobs.cancelled');
    expect(jobDetail(job({ state: 'done', result: { path: '/out/', skipped: [{ name: 'x', reason: 'exists' }] } }), t, size)).toBe('jobs.doneSkipped{"count":1}');
    expect(jobDetail(job({ state: 'done', result: { path: '/out/' } }), t, size)).toBe('jobs.done');
  });
});
