/**
 * Per-upload locks: one request at a time works on an upload's bytes (PATCH, DELETE, expiry).
 * The interface is what a Redis lock can serve when several instances run; the default lives
 * in this process. "One upload per path" across instances does not rest on it: the database's
 * unique index on the target does that.
 */
import { HttpError } from '../../http/errors.js';

export type Release = () => Promise<void>;

export interface AcquireOptions {
  /**
   * Called when another request wants the lock while this holder has it: the holder should stop
   * (e.g. a PATCH whose client went away but whose socket is not closed yet) and release.
   */
  onReleaseRequest?: () => void;
  /** How long to wait for the holder; then 423 Locked. Default 10 s. */
  waitMs?: number;
}

export interface UploadLocks {
  /** Takes the lock on `key`; rejects with 423 when it cannot be had in time. */
  acquire(key: string, opts?: AcquireOptions): Promise<Release>;
  /** Takes the lock only if it is free now; null otherwise (the expiry sweep skips busy uploads). */
  tryAcquire(key: string): Promise<Release | null>;
}

export class Locked extends HttpError {
  constructor() {
    super(423);
  }
}

interface Holder {
  onReleaseRequest?: () => void;
  released: Promise<void>;
}

/** The in-process implementation. */
export function createMemoryLocks(): UploadLocks {
  const held = new Map<string, Holder>();

  function take(key: string, opts: AcquireOptions): Release {
    let done!: () => void;
    const released = new Promise<void>((resolve) => (done = resolve));
    const holder: Holder = { onReleaseRequest: opts.onReleaseRequest, released };
    held.set(key, holder);
    let once = false;
    return async () => {
      if (once) return;
      once = true;
      if (held.get(key) === holder) held.delete(key);
      done();
    };
  }

  return {
    async acquire(key, opts = {}) {
      const deadline = Date.now() + (opts.waitMs ?? 10_000);
      for (;;) {
        const current = held.get(key);
        if (!current) return take(key, opts);
        current.onReleaseRequest?.();
        const left = deadline - Date.now();
        if (left <= 0) throw new Locked();
        let timer: NodeJS.Timeout | undefined;
        const timedOut = await Promise.race([
          current.released.then(() => false),
          new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), left))),
        ]);
        clearTimeout(timer);
        if (timedOut) throw new Locked();
      }
    },
    async tryAcquire(key) {
      return held.has(key) ? null : take(key, {});
    },
  };
}
