import { describe, expect, it } from 'vitest';
import { createMemoryShared, createMemoryWindowCounter } from './shared.js';

describe('createMemoryShared', () => {
  it('gives one store per policy name, so route modules asking for the same policy count together', async () => {
    const shared = createMemoryShared();
    const a = shared.throttleStore('signup', 60_000);
    const b = shared.throttleStore('signup', 60_000);
    await a.hit('k');
    expect((await b.check('k', 5)).count).toBe(1);
    expect((await shared.throttleStore('login', 60_000).check('k', 5)).count).toBe(0);
    expect(shared.health()).toEqual({ store: 'memory' });
  });

  it('delivers an invalidation to this process at once, and not after unsubscribing', () => {
    const shared = createMemoryShared();
    const seen: (string | undefined)[] = [];
    const off = shared.invalidation.subscribe('users', (id) => seen.push(id));
    shared.invalidation.subscribe('users', () => {
      throw new Error('a broken subscriber');
    });
    shared.invalidation.publish('users', '7');
    shared.invalidation.publish('settings');
    off();
    shared.invalidation.publish('users', '8');
    expect(seen).toEqual(['7']);
  });
});

describe('createMemoryWindowCounter', () => {
  it('counts per key in fixed windows and says when the window ends', async () => {
    let t = 1000;
    const c = createMemoryWindowCounter(10_000, () => t);
    expect(await c.incr('a')).toEqual({ count: 1, resetMs: 10_000 });
    t = 4000;
    expect(await c.incr('a')).toEqual({ count: 2, resetMs: 7000 });
    expect((await c.incr('b')).count).toBe(1);
    t = 11_000;
    expect((await c.incr('a')).count).toBe(1);
  });
});
