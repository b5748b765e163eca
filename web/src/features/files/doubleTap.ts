/**
 * Double tap (docs/client.md §2 "Listing items": double click opens; §9: 300 ms double click or double tap
 * window). Not every mobile browser turns two taps into a `dblclick` (Safari on iOS does not), so
 * the listing tells taps apart itself: a second tap on the same item within 300 ms opens it, and
 * the `dblclick` a browser may also send for those taps is ignored. Plain timing logic.
 */
import { DOUBLE_TAP_MS } from '../../lib/limits';

export class DoubleTap<T> {
  private last: { target: T; at: number } | null = null;
  private pointerType = '';

  constructor(private readonly window = DOUBLE_TAP_MS) {}

  /** A press on an item began with this kind of pointer ('touch', 'mouse', 'pen'). */
  pressed(pointerType: string): void {
    this.pointerType = pointerType;
  }

  /** Whether the latest press was a touch (its taps are counted here, not by `dblclick`). */
  get touch(): boolean {
    return this.pointerType === 'touch';
  }

  /** A tap on `target` at `at` ms; true when it is the second of a double tap. */
  tap(target: T, at: number): boolean {
    const prev = this.last;
    if (prev && prev.target === target && at - prev.at <= this.window) {
      this.last = null;
      return true;
    }
    this.last = { target, at };
    return false;
  }
}
