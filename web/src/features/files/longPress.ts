/**
 * Long press (docs/client.md §2 "Listing items", §9): a press held 500 ms without moving more than 10 px
 * fires once; moving further, lifting or cancelling before then does nothing. Plain timing logic,
 * driven by pointer events in the listing.
 */
import { LONG_PRESS_MS, LONG_PRESS_TOLERANCE_PX } from '../../lib/limits';

export interface Timers {
  set: (run: () => void, ms: number) => unknown;
  clear: (handle: unknown) => void;
}

const realTimers: Timers = {
  set: (run, ms) => setTimeout(run, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export class LongPress<T> {
  private timer: unknown = null;
  private origin: { x: number; y: number } | null = null;
  private firedFor: T | null = null;

  constructor(
    private readonly timers: Timers = realTimers,
    private readonly delay = LONG_PRESS_MS,
    private readonly tolerance = LONG_PRESS_TOLERANCE_PX,
  ) {}

  /** A press began on `target` at (x, y); `onLongPress` runs if it is held. */
  start(target: T, x: number, y: number, onLongPress: (target: T) => void): void {
    this.cancel();
    this.firedFor = null;
    this.origin = { x, y };
    this.timer = this.timers.set(() => {
      this.timer = null;
      this.origin = null;
      this.firedFor = target;
      onLongPress(target);
    }, this.delay);
  }

  /** The pointer moved: more than the tolerance from where it started cancels the press. */
  move(x: number, y: number): void {
    if (!this.origin) return;
    if (Math.hypot(x - this.origin.x, y - this.origin.y) > this.tolerance) this.cancel();
  }

  /** The press is over (lifted, cancelled, the pointer left); nothing fires after this. */
  cancel(): void {
    if (this.timer !== null) this.timers.clear(this.timer);
    this.timer = null;
    this.origin = null;
  }

  /** Whether a press is being held and may still fire. */
  get pending(): boolean {
    return this.timer !== null;
  }

  /**
   * Whether the press that just ended fired: the click (and context menu) the browser sends after
   * it must then be ignored. Reading it once forgets it.
   */
  consumeFired(): boolean {
    const fired = this.firedFor !== null;
    this.firedFor = null;
    return fired;
  }

  /** Like consumeFired, without forgetting. */
  get fired(): boolean {
    return this.firedFor !== null;
  }
}
