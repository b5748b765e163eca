/**
 * Items that arrive faster than the screen paints (a streamed search answer), handed over together
 * at most once per animation frame: the receiver appends one batch instead of copying its whole
 * list for every item.
 */
export interface FrameBatches<T> {
  push(item: T): void;
  /** Hands over what is waiting now (the stream ended). */
  flush(): void;
  /** Drops what is waiting (the stream was cancelled). */
  cancel(): void;
}

export function frameBatches<T>(
  deliver: (items: T[]) => void,
  schedule: (run: () => void) => number = requestAnimationFrame,
  unschedule: (id: number) => void = cancelAnimationFrame,
): FrameBatches<T> {
  let pending: T[] = [];
  let frame: number | null = null;
  function run() {
    frame = null;
    if (pending.length === 0) return;
    const items = pending;
    pending = [];
    deliver(items);
  }
  function stop() {
    if (frame !== null) unschedule(frame);
    frame = null;
  }
  return {
    push(item) {
      pending.push(item);
      frame ??= schedule(run);
    },
    flush() {
      stop();
      run();
    },
    cancel() {
      stop();
      pending = [];
    },
  };
}
