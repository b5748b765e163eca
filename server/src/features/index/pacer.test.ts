import { describe, expect, it } from 'vitest';
import { writePacer } from './service.js';

/** A write that holds the thread for `perItemMs` per item, as a SQLite transaction does. */
function busyWriter(perItemMs: number, seen: number[][]) {
  return async (part: readonly number[]) => {
    seen.push([...part]);
    const until = performance.now() + perItemMs * part.length;
    while (performance.now() < until) {
      /* holding the event loop */
    }
  };
}

describe('writePacer (the index build writes)', () => {
  it('writes every item once, in order', async () => {
    const seen: number[][] = [];
    const items = Array.from({ length: 1000 }, (_, i) => i);
    await writePacer(100, true, 2).write(items, busyWriter(0.01, seen));
    expect(seen.flat()).toEqual(items);
  });

  it('sizes blocking writes so that each takes about the budget', async () => {
    const seen: number[][] = [];
    const pacer = writePacer(500, true, 2);
    // 0.1 ms per item: a 2 ms budget is about 20 items, far below the 500 allowed.
    await pacer.write(Array.from({ length: 600 }, (_, i) => i), busyWriter(0.1, seen));
    const later = seen.slice(3).map((p) => p.length);
    expect(Math.max(...later.slice(0, -1))).toBeLessThanOrEqual(40);
    expect(pacer.partSize).toBeGreaterThanOrEqual(16);
    expect(pacer.partSize).toBeLessThanOrEqual(40);
    // Cheap items: the parts grow back, at most to maxRows.
    const fast: number[][] = [];
    await pacer.write(Array.from({ length: 5000 }, (_, i) => i), busyWriter(0, fast));
    expect(pacer.partSize).toBe(500);
  });

  it('never goes below 16 rows a part, however slow a write', async () => {
    const seen: number[][] = [];
    const pacer = writePacer(500, true, 1);
    await pacer.write(Array.from({ length: 200 }, (_, i) => i), busyWriter(0.2, seen));
    expect(pacer.partSize).toBe(16);
  });

  it('lets the event loop turn between parts', async () => {
    let turns = 0;
    const tick = setInterval(() => turns++, 0);
    const parts: number[][] = [];
    await writePacer(10, true, 1).write(Array.from({ length: 100 }, (_, i) => i), busyWriter(0.2, parts));
    clearInterval(tick);
    expect(parts.length).toBeGreaterThanOrEqual(10);
    expect(turns).toBeGreaterThanOrEqual(parts.length - 1);
  });

  it('keeps maxRows per part for writes that do not block (PostgreSQL)', async () => {
    const seen: number[][] = [];
    await writePacer(100, false).write(Array.from({ length: 350 }, (_, i) => i), busyWriter(0.05, seen));
    expect(seen.map((p) => p.length)).toEqual([100, 100, 100, 50]);
  });
});
