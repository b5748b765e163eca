/**
 * At most one call per `ms` (docs/client.md §9: scroll and resize 100 ms, shell drag 32 ms). The first call runs at
 * once; calls inside the window are folded into one trailing call with the latest arguments, so
 * the final position of a drag or size of a window is never lost.
 */
export interface Throttled<A extends unknown[]> {
  (...args: A): void;
  /** Drops a pending trailing call. */
  cancel(): void;
  /** Makes a pending trailing call now (a listener going away keeps the last value). */
  flush(): void;
}

export function throttle<A extends unknown[]>(fn: (...args: A) => void, ms: number): Throttled<A> {
  let last = -Infinity;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let pending: A | null = null;
  const run = (args: A) => {
    last = Date.now();
    fn(...args);
  };
  const throttled = (...args: A) => {
    const wait = last + ms - Date.now();
    if (wait <= 0 && timer === undefined) {
      run(args);
      return;
    }
    pending = args;
    timer ??= setTimeout(
      () => {
        timer = undefined;
        const next = pending;
        pending = null;
        if (next) run(next);
      },
      Math.max(wait, 0),
    );
  };
  throttled.cancel = () => {
    clearTimeout(timer);
    timer = undefined;
    pending = null;
  };
  throttled.flush = () => {
    const next = pending;
    throttled.cancel();
    if (next) run(next);
  };
  return throttled;
}
