import { EventEmitter } from 'node:events';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/** A forked worker as runPrimary sees it: events, an IPC channel, a process to signal. */
class FakeWorker extends EventEmitter {
  process = { pid: 1000 + forks.length, kill: (signal: string) => queueMicrotask(() => this.emit('exit', null, signal)) };
  isConnected = () => true;
  send = () => true;
}
const forks: FakeWorker[] = [];
vi.mock('node:cluster', () => ({
  default: {
    isWorker: false,
    isPrimary: true,
    fork: () => {
      const w = new FakeWorker();
      forks.push(w);
      return w;
    },
  },
}));

const { runPrimary } = await import('./primary.js');

describe('runPrimary: a worker that keeps crashing is restarted ever more slowly', () => {
  beforeEach(() => {
    forks.length = 0;
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('waits 1 s, then 2 s, then 4 s … (at most a minute) between restarts of a worker that dies soon after it listened; a long life resets the wait', async () => {
    const had = new Set([...process.listeners('SIGTERM'), ...process.listeners('SIGINT')]);
    void runPrimary({ count: 1, log: pino({ enabled: false }), shutdownTimeout: 1 });
    // runPrimary's own SIGTERM handler (called directly: the test process's others are left alone).
    const stop = process.listeners('SIGTERM').filter((l) => !had.has(l));
    const interrupt = process.listeners('SIGINT').filter((l) => !had.has(l));
    expect(stop).toHaveLength(1);
    /** The latest worker listens and dies at once; answers the ms until its replacement is forked. */
    const crashAndTime = async (limitMs: number): Promise<number> => {
      const before = forks.length;
      const w = forks[forks.length - 1]!;
      w.emit('listening');
      w.emit('exit', 1, null);
      for (let t = 0; t <= limitMs; t += 100) {
        if (forks.length > before) return t;
        await vi.advanceTimersByTimeAsync(100);
      }
      return Infinity;
    };
    expect(forks).toHaveLength(1);
    const waits: number[] = [];
    for (let i = 0; i < 8; i++) waits.push(await crashAndTime(120_000));
    expect(waits).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000]);
    // A worker that served a while: its replacement starts at once, and the next crash waits 1 s again.
    const w = forks[forks.length - 1]!;
    w.emit('listening');
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    const before = forks.length;
    w.emit('exit', 1, null);
    expect(forks.length).toBe(before + 1);
    expect(await crashAndTime(10_000)).toBe(1000);
    process.removeListener('SIGTERM', stop[0]!);
    for (const l of interrupt) process.removeListener('SIGINT', l);
    (stop[0] as () => void)();
  });
});
