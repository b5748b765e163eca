import { describe, expect, it } from 'vitest';
import { Limiter, PreviewsBusy } from './limiter.js';

/** A task that runs until `release()` is called. */
function gate() {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  return { task: () => done, release };
}

describe('Limiter: a bounded line of previews', () => {
  it('runs `limit` at once, lets `maxWaiting` wait in order, refuses one more at once with 503 + Retry-After', async () => {
    const limiter = new Limiter(1, 2);
    const first = gate();
    const order: string[] = [];
    const running = limiter.run(first.task);
    const a = limiter.run(async () => void order.push('a'));
    const b = limiter.run(async () => void order.push('b'));
    expect(limiter.queued).toBe(2);
    const refused = await limiter.run(async () => 'never').catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(PreviewsBusy);
    expect(refused).toMatchObject({ status: 503, headers: { 'Retry-After': '2' } });
    first.release();
    await Promise.all([running, a, b]);
    expect(order).toEqual(['a', 'b']);
    // The line is free again.
    await expect(limiter.run(async () => 'ran')).resolves.toBe('ran');
  });

  it('a waiting request whose client went away leaves the line without running', async () => {
    const limiter = new Limiter(1, 1);
    const first = gate();
    const running = limiter.run(first.task);
    const gone = new AbortController();
    let ran = false;
    const waiting = limiter.run(async () => void (ran = true), gone.signal);
    gone.abort(new Error('the client went away'));
    await expect(waiting).rejects.toThrow(/went away/);
    expect(limiter.queued).toBe(0);
    // Its place is free for another.
    const next = limiter.run(async () => 'next');
    first.release();
    await running;
    await expect(next).resolves.toBe('next');
    expect(ran).toBe(false);
  });
});
