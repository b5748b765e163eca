import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api/errors';
import type { UploadJob } from './plan';
import { UploadQueue, type Finished, type Transport } from './queue';

function job(name: string, size = 10): UploadJob {
  return { path: `/${name}`, name, file: null, size, override: false };
}

/** A transport whose transfers the test finishes by hand. */
function manual() {
  const live = new Map<
    string,
    { progress: (n: number) => void; ok: () => void; fail: (e: unknown) => void }
  >();
  const aborted: string[] = [];
  const transport: Transport = (j, onProgress) => {
    let ok!: () => void;
    let fail!: (e: unknown) => void;
    const done = new Promise<void>((resolve, reject) => {
      ok = resolve;
      fail = reject;
    });
    live.set(j.name, { progress: onProgress, ok, fail });
    return {
      done,
      abort: () => {
        aborted.push(j.name);
        fail(new ApiError(0, 'Upload aborted', true));
      },
    };
  };
  return { live, aborted, transport };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

function queue(limit: number) {
  const t = manual();
  const finished: Finished[] = [];
  const q = new UploadQueue({
    transport: t.transport,
    limit: () => limit,
    onChange: () => undefined,
    onFinish: (f) => finished.push(f),
  });
  return { q, t, finished };
}

describe('the upload queue', () => {
  it('runs at most `limit` at once and starts the next when one finishes', async () => {
    const { q, t, finished } = queue(2);
    q.add([job('a'), job('b'), job('c')], { folder: '/', names: ['a', 'b', 'c'] });
    expect([...t.live.keys()]).toEqual(['a', 'b']);
    expect(q.entries.map((e) => e.status)).toEqual(['running', 'running', 'queued']);
    t.live.get('a')?.ok();
    await tick();
    expect([...t.live.keys()]).toEqual(['a', 'b', 'c']);
    t.live.get('b')?.ok();
    t.live.get('c')?.ok();
    await tick();
    expect(q.active).toBe(false);
    expect(q.entries).toEqual([]);
    expect(finished).toEqual([
      { batches: [{ folder: '/', names: ['a', 'b', 'c'] }], failed: 0, aborted: false },
    ]);
  });

  it('counts the bytes sent against the total of the entries that did not fail', async () => {
    const { q, t } = queue(5);
    q.add([job('a', 100), job('b', 50), job('c', 30)], { folder: '/', names: [] });
    t.live.get('a')?.progress(40);
    t.live.get('b')?.progress(500); // never more than the file
    expect(q.totals()).toEqual({ sent: 90, total: 180 });
    t.live.get('c')?.fail(new ApiError(413, '413 Request Entity Too Large'));
    await tick();
    expect(q.totals()).toEqual({ sent: 90, total: 150 });
  });

  it('keeps failed entries with their error after the rest finish', async () => {
    const { q, t, finished } = queue(1);
    q.add([job('a'), job('b')], { folder: '/x/', names: ['a', 'b'] });
    t.live.get('a')?.fail(new ApiError(507, '507 Insufficient Storage'));
    await tick();
    t.live.get('b')?.ok();
    await tick();
    expect(q.entries.map((e) => [e.job.name, e.status, e.error?.status])).toEqual([['a', 'failed', 507]]);
    expect(finished[0]?.failed).toBe(1);
    q.dismissFailed();
    expect(q.entries).toEqual([]);
  });

  it('turns a thrown non-API error into status 0', async () => {
    const { q, t } = queue(1);
    q.add([job('a')], { folder: '/', names: ['a'] });
    t.live.get('a')?.fail(new Error('boom'));
    await tick();
    expect(q.entries[0]?.error).toMatchObject({ status: 0, message: 'boom' });
  });

  it('abort cancels the running transfers, drops the waiting ones and reports once', async () => {
    const { q, t, finished } = queue(2);
    q.add([job('a'), job('b'), job('c')], { folder: '/', names: ['a', 'b', 'c'] });
    q.abort();
    await tick();
    expect(t.aborted).toEqual(['a', 'b']);
    expect(t.live.has('c')).toBe(false);
    expect(q.entries).toEqual([]);
    expect(q.active).toBe(false);
    expect(finished).toEqual([
      { batches: [{ folder: '/', names: ['a', 'b', 'c'] }], failed: 0, aborted: true },
    ]);
  });

  it('reads the limit each time, so a new uploadsLimit applies to waiting jobs', async () => {
    let limit = 1;
    const t = manual();
    const q = new UploadQueue({
      transport: t.transport,
      limit: () => limit,
      onChange: () => undefined,
      onFinish: () => undefined,
    });
    q.add([job('a'), job('b'), job('c')], { folder: '/', names: [] });
    expect(t.live.size).toBe(1);
    limit = 3;
    t.live.get('a')?.ok();
    await tick();
    expect([...t.live.keys()]).toEqual(['a', 'b', 'c']);
  });
});
