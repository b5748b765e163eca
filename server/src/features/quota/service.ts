/**
 * Byte quotas (docs/api.md §3.1 `quota`, §11): a user with a quota may not make its scope plus
 * that scope's trash hold more than it. Every write path asks here BEFORE bytes are written:
 * `admit` when the size is known (tus Upload-Length, Content-Length, a copy's source, an archive
 * entry's declared size), `meter` / `limit` when it is not (a streamed body), which refuse the
 * byte that would cross. Users sharing a scope share its bytes; each is held to its own quota.
 * After a write the writer calls `changed(realPath)` so the next check measures again.
 */
import type { ByteSource } from '../../fs/atomic.js';
import { InsufficientStorage } from '../../http/errors.js';
import type { SizeCache } from './cache.js';
import type { SizeSource } from './size-source.js';

/** What quotas need of a user (a UserRecord, or a share's owner). */
export interface QuotaUser {
  id: number;
  scope: string;
  /** Bytes; 0 = no quota. */
  quota: number;
}

export interface QuotaServiceDeps {
  sizes: SizeCache;
  /** Uncached sizes of what a write copies or replaces (features/quota/size-source.ts). */
  measure: SizeSource;
  /** The real root of the user's scope (Deps.files.scopeRoot). */
  scopeRoot: (user: QuotaUser) => Promise<{ root: string }>;
  /** Bytes in the trash of the user's scope (Deps.trash.bytes). */
  trashBytes: (user: QuotaUser) => Promise<number>;
}

/** Counts bytes as they come; `take` throws 507 at the byte that would pass the quota. */
export interface QuotaMeter {
  take(n: number): void;
  /** Bytes still allowed (Infinity without a quota). */
  readonly room: number;
}

const UNITS = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

/** 1536 → "1.5 KiB": the message is for people. */
export function formatBytes(n: number): string {
  let v = n;
  let u = 0;
  while (v >= 1024 && u < UNITS.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${n} bytes` : `${+v.toFixed(1)} ${UNITS[u]}`;
}

/** 507's reason: how full the quota is; never a path. */
export function quotaExceeded(quota: number, used: number): InsufficientStorage {
  return new InsufficientStorage(`your storage quota is full: ${formatBytes(Math.max(0, used))} of ${formatBytes(quota)} used, and this needs more`);
}

const UNLIMITED: QuotaMeter = { take: () => undefined, room: Infinity };

/** A streamed body's bytes held against its scope while it is written (this process only). */
interface Hold {
  /** Where the bytes go (real path): every scope holding it counts them. */
  readonly path: string;
  bytes: number;
  /** The size of the file it replaces: the measure counts that file until the body lands over it. */
  readonly freeing: number;
  timer?: NodeJS.Timeout;
  /** The real root of the writer's scope, which its meters measure. */
  readonly root: string;
  /**
   * Bytes of other bodies that landed in that scope (their hold given back) since the stream
   * began to measure it: its measure may predate them, so they still count for it.
   */
  landed: number;
}

/** A finished body's hold waits this long at most for its write's `changed` (resources and WebDAV send one when the write fails too). */
const LANDING_MS = 10_000;

/** What a body adds to its scope once landed: its bytes beyond the file it replaces. */
function growth(h: Hold): number {
  return Math.max(0, h.bytes - h.freeing);
}

/** True when `inner` is `root` or below it (whole segments). */
function holds(root: string, inner: string): boolean {
  return inner === root || inner.startsWith(root.endsWith('/') ? root : `${root}/`);
}

export function createQuotaService(deps: QuotaServiceDeps) {
  /**
   * Bodies being written now (`limit`), held against every scope that holds their target until
   * the write's `changed` makes the scope be measured with them (or the write fails): two bodies
   * streamed at once into one scope — a WebDAV client's parallel PUTs — cannot each take the same
   * room.
   */
  const held = new Set<Hold>();
  /** Streams being read now: a hold given back on `changed` is added to their `landed` (above). */
  const streaming = new Set<Hold>();
  /** The bytes unfinished tus uploads promise into a folder (features/tus, `countPromises`). */
  let promisedIn: ((root: string) => Promise<number>) | undefined;

  function heldUnder(root: string, except?: Hold): number {
    let n = 0;
    for (const h of held) if (h !== except && holds(root, h.path)) n += growth(h);
    return n;
  }

  /** The bytes counted against the user's quota: its scope's files and its scope's trash. */
  async function usedBytes(user: QuotaUser): Promise<number> {
    return (await measured(user)).used;
  }

  /** `root`: the scope's real root when the caller has it already (a stream's hold). */
  async function measured(user: QuotaUser, root?: string): Promise<{ root: string; used: number }> {
    const at = root ?? (await deps.scopeRoot(user)).root;
    const [disk, trash] = await Promise.all([deps.sizes.bytes(at), deps.trashBytes(user)]);
    return { root: at, used: disk + trash };
  }

  /**
   * A meter over the room left: `freeing` bytes go away when the write succeeds (the file it
   * replaces), so they count as room. The bytes bodies hold in the scope count as used; with
   * `hold`, the bytes it takes are held too (above).
   */
  async function meter(user: QuotaUser, freeing = 0, hold?: Hold, promisesCounted = false): Promise<QuotaMeter> {
    if (!(user.quota > 0)) return UNLIMITED;
    const root = hold?.root ?? (await deps.scopeRoot(user)).root;
    // Unfinished tus uploads into the scope: their bytes wait outside it, their lengths are promised.
    // Read before the scope (as tus's own check does): an upload landing between the two reads is
    // then counted twice for a moment, never missed (its file not yet measured, its promise gone).
    const promised = !promisesCounted && promisedIn ? await promisedIn(root) : 0;
    const m = await measured(user, root);
    const used = m.used - Math.max(0, freeing) + promised;
    let seen = 0;
    const others = () => heldUnder(m.root, hold) + (hold ? hold.landed : 0);
    return {
      take(n: number): void {
        const busy = others();
        if (used + busy + seen + n > user.quota) throw quotaExceeded(user.quota, used + busy);
        seen += n;
        if (hold) {
          hold.bytes += n;
          held.add(hold);
        }
      },
      get room() {
        return Math.max(0, user.quota - used - others() - seen);
      },
    };
  }

  function release(hold: Hold): void {
    clearTimeout(hold.timer);
    held.delete(hold);
  }

  /** The body is read to its end: its hold stays until its write says `changed` (or LANDING_MS). */
  function landing(hold: Hold): void {
    if (!held.has(hold)) return;
    hold.timer = setTimeout(() => held.delete(hold), LANDING_MS);
    hold.timer.unref();
  }

  return {
    usedBytes,
    meter,

    /**
     * Where the tus uploads' promises come from (set by features/tus): every other write — bodies,
     * copies, jobs — counts them as used, as an upload counts the others' (tus admitQuota).
     */
    countPromises(fn: (root: string) => Promise<number>): void {
      promisedIn = fn;
    },

    /** Throws 507 when writing `adding` bytes (while `freeing` go) would pass the user's quota. */
    async admit(user: QuotaUser, adding: number, freeing = 0): Promise<void> {
      if (!(user.quota > 0)) return;
      (await meter(user, freeing)).take(Math.max(0, adding));
    },

    /**
     * Like `admit`, with sizes measured on disk: `adding` is a number or the real path of what will
     * be copied (a file or a folder tree), `replacing` the real path of what the write replaces.
     * `promisesCounted`: `adding` holds the tus promises already (tus's own check, which leaves its
     * upload out). Nothing is measured for a user without a quota.
     */
    async admitMeasured(user: QuotaUser, adding: number | string, replacing?: string, promisesCounted = false): Promise<void> {
      if (!(user.quota > 0)) return;
      const [add, free] = await Promise.all([
        typeof adding === 'number' ? adding : deps.measure(adding),
        replacing === undefined ? 0 : deps.measure(replacing),
      ]);
      (await meter(user, free, undefined, promisesCounted)).take(Math.max(0, add));
    },

    /**
     * `source`, counted against the quota as it is read: a declared length that does not fit is
     * refused before the first byte, a stream that grows past the room stops at the chunk that
     * crosses (the write fails, its staging file goes, nothing lands).
     */
    async limit(
      user: QuotaUser,
      source: () => ByteSource,
      opts: { declared?: number; freeing?: number; target?: string } = {},
    ): Promise<() => ByteSource> {
      if (!(user.quota > 0)) return source;
      // The scope's root once per body: the hold and both of its measures use it.
      const root = (await deps.scopeRoot(user)).root;
      const hold: Hold = { path: opts.target ?? root, root, bytes: 0, freeing: Math.max(0, opts.freeing ?? 0), landed: 0 };
      const m = await meter(user, opts.freeing, hold);
      if (opts.declared !== undefined && Number.isFinite(opts.declared)) {
        // Checked on a copy: the stream is counted again from its first byte.
        if (opts.declared > m.room) m.take(opts.declared);
      }
      return () => {
        const inner = source();
        if (inner instanceof Uint8Array) {
          m.take(inner.length);
          landing(hold);
          return inner;
        }
        return (async function* () {
          let done = false;
          try {
            // Measured again from here: writes may have landed since `limit` measured (the before
            // hooks ran meanwhile), their holds given back; those landing from now on are added
            // to `landed`, as this measure may miss them.
            streaming.add(hold);
            const sm = await meter(user, opts.freeing, hold);
            for await (const chunk of inner) {
              sm.take(typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length);
              yield chunk;
            }
            done = true;
          } finally {
            streaming.delete(hold);
            // Read to the end: the bytes land now. Stopped early: nothing of it lands.
            if (done) landing(hold);
            else release(hold);
          }
        })();
      };
    },

    /**
     * Coffer wrote, moved or removed something at this real path: scopes holding it are measured
     * again, and finished bodies written there stop being held (the measure sees them now).
     */
    changed(realPath: string): void {
      deps.sizes.invalidate(realPath);
      for (const h of held) {
        if (!h.timer || !holds(realPath, h.path)) continue;
        release(h);
        for (const s of streaming) if (holds(s.root, h.path)) s.landed += growth(h);
      }
    },

    /** For the usage answer and the users list: the quota and what counts against it. */
    async usage(user: QuotaUser): Promise<{ quota: number; used: number }> {
      return { quota: user.quota, used: await usedBytes(user) };
    },
  };
}

export type QuotaService = ReturnType<typeof createQuotaService>;
