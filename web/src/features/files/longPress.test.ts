import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LongPress } from './longPress';

describe('LongPress', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function press() {
    const fired: string[] = [];
    const lp = new LongPress<string>();
    const start = (t: string, x: number, y: number) => lp.start(t, x, y, (target) => fired.push(target));
    return { fired, lp, start };
  }

  it('fires once after 500 ms held still', () => {
    const { fired, lp, start } = press();
    start('a', 100, 100);
    vi.advanceTimersByTime(499);
    expect(fired).toEqual([]);
    expect(lp.pending).toBe(true);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(['a']);
    expect(lp.pending).toBe(false);
    vi.advanceTimersByTime(5_000);
    expect(fired).toEqual(['a']);
  });

  it('tolerates moves of up to 10 px', () => {
    const { fired, lp, start } = press();
    start('a', 100, 100);
    lp.move(106, 108); // exactly 10 px away
    vi.advanceTimersByTime(500);
    expect(fired).toEqual(['a']);
  });

  it('a move of more than 10 px cancels it', () => {
    const { fired, lp, start } = press();
    start('a', 100, 100);
    vi.advanceTimersByTime(300);
    lp.move(111, 100);
    vi.advanceTimersByTime(1_000);
    expect(fired).toEqual([]);
    expect(lp.consumeFired()).toBe(false);
  });

  it('lifting before 500 ms cancels it', () => {
    const { fired, lp, start } = press();
    start('a', 0, 0);
    vi.advanceTimersByTime(499);
    lp.cancel();
    vi.advanceTimersByTime(1_000);
    expect(fired).toEqual([]);
  });

  it('moves after it fired change nothing', () => {
    const { fired, lp, start } = press();
    start('a', 0, 0);
    vi.advanceTimersByTime(500);
    lp.move(50, 50);
    expect(fired).toEqual(['a']);
    expect(lp.fired).toBe(true);
  });

  it('reports once that it fired, so the click after it is ignored', () => {
    const { lp, start } = press();
    start('a', 0, 0);
    vi.advanceTimersByTime(500);
    expect(lp.consumeFired()).toBe(true);
    expect(lp.consumeFired()).toBe(false);
  });

  it('a new press forgets the previous one and restarts the clock', () => {
    const { fired, lp, start } = press();
    start('a', 0, 0);
    vi.advanceTimersByTime(500);
    start('b', 0, 0);
    expect(lp.fired).toBe(false);
    vi.advanceTimersByTime(400);
    start('c', 0, 0);
    vi.advanceTimersByTime(400);
    expect(fired).toEqual(['a']);
    vi.advanceTimersByTime(100);
    expect(fired).toEqual(['a', 'c']);
  });
});
