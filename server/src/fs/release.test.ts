import { afterEach, describe, expect, it } from 'vitest';
import { RELEASE_QUIET_MS, releaseCollections, setReleaseQuietMs, touchBigWork } from './release.js';

afterEach(() => setReleaseQuietMs(RELEASE_QUIET_MS));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Issue 17, item 18: after big work the garbage it left is collected soon, not one or two
// minutes later when V8's memory reducer gets to it.
describe('the collection after big work', () => {
  it('frees what big work left once it has been quiet for a while', async () => {
    setReleaseQuietMs(100);
    const before = releaseCollections();
    // Garbage in the old space (it survives young collections while it is referenced), then let go.
    let garbage: object[] | undefined = Array.from({ length: 200_000 }, (_, i) => ({ i, name: `entry ${i}` }));
    const ref = new WeakRef(garbage);
    garbage = undefined;
    touchBigWork();
    await expect.poll(() => releaseCollections(), { timeout: 10_000, interval: 20 }).toBeGreaterThan(before);
    expect(ref.deref()).toBeUndefined();
  });

  it('waits while big work goes on, and runs once after it', async () => {
    const QUIET = 1000;
    setReleaseQuietMs(QUIET);
    const before = releaseCollections();
    // Touched every 50 ms for 1.5 s; a machine too busy to keep the gaps well under the quiet
    // time cannot tell waiting from not waiting.
    let longest = 0;
    for (let k = 0, last = performance.now(); k < 30; k++) {
      touchBigWork();
      await sleep(50);
      longest = Math.max(longest, performance.now() - last);
      last = performance.now();
    }
    if (longest < QUIET / 2) expect(releaseCollections()).toBe(before);
    await expect.poll(() => releaseCollections(), { timeout: 10_000, interval: 20 }).toBe(before + 1);
    await sleep(QUIET + 200);
    expect(releaseCollections()).toBe(before + 1);
  });
});
