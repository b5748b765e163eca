import { describe, expect, it } from 'vitest';
import { frameBatches } from './frameBatches';

/** A hand-driven frame clock. */
function frames() {
  let next = 1;
  const waiting = new Map<number, () => void>();
  return {
    schedule: (run: () => void) => {
      waiting.set(next, run);
      return next++;
    },
    unschedule: (id: number) => void waiting.delete(id),
    paint() {
      const runs = [...waiting.values()];
      waiting.clear();
      for (const run of runs) run();
    },
    get waiting() {
      return waiting.size;
    },
  };
}

describe('frameBatches', () => {
  it('hands over everything pushed before a frame in one batch, in order', () => {
    const clock = frames();
    const got: number[][] = [];
    const b = frameBatches<number>((items) => got.push(items), clock.schedule, clock.unschedule);
    for (let i = 0; i < 1000; i++) b.push(i);
    expect(got).toEqual([]);
    expect(clock.waiting).toBe(1);
    clock.paint();
    b.push(1000);
    clock.paint();
    expect(got.length).toBe(2);
    expect(got[0]).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    expect(got[1]).toEqual([1000]);
  });

  it('asks for no frame while idle', () => {
    const clock = frames();
    const got: number[][] = [];
    const b = frameBatches<number>((items) => got.push(items), clock.schedule, clock.unschedule);
    clock.paint();
    expect(clock.waiting).toBe(0);
    b.flush();
    expect(got).toEqual([]);
  });

  it('flush hands over at once; cancel drops what waits', () => {
    const clock = frames();
    const got: string[][] = [];
    const b = frameBatches<string>((items) => got.push(items), clock.schedule, clock.unschedule);
    b.push('a');
    b.flush();
    expect(got).toEqual([['a']]);
    expect(clock.waiting).toBe(0);
    b.push('b');
    b.cancel();
    clock.paint();
    expect(got).toEqual([['a']]);
  });
});
