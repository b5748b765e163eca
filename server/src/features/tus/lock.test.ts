import { describe, expect, it } from 'vitest';
import { createMemoryLocks, Locked } from './lock.js';

describe('createMemoryLocks', () => {
  it('serialises holders of one key and leaves other keys free', async () => {
    const locks = createMemoryLocks();
    const release = await locks.acquire('a');
    expect(await locks.tryAcquire('a')).toBeNull();
    const b = await locks.tryAcquire('b');
    expect(b).not.toBeNull();
    await b!();
    await release();
    const again = await locks.tryAcquire('a');
    expect(again).not.toBeNull();
    await again!();
  });

  it('asks the holder to let go and hands the lock over once it does', async () => {
    const locks = createMemoryLocks();
    let asked = 0;
    const first = await locks.acquire('k', {
      onReleaseRequest: () => {
        asked++;
        setTimeout(() => void first(), 10);
      },
    });
    const second = await locks.acquire('k', { waitMs: 1000 });
    expect(asked).toBe(1);
    await second();
  });

  it('answers 423 when the holder does not let go in time', async () => {
    const locks = createMemoryLocks();
    const first = await locks.acquire('k');
    await expect(locks.acquire('k', { waitMs: 30 })).rejects.toBeInstanceOf(Locked);
    await first();
    await expect(locks.acquire('k', { waitMs: 30 }).then((r) => r())).resolves.toBeUndefined();
  });

  it('ignores a second release', async () => {
    const locks = createMemoryLocks();
    const r1 = await locks.acquire('k');
    await r1();
    const r2 = await locks.acquire('k');
    await r1(); // must not free r2's hold
    expect(await locks.tryAcquire('k')).toBeNull();
    await r2();
  });
});
