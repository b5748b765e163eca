import { describe, expect, it, vi } from 'vitest';
import { createSizeCache } from './cache.js';
import { createQuotaService, formatBytes } from './service.js';

function fakeClock(start = 0) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

describe('createSizeCache', () => {
  it('measures a scope once within the time it is trusted, and again after', async () => {
    const clock = fakeClock();
    let calls = 0;
    const cache = createSizeCache({ measure: async () => ++calls * 100, ttlMs: 1000, maxEntries: 10, now: clock.now });
    expect(await cache.bytes('/r/a')).toBe(100);
    clock.advance(999);
    expect(await cache.bytes('/r/a')).toBe(100);
    clock.advance(1);
    expect(await cache.bytes('/r/a')).toBe(200);
  });

  it("drops the scopes that hold a change (and only those) on Coffer's own writes", async () => {
    let calls = 0;
    const cache = createSizeCache({ measure: async () => ++calls, ttlMs: 60_000, maxEntries: 10 });
    await cache.bytes('/r');
    await cache.bytes('/r/a');
    await cache.bytes('/r/ab');
    cache.invalidate('/r/a/x.txt');
    // "/r" and "/r/a" hold /r/a/x.txt, "/r/ab" does not (whole segments).
    expect(await cache.bytes('/r/ab')).toBe(3);
    expect(await cache.bytes('/r/a')).toBe(4);
    expect(await cache.bytes('/r')).toBe(5);
  });

  it('shares one measurement between callers asking at once, and keeps none begun before a change', async () => {
    let release!: (n: number) => void;
    let calls = 0;
    const cache = createSizeCache({
      measure: () => {
        calls++;
        return new Promise<number>((r) => (release = r));
      },
      ttlMs: 60_000,
      maxEntries: 10,
    });
    const a = cache.bytes('/r');
    const b = cache.bytes('/r');
    cache.invalidate('/r/new');
    release(5);
    expect([await a, await b]).toEqual([5, 5]);
    expect(calls).toBe(1);
    const c = cache.bytes('/r');
    release(7);
    expect(await c).toBe(7);
  });

  it('keeps at most maxEntries scopes', async () => {
    const cache = createSizeCache({ measure: async () => 1, ttlMs: 60_000, maxEntries: 2 });
    for (const r of ['/a', '/b', '/c']) await cache.bytes(r);
    expect(cache.size).toBe(2);
  });
});

describe('createQuotaService', () => {
  const service = (disk: number, trash = 0) =>
    createQuotaService({
      sizes: createSizeCache({ measure: async () => disk, ttlMs: 60_000, maxEntries: 10 }),
      measure: async (p) => (p === '/old' ? 300 : 500),
      scopeRoot: async () => ({ root: '/scope' }),
      trashBytes: async () => trash,
    });
  const user = (quota: number) => ({ id: 1, scope: '/', quota });

  it('counts the scope and its trash', async () => {
    expect(await service(600, 150).usedBytes(user(1000))).toBe(750);
  });

  it('admits what fits, to the byte, and refuses one more with 507 and a message without paths', async () => {
    const q = service(600, 100);
    await q.admit(user(1000), 300);
    const err = await q.admit(user(1000), 301).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 507 });
    expect(String((err as Error).message)).toMatch(/quota is full: 700 bytes of 1000 bytes used/);
  });

  it('treats 0 as no quota and never measures then', async () => {
    const q = createQuotaService({
      sizes: createSizeCache({ measure: () => Promise.reject(new Error('measured')), ttlMs: 1, maxEntries: 1 }),
      measure: () => Promise.reject(new Error('measured')),
      scopeRoot: () => Promise.reject(new Error('measured')),
      trashBytes: () => Promise.reject(new Error('measured')),
    });
    await q.admit(user(0), 1e15);
    await q.admitMeasured(user(0), '/anything', '/old');
    const source = () => new Uint8Array(10);
    expect(await q.limit(user(0), source)).toBe(source);
  });

  it("never misses a tus upload landing while a write measures: the promises are read before the scope", async () => {
    // The upload (600 promised) lands between the two reads, whichever comes first: then its file
    // is in the scope and its promise is gone.
    let landed = false;
    const q = createQuotaService({
      sizes: createSizeCache({
        measure: async () => {
          const bytes = landed ? 600 : 0;
          landed = true;
          return bytes;
        },
        ttlMs: 60_000,
        maxEntries: 10,
      }),
      measure: async () => 0,
      scopeRoot: async () => ({ root: '/scope' }),
      trashBytes: async () => 0,
    });
    q.countPromises(async (root) => {
      expect(root).toBe('/scope');
      const bytes = landed ? 0 : 600;
      landed = true;
      return bytes;
    });
    await expect(q.admit(user(1000), 401)).rejects.toMatchObject({ status: 507 });
  });

  it('counts what a write replaces as room', async () => {
    const q = service(900);
    await q.admit(user(1000), 400, 300);
    await expect(q.admit(user(1000), 401, 300)).rejects.toMatchObject({ status: 507 });
    // a copy of 500 bytes over /old (300): 900 - 300 + 500 > 1000.
    await expect(q.admitMeasured(user(1000), '/src', '/old')).rejects.toMatchObject({ status: 507 });
    await q.admitMeasured(user(1400), '/src', '/old');
  });

  it('stops a stream at the chunk that crosses, and a declared length before the first byte', async () => {
    const q = service(0);
    async function* chunks() {
      for (let i = 0; i < 5; i++) yield new Uint8Array(300);
    }
    const limited = await q.limit(user(1000), chunks);
    const seen: number[] = [];
    const read = (async () => {
      for await (const c of limited() as AsyncIterable<Uint8Array>) seen.push(c.length);
    })();
    await expect(read).rejects.toMatchObject({ status: 507 });
    expect(seen).toEqual([300, 300, 300]);
    await expect(q.limit(user(1000), chunks, { declared: 1001 })).rejects.toMatchObject({ status: 507 });
  });

  it('holds the bytes of bodies being written: two streams into one scope cannot both take the same room', async () => {
    let disk = 0;
    const q = createQuotaService({
      sizes: createSizeCache({ measure: async () => disk, ttlMs: 60_000, maxEntries: 10 }),
      measure: async () => 0,
      scopeRoot: async () => ({ root: '/scope' }),
      trashBytes: async () => 0,
    });
    const body = (n: number) =>
      async function* () {
        for (let i = 0; i < n; i++) yield new Uint8Array(100);
      };
    // a: 600 bytes read to the end, not yet landed (its write has not said `changed`).
    const a = await q.limit(user(1000), body(6), { target: '/scope/a' });
    for await (const _ of a() as AsyncIterable<Uint8Array>) void _;
    // b (600) fits alone, not beside a: it stops at the chunk that crosses.
    const b = await q.limit(user(1000), body(6), { target: '/scope/b' });
    const seen: number[] = [];
    await expect((async () => { for await (const c of b() as AsyncIterable<Uint8Array>) seen.push(c.length); })()).rejects.toMatchObject({ status: 507 });
    expect(seen.length).toBe(4);
    // b stopped: what it held is given back at once; a's 600 still count.
    expect((await q.limit(user(1000), body(4), { target: '/scope/c', declared: 401 }).catch((e: unknown) => e))).toMatchObject({ status: 507 });
    // a lands: the scope measures 600 now and a is no longer held — counted once, not twice.
    disk = 600;
    q.changed('/scope/a');
    const c = await q.limit(user(1000), body(4), { target: '/scope/c', declared: 400 });
    for await (const _ of c() as AsyncIterable<Uint8Array>) void _;
    // A stream stopped by its reader holds nothing afterwards.
    disk = 1000;
    q.changed('/scope/c');
    await expect(q.limit(user(1000), body(1), { declared: 1 })).rejects.toMatchObject({ status: 507 });
    disk = 0;
    q.changed('/scope');
    const d = await q.limit(user(1000), body(9), { target: '/scope/d' });
    const it = (d() as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
    await it.next();
    await it.return?.();
    const e = await q.limit(user(1000), body(10), { target: '/scope/e', declared: 1000 });
    expect(e).toBeTypeOf('function');
  });

  it('counts a body that lands while another streams: the other measured its scope before it landed', async () => {
    let disk = 0;
    const q = createQuotaService({
      sizes: createSizeCache({ measure: async () => disk, ttlMs: 60_000, maxEntries: 10 }),
      measure: async () => 0,
      scopeRoot: async () => ({ root: '/scope' }),
      trashBytes: async () => 0,
    });
    const body = (n: number) =>
      async function* () {
        for (let i = 0; i < n; i++) yield new Uint8Array(100);
      };
    const open = async (name: string) => ((await q.limit(user(1000), body(6), { target: `/scope/${name}` }))() as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
    // a and b (600 each, 1000 of quota) start together and read 300 each.
    const a = await open('a');
    const b = await open('b');
    for (let i = 0; i < 3; i++) {
      await a.next();
      await b.next();
    }
    // a reads its end and lands: the scope measures 600 now, a is no longer held.
    while (!(await a.next()).done);
    disk = 600;
    q.changed('/scope/a');
    // b measured the scope before a landed: a's 600 still count for it, so b stops at 1000 of 1100.
    await b.next();
    await expect(b.next()).rejects.toMatchObject({ status: 507 });
    // A body whose stream starts after a write landed since its limit() (a before hook ran meanwhile) counts it too.
    disk = 0;
    q.changed('/scope');
    const c = await q.limit(user(1000), body(6), { target: '/scope/c' });
    const d = await open('d');
    while (!(await d.next()).done);
    disk = 600;
    q.changed('/scope/d');
    const seen: number[] = [];
    await expect((async () => { for await (const x of c() as AsyncIterable<Uint8Array>) seen.push(x.length); })()).rejects.toMatchObject({ status: 507 });
    expect(seen.length).toBe(4);
  });

  it('counts the bytes bodies hold in the checks of known sizes too (tus, copies, jobs)', async () => {
    const q = service(0);
    const body = async function* () {
      for (let i = 0; i < 6; i++) yield new Uint8Array(100);
    };
    const a = await q.limit(user(1000), body, { target: '/scope/a' });
    for await (const _ of a() as AsyncIterable<Uint8Array>) void _;
    await expect(q.admit(user(1000), 401)).rejects.toMatchObject({ status: 507 });
    await expect(q.admitMeasured(user(1000), 401)).rejects.toMatchObject({ status: 507 });
    const m = await q.meter(user(1000));
    expect(m.room).toBe(400);
    q.changed('/scope/a');
    await q.admit(user(1000), 1000);
  });

  it('holds only what a body adds beyond the file it replaces: parallel saves of the same sizes pass near the quota', async () => {
    const q = service(900);
    const body = (n: number) =>
      async function* () {
        for (let i = 0; i < n; i++) yield new Uint8Array(100);
      };
    const open = async (name: string, n: number, freeing: number) =>
      ((await q.limit(user(1000), body(n), { target: `/scope/${name}`, freeing }))() as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
    // x (500 on disk) and y (400 on disk) saved again at once with the same sizes: 900 in the end.
    const x = await open('x', 5, 500);
    const y = await open('y', 4, 400);
    for (let i = 0; i < 5; i++) {
      expect((await x.next()).done).toBe(false);
      if (i < 4) expect((await y.next()).done).toBe(false);
    }
    expect((await x.next()).done).toBe(true);
    expect((await y.next()).done).toBe(true);
    // A body that grows its file still holds the growth: 100 more than x's 500 leaves no room for 101.
    const z = await open('z', 6, 500);
    for (let i = 0; i < 6; i++) await z.next();
    await expect(q.limit(user(1000), body(2), { declared: 101 })).rejects.toMatchObject({ status: 507 });
  });

  it('gives a finished body’s hold back after a while when its write never says changed', async () => {
    vi.useFakeTimers();
    try {
      const q = service(0);
      const a = await q.limit(user(1000), () => new Uint8Array(800), { target: '/scope/a' });
      a();
      await expect(q.limit(user(1000), () => new Uint8Array(300), { declared: 300 })).rejects.toMatchObject({ status: 507 });
      vi.advanceTimersByTime(10_001);
      await q.limit(user(1000), () => new Uint8Array(300), { declared: 300 });
    } finally {
      vi.useRealTimers();
    }
  });

  it('formats sizes for people', () => {
    expect(formatBytes(999)).toBe('999 bytes');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(5 * 1024 ** 3)).toBe('5 GiB');
  });
});

describe('indexedSizeSource', () => {
  it('answers from the index when it holds the folder, and walks otherwise', async () => {
    const { indexedSizeSource } = await import('./size-source.js');
    const { mkdtemp, writeFile, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const dir = await mkdtemp(path.join(tmpdir(), 'coffer-src-'));
    await writeFile(path.join(dir, 'f'), Buffer.alloc(42));
    const ready = indexedSizeSource({ folderSizes: async () => ({ size: 1234, children: new Map() }) });
    const building = indexedSizeSource({ folderSizes: async () => null });
    expect(await ready(dir)).toBe(1234);
    expect(await building(dir)).toBe(42);
    await rm(dir, { recursive: true, force: true });
  });
});
