import { HttpError } from '../../http/errors.js';

/** Too many previews waiting: 503 with Retry-After (the client asks again later). */
export class PreviewsBusy extends HttpError {
  constructor(retryAfterSeconds: number) {
    super(503, 'too many previews are being made: retry later', { headers: { 'Retry-After': String(retryAfterSeconds) } });
  }
}

/** Seconds a client is told to wait when the queue is full. */
export const BUSY_RETRY_AFTER = 2;

/**
 * A counting semaphore: at most `limit` tasks run at once, the others wait in order — at most
 * `maxWaiting` of them: one more is refused at once (PreviewsBusy, 503 + Retry-After) instead of
 * queueing without bound (a mosaic of 10,000 videos scrolled through asks for thousands of
 * thumbnails; each waiting request holds its socket and its resolved path). A waiting task whose
 * `signal` aborts (its client went away) leaves the queue without running.
 */
export class Limiter {
  private running = 0;
  private readonly waiting: { go: () => void; drop: (err: unknown) => void }[] = [];
  constructor(
    readonly limit: number,
    readonly maxWaiting = Infinity,
  ) {}
  get active(): number {
    return this.running;
  }
  get queued(): number {
    return this.waiting.length;
  }
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.running >= this.limit) {
      if (this.waiting.length >= this.maxWaiting) throw new PreviewsBusy(BUSY_RETRY_AFTER);
      signal?.throwIfAborted();
      await new Promise<void>((go, drop) => {
        const waiter = { go, drop };
        this.waiting.push(waiter);
        signal?.addEventListener(
          'abort',
          () => {
            const i = this.waiting.indexOf(waiter);
            if (i >= 0) {
              this.waiting.splice(i, 1);
              drop(signal.reason);
            }
          },
          { once: true },
        );
      });
    }
    this.running++;
    try {
      return await task();
    } finally {
      this.running--;
      this.waiting.shift()?.go();
    }
  }
}
