import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { Worker } from 'node:cluster';
import { createLoginThrottle, createSignupThrottle, LOGIN_ADDRESS_LIMIT, LOGIN_WINDOW_MS, SIGNUP_ADDRESS_LIMIT, SIGNUP_WINDOW_MS } from '../auth/throttle.js';
import type { SharedState } from '../features/cluster/shared.js';
import { createIpcShared, createThrottleHost, type ThrottleAnswer } from './ipc.js';

/**
 * Workers wired to one host in this process as the primary wires forked ones: each has a fake
 * `Worker` (the primary's end) and a channel (the worker's end); messages are cloned as IPC does.
 */
function cluster(n: number): { host: ReturnType<typeof createThrottleHost>; workers: SharedState[] } {
  const host = createThrottleHost();
  const workers = Array.from({ length: n }, () => {
    const primaryEnd = new EventEmitter() as EventEmitter & Pick<Worker, 'send' | 'isConnected'>;
    const workerEnd = new EventEmitter();
    primaryEnd.isConnected = () => true;
    primaryEnd.send = ((m: unknown) => (setImmediate(() => workerEnd.emit('message', structuredClone(m))), true)) as Worker['send'];
    host.serve(primaryEnd as unknown as Worker);
    return createIpcShared(
      {
        send: (m) => void setImmediate(() => primaryEnd.emit('message', structuredClone(m))),
        on: (e, l) => void workerEnd.on(e, l),
      },
      () => undefined,
    );
  });
  return { host, workers };
}

async function answerTo(host: ReturnType<typeof createThrottleHost>, message: unknown): Promise<{ handled: boolean; answer?: ThrottleAnswer }> {
  let answer: ThrottleAnswer | undefined;
  const handled = await host.handle(message, (a) => (answer = a));
  return { handled, answer };
}

describe('throttles shared by the workers through the primary (cluster/ipc.ts)', () => {
  it('counts wrong passwords spread over two workers together: the 11th attempt is refused', async () => {
    const { workers } = cluster(2);
    const a = createLoginThrottle(workers[0]!.throttleStore('login', LOGIN_WINDOW_MS));
    const b = createLoginThrottle(workers[1]!.throttleStore('login', LOGIN_WINDOW_MS));
    for (let i = 0; i < LOGIN_ADDRESS_LIMIT; i++) {
      const w = i % 2 ? a : b;
      const release = await w.begin('192.0.2.7', 'alice');
      await w.failed('192.0.2.7', 'alice');
      release();
    }
    await expect(a.begin('192.0.2.7', 'alice')).rejects.toMatchObject({ status: 429 });
    await expect(b.begin('192.0.2.7', 'alice')).rejects.toMatchObject({ status: 429 });
    // Another address is not affected.
    const release = await a.begin('192.0.2.8', 'bob');
    release();
  });

  it('admits no more than the signup limit of a parallel burst over two workers', async () => {
    const { workers } = cluster(2);
    const throttles = workers.map((w) => createSignupThrottle(w.throttleStore('signup', SIGNUP_WINDOW_MS)));
    const admit = (i: number) => throttles[i % 2]!.admit('192.0.2.40').then(() => 'ok', (e: unknown) => (e as { status: number }).status);
    const outcomes = await Promise.all(Array.from({ length: 3 * SIGNUP_ADDRESS_LIMIT }, (_, i) => admit(i)));
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(SIGNUP_ADDRESS_LIMIT);
    expect(outcomes.filter((o) => o === 429)).toHaveLength(2 * SIGNUP_ADDRESS_LIMIT);
  });

  it('keeps the stores of different names apart', async () => {
    const [w] = cluster(1).workers;
    const login = w!.throttleStore('login', 60_000);
    const share = w!.throttleStore('share', 60_000);
    await login.hit('k');
    expect((await login.check('k', 5)).count).toBe(1);
    expect((await share.check('k', 5)).count).toBe(0);
  });

  it('counts alone, and warns once, when the primary does not answer', async () => {
    const warnings: string[] = [];
    const silent = createIpcShared({ send: () => undefined, on: () => undefined }, (m) => warnings.push(m), 20);
    const store = silent.throttleStore('login', 60_000);
    await store.hit('k');
    await store.hit('k');
    expect(await store.check('k', 2)).toMatchObject({ count: 2 });
    expect((await silent.windowCounter('anon', 60_000).incr('a')).count).toBe(1);
    expect(warnings).toHaveLength(1);
    expect(silent.health()).toMatchObject({ store: 'workers', degraded: expect.any(String) });
  });

  it('counts alone when sending fails (the channel is closed)', async () => {
    const store = createIpcShared(
      {
        send: () => {
          throw new Error('channel closed');
        },
        on: () => undefined,
      },
      () => undefined,
    ).throttleStore('login', 60_000);
    await store.hit('k');
    expect((await store.check('k', 1)).retryAfterMs).toBeGreaterThan(0);
  });

  it('counts --rate-limit windows over the workers together', async () => {
    const { workers } = cluster(2);
    const counts = [];
    for (let i = 0; i < 4; i++) counts.push((await workers[i % 2]!.windowCounter('anon', 60_000).incr('192.0.2.1')).count);
    expect(counts).toEqual([1, 2, 3, 4]);
  });

  it('relays an invalidation to every other worker, and delivers it at once to its own', async () => {
    const { workers } = cluster(3);
    const heard: string[] = [];
    workers.forEach((w, i) => w.invalidation.subscribe('users', (id) => heard.push(`${i}:${id}`)));
    workers[1]!.invalidation.publish('users', '7');
    expect(heard).toEqual(['1:7']);
    // The relay goes through the (fake) primary: a few turns of the event loop, longer on a busy machine.
    for (let i = 0; i < 200 && heard.length < 3; i++) await new Promise((r) => setTimeout(r, 10));
    expect(heard.sort()).toEqual(['0:7', '1:7', '2:7']);
  });

  it('relays no invalidation of an unknown topic or with a bad id', async () => {
    const { isInvalidate } = await import('./ipc.js');
    expect(isInvalidate({ coffer: 'invalidate', topic: 'users', id: '1' })).toBe(true);
    for (const bad of [{ coffer: 'invalidate', topic: 'everything' }, { coffer: 'invalidate', topic: 'users', id: 7 }, { coffer: 'invalidate', topic: 'users', id: 'x'.repeat(100) }, { coffer: 'invalidate' }]) {
      expect(isInvalidate(bad)).toBe(false);
    }
  });

  it('ignores messages that are not well-formed throttle questions', async () => {
    const host = createThrottleHost();
    const base = { coffer: 'throttle', id: 1, store: 'login', windowMs: 1000, op: 'check', key: 'k', limit: 3 };
    expect((await answerTo(host, base)).answer?.state).toEqual({ count: 0, retryAfterMs: 0 });
    for (const bad of [
      null,
      'throttle',
      42,
      [],
      { ...base, coffer: 'other' },
      { ...base, id: '1' },
      { ...base, id: 1.5 },
      { ...base, op: 'reset' },
      { ...base, op: '__proto__' },
      { ...base, key: 7 },
      { ...base, key: 'x'.repeat(10_000) },
      { ...base, store: 's'.repeat(1000) },
      { ...base, windowMs: 0 },
      { ...base, windowMs: -5 },
      { ...base, windowMs: '1000' },
      { ...base, limit: 0 },
      { ...base, limit: undefined },
      { ...base, op: 'hit', maxPerKey: -1 },
      { ...base, op: 'hit', maxPerKey: 1e300 },
    ]) {
      expect(await answerTo(host, bad), JSON.stringify(bad)?.slice(0, 80)).toEqual({ handled: false, answer: undefined });
    }
  });

  it('holds a bounded number of stores: beyond it, questions get no count', async () => {
    const host = createThrottleHost();
    for (let i = 0; i < 100; i++) await answerTo(host, { coffer: 'throttle', id: i, store: `s${i}`, windowMs: 1000, op: 'hit', key: 'k' });
    const late = await answerTo(host, { coffer: 'throttle', id: 999, store: 's99', windowMs: 1000, op: 'check', key: 'k', limit: 1 });
    expect(late.handled).toBe(true);
    expect(late.answer?.state).toBeUndefined();
  });
});
